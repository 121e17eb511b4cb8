// Package sandbox is the one place that knows how plaios contains a child process that runs
// a pack's code: `plaios guard` (npm pack with its lifecycle scripts, the install, the import
// and the factory) and `plaios mcp serve` (the pack's load and its tools) ask it for every
// such child and never build one themselves.
//
// On Linux every child starts under a small init: the plaios binary itself, re-executed
// (/proc/self/exe, recognised by this package's init function before main runs) inside new
// user, PID, mount, IPC and UTS namespaces, and a new network namespace unless the child is
// given the host's network. The user namespace maps the child to an unprivileged id even when
// plaios runs as root (nobody, 65534), so it holds no capability over anything of the host.
// The init builds a new root on a tmpfs showing only the system folders (read-only), the
// folders the caller names (read-only unless writable), a private /tmp and HOME, a few
// devices and a /proc of the child's own PID namespace, pivots into it, drops every
// capability (bounding set included), sets no_new_privs and resource limits, starts the
// program and watches the memory and the number of processes of everything in the namespace,
// ending them all when a limit is passed. The environment is exactly what the caller gives.
//
// Inside, node children can be preloaded with hooks.cjs (through NODE_OPTIONS, so worker
// threads and child node processes load it too), which records every attempt to reach the
// network or a unix socket, down to the native bindings, and refuses it, so that a package
// that swallows the error is still caught. Events reach the parent on a pipe (fd 3); the
// events that report a result carry a key that only the top process's hooks know, handed to
// the harness once, so that a pack cannot write a result of its own.
//
// With Mode Off there are no namespaces: only the hooks, the filtered environment and the
// limits stand guard, a weaker check that callers must say out loud. Other systems than Linux
// have no namespaces at all.
package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plaios/plaios/internal/realpath"
)

//go:embed node
var scripts embed.FS

// Mode is how the sandbox contains its children.
type Mode string

// The modes of `--sandbox`.
const (
	// Auto contains children in namespaces of their own; when the kernel refuses one it is an
	// error, as for NetNS.
	Auto Mode = "auto"
	// NetNS is Auto under its historical name: it insists on the namespaces.
	NetNS Mode = "netns"
	// Off runs children without namespaces: only the hooks, the environment and the limits.
	Off Mode = "off"
)

// Modes lists the modes as users type them.
var Modes = []string{string(Auto), string(NetNS), string(Off)}

// ErrUnavailable is returned (wrapped) by New when the kernel refuses a layer of the
// containment; the message names the layer.
var ErrUnavailable = errors.New("the sandbox cannot be made")

// The limits every child gets unless its Spec says otherwise.
const (
	DefaultMemory    int64 = 2 << 30 // bytes, summed over every process of the child
	DefaultProcesses       = 256     // processes alive at once
	// MinMemory is the least memory limit a child may be given: node alone, started, holds
	// about 40 MiB.
	MinMemory int64 = 64 << 20
)

// Config configures New.
type Config struct {
	Mode Mode
	// Node is the node binary hooked children run (default: node on PATH).
	Node string
	// TempDir is where the sandbox makes its folder (default: os.TempDir, from TMPDIR).
	TempDir string
}

// Sandbox starts contained children. It owns a temporary folder holding the node scripts;
// Close removes it.
type Sandbox struct {
	mode Mode // Auto or Off
	dir  string
	node string
}

// New checks once that a child can be contained (unless the mode is Off), naming the layer
// the kernel refuses when it cannot, and writes the node scripts to a temporary folder.
func New(ctx context.Context, cfg Config) (*Sandbox, error) {
	if cfg.Mode == "" {
		cfg.Mode = Auto
	}
	if cfg.Node == "" {
		p, err := exec.LookPath("node")
		if err != nil {
			return nil, fmt.Errorf("node is not on PATH; install Node.js 20 or newer")
		}
		cfg.Node = p
	}
	if abs, err := filepath.Abs(cfg.Node); err == nil {
		cfg.Node = abs
	}
	s := &Sandbox{mode: Auto, node: cfg.Node}
	switch cfg.Mode {
	case Off:
		s.mode = Off
	case Auto, NetNS:
	default:
		return nil, fmt.Errorf("unknown sandbox mode %q; use one of %s", cfg.Mode, strings.Join(Modes, ", "))
	}
	dir, err := os.MkdirTemp(cfg.TempDir, "plaios-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("make the sandbox folder: %w", err)
	}
	s.dir = dir
	if err := writeScripts(dir); err != nil {
		s.Close()
		return nil, err
	}
	if err := os.Mkdir(s.rootDir(), 0o755); err != nil {
		s.Close()
		return nil, err
	}
	if s.mode != Off {
		if err := probe(ctx, s); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

func writeScripts(dir string) error {
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	return fs.WalkDir(scripts, "node", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, "node"), "/")
		target := filepath.Join(dir, "node", filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := scripts.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// Isolated reports whether children run in namespaces of their own.
func (s *Sandbox) Isolated() bool { return s.mode != Off && contained }

// Describe says in a few words how children are contained.
func (s *Sandbox) Describe() string {
	if !s.Isolated() {
		return "no namespaces (--sandbox off): connections are only recorded and refused by hooks inside node, and the child sees the host's files"
	}
	return "user, PID, mount and network namespaces of its own, as an unprivileged user without capabilities, seeing only the folders it needs"
}

// rootDir is the empty folder a contained child's init mounts its new root on (a tmpfs),
// in the child's own mount namespace: the host sees it empty, and children share it.
func (s *Sandbox) rootDir() string { return filepath.Join(s.dir, "root") }

// Dir is the folder holding the node scripts.
func (s *Sandbox) Dir() string { return s.dir }

// Node is the node binary hooked children run.
func (s *Sandbox) Node() string { return s.node }

// Hooks is the path of the preload script (node --require, through NODE_OPTIONS).
func (s *Sandbox) Hooks() string { return filepath.Join(s.dir, "node", "hooks.cjs") }

// Harness returns the guard harness script, to be copied into the folder whose node_modules
// its imports should resolve from.
func Harness() []byte {
	data, _ := scripts.ReadFile("node/harness.mjs")
	return data
}

// Close removes the sandbox's folder.
func (s *Sandbox) Close() error {
	if s == nil || s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return err
}

// Mount is a file or folder of the host that a child sees.
type Mount struct {
	// Path is where the child sees it (absolute).
	Path string
	// Source is what appears there ("": Path itself).
	Source string
	// Write lets the child change it; otherwise it is read-only.
	Write bool
	// Scratch shows a folder the child may seem to change: what it writes goes to a layer of
	// its own (an overlay), discarded with it, and the folder is left as it was. For the
	// caches tools write into node_modules (.cache, Vite's .vite-temp), which a read-only
	// folder would fail with EROFS. Where the kernel refuses the layer, it is read-only.
	Scratch bool
}

// Spec is one child to run.
type Spec struct {
	Name string // the program (absolute, or looked up on PATH); node when empty
	Args []string
	Dir  string // the working folder (it must be among what the child sees)
	// Env is the child's whole environment, besides HOME and TMPDIR (a private folder) and the
	// sandbox's own variables; nil gives PATH, LANG, LC_ALL and TZ of this process. It never
	// defaults to this process's environment.
	Env []string
	// Timeout kills the child and everything it started when it runs longer (0: no limit).
	Timeout time.Duration
	// Hooks preloads hooks.cjs into node (and its workers and node children): the recording
	// and refusal of network attempts.
	Hooks bool
	// Shims also serves OpenClaw's entry helpers (openclaw/plugin-sdk/plugin-entry and
	// …/tool-plugin) from the sandbox's faithful copies (needs Hooks).
	Shims bool
	// Releasable lets the child lift the hooks' refusal once it has loaded what it must load
	// with the network refused, for long-lived children whose later work may use the network
	// (plaios mcp serve, without --offline). It lifts the hooks only.
	Releasable bool
	// Network gives the child the host's network; otherwise it has a network namespace of its
	// own with no interface up.
	Network bool
	// Mounts are the files and folders the child sees besides the system's (/usr, /etc, …),
	// the program's installation and the sandbox's scripts.
	Mounts []Mount
	// Memory bounds the resident memory of all the child's processes together (0:
	// DefaultMemory); Processes bounds how many run at once (0: DefaultProcesses).
	Memory    int64
	Processes int
	// Files are passed on to the child as fds 4, 5, … (fd 3 is the events pipe). Command only.
	Files []*os.File
}

// Attempt is one recorded attempt to reach the network or a unix socket.
type Attempt struct {
	What   string `json:"what"`   // connect, tls, dns lookup, http, https, fetch, udp, websocket, unix socket, spawn…
	Target string `json:"target"` // host:port, URL, socket path or command line
	// Origin says where it came from when not the main thread: "a worker thread", "a child
	// process (node -e …)".
	Origin string `json:"origin,omitempty"`
	// When is set for an attempt made after construction, while the child settled.
	When string `json:"when,omitempty"`
}

// String is the attempt as reasons word it: "fetch https://… (from a worker thread)".
func (a Attempt) String() string {
	s := strings.TrimSpace(a.What + " " + a.Target)
	var notes []string
	if a.Origin != "" {
		notes = append(notes, "from "+a.Origin)
	}
	if a.When != "" {
		notes = append(notes, a.When)
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

// Loopback reports whether the attempt's target is on the loopback (127.0.0.0/8, ::1,
// localhost), whatever form the hooks recorded it in: the host of a URL (fetch, websocket, and
// http and https, whose target is "METHOD URL"), of a host:port (connect, tls, udp), the name a
// DNS lookup asks for. A unix socket and a spawned network tool never are.
func (a Attempt) Loopback() bool {
	var host string
	switch {
	case a.What == "unix socket" || a.What == "spawn":
		return false
	case strings.Contains(a.Target, "://"):
		fields := strings.Fields(a.Target)
		u, err := url.Parse(fields[len(fields)-1])
		if err != nil {
			return false
		}
		host = u.Hostname()
	case strings.HasPrefix(a.What, "dns"):
		host = a.Target
	default:
		h, _, err := net.SplitHostPort(a.Target)
		if err != nil {
			return false
		}
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Result is what a child did.
type Result struct {
	// Events are the JSON lines the child's trusted writer (the harness, through the hooks'
	// key) sent on the events pipe, in order.
	Events []json.RawMessage
	// Attempts are the network attempts anyone in the child reported.
	Attempts []Attempt
	Stdout   string // at most the last 64 KiB
	Stderr   string // at most the last 64 KiB
	ExitCode int    // -1 when killed
	TimedOut bool
	Canceled bool
	Duration time.Duration
	// OutOfMemory: the child's processes together used more than MemoryLimit; TooManyProcesses:
	// more than ProcessLimit ran at once. Both end the child.
	OutOfMemory      bool
	TooManyProcesses bool
	MemoryLimit      int64
	ProcessLimit     int
	// PeakMemory is the most resident memory seen at once (bytes).
	PeakMemory int64
}

// LimitReason says which limit ended the child, as reasons word it ("used more than 2 GiB"),
// or "" when none did.
func (r *Result) LimitReason() string {
	switch {
	case r.OutOfMemory:
		return "used more than " + Bytes(r.MemoryLimit)
	case r.TooManyProcesses:
		return fmt.Sprintf("started more than %d processes", r.ProcessLimit)
	}
	return ""
}

// Bytes writes a size the way the limits are said: "2 GiB", "512 MiB".
func Bytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// ParseMemory reads a memory limit as a person writes one: a whole number and a binary unit,
// "512MiB", "2GiB", "4G" (K, M, G and T are KiB, MiB, GiB and TiB; the case does not matter).
// A bare number is refused: bytes or mebibytes would both be a guess. So is a limit under
// MinMemory, which no node process could keep to.
func ParseMemory(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	units := map[string]uint{"k": 10, "kib": 10, "m": 20, "mib": 20, "g": 30, "gib": 30, "t": 40, "tib": 40}
	shift, ok := units[strings.ToLower(strings.TrimSpace(t[i:]))]
	if i == 0 || !ok {
		return 0, fmt.Errorf("%q is not a memory size; give a whole number and a unit, such as 512MiB or 4GiB", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil || n > (1<<62)>>shift {
		return 0, fmt.Errorf("%q is more memory than any machine has", s)
	}
	if n <<= shift; n < MinMemory {
		return 0, fmt.Errorf("%q is less than node needs to start; give at least %s", s, strings.ReplaceAll(Bytes(MinMemory), " ", ""))
	}
	return n, nil
}

const outputTail = 64 << 10

// Run starts the child, waits for it (killing it and everything it started on timeout or
// when ctx ends) and returns what it did. An error means it could not be started at all.
func (s *Sandbox) Run(ctx context.Context, spec Spec) (*Result, error) {
	if len(spec.Files) > 0 {
		return nil, errors.New("sandbox: Run passes no extra files; use Command")
	}
	c, err := s.Command(spec)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	stdout := &TailBuffer{Max: outputTail}
	stderr := &TailBuffer{Max: outputTail}
	c.Cmd.Stdout = stdout
	c.Cmd.Stderr = stderr
	start := time.Now()
	if err := c.Start(); err != nil {
		return nil, err
	}
	res := &Result{}
	var evWG sync.WaitGroup
	evWG.Add(1)
	go func() {
		defer evWG.Done()
		res.Events, res.Attempts = c.readEvents(c.Events)
	}()
	done := make(chan struct{})
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		var timer <-chan time.Time
		if spec.Timeout > 0 {
			t := time.NewTimer(spec.Timeout)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-done:
		case <-timer:
			res.TimedOut = true
			c.Kill()
		case <-ctx.Done():
			res.Canceled = true
			c.Kill()
		}
	}()
	st := c.Wait()
	close(done)
	<-killed
	evDone := make(chan struct{})
	go func() {
		evWG.Wait()
		close(evDone)
	}()
	c.EndEvents(evDone)
	c.Events.Close()
	if c.setupErr != nil {
		return nil, c.setupErr
	}
	res.Duration = time.Since(start)
	res.ExitCode = st.ExitCode
	res.OutOfMemory, res.TooManyProcesses = st.Memory, st.Processes
	res.MemoryLimit, res.ProcessLimit = c.memory, c.processes
	res.PeakMemory = st.PeakMemory
	res.Stdout = stdout.String()
	res.Stderr = stderr.String()
	if !res.OutOfMemory && res.ExitCode != 0 && outOfMemoryText(res.Stderr) {
		// An allocation refused by the data limit: the same limit, reached inside node before
		// the watcher saw it.
		res.OutOfMemory = true
	}
	return res, nil
}

// outOfMemoryText recognises node's own words for an allocation that failed.
func outOfMemoryText(stderr string) bool {
	for _, s := range []string{"JavaScript heap out of memory", "Allocation failed - process out of memory", "Array buffer allocation failed", "std::bad_alloc", "Cannot allocate memory"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// Child is one contained child: the caller sets its standard streams, starts it, reads its
// events and stops it.
type Child struct {
	// Cmd is what starts the child (its init on Linux). Set Stdin, Stdout and Stderr before
	// Start; leave the rest.
	Cmd *exec.Cmd
	// Events is the read end of the events pipe, after Start.
	Events *os.File
	// Key marks the events of the child's trusted writer.
	Key string

	evW       *os.File
	status    *os.File // the init's report (Linux)
	closeMe   []*os.File
	tmp       string
	memory    int64
	processes int
	started   bool
	ended     chan struct{} // closed when the init (or the program) has ended and been reaped
	setupErr  error         // the init could not build the containment
	waitOnce  sync.Once
	st        ExitStatus
	// gentle: the init runs without namespaces and ends what the child started when asked
	// (SIGTERM); SIGKILL would leave that running.
	gentle bool
}

// ExitStatus is how a child ended.
type ExitStatus struct {
	ExitCode   int // -1 when killed
	Memory     bool
	Processes  bool
	PeakMemory int64
}

// Command prepares a contained child that the caller starts, talks to and stops itself: the
// same containment, hooks, environment and limits as Run gives spec (Timeout aside).
func (s *Sandbox) Command(spec Spec) (*Child, error) {
	if s.dir == "" {
		return nil, errors.New("the sandbox is closed")
	}
	c := &Child{memory: spec.Memory, processes: spec.Processes, Key: newKey()}
	if !s.Isolated() {
		// A child without namespaces gets a HOME and TMPDIR of its own here; a contained one
		// gets them on its new root, which every contained child builds on the same empty
		// folder (rootDir), each in its own mount namespace.
		tmp, err := os.MkdirTemp(s.dir, "child-")
		if err != nil {
			return nil, err
		}
		c.tmp = tmp
	}
	if c.memory <= 0 {
		c.memory = DefaultMemory
	}
	if c.processes <= 0 {
		c.processes = DefaultProcesses
	}
	if err := s.prepare(c, spec); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// LimitReason says which of the sandbox's limits ended the child whose status st is, in
// Result.LimitReason's words with this child's limits; "" when none did.
func (c *Child) LimitReason(st ExitStatus) string {
	r := Result{OutOfMemory: st.Memory, TooManyProcesses: st.Processes, MemoryLimit: c.memory, ProcessLimit: c.processes}
	return r.LimitReason()
}

// Start starts the child and closes the parent's copies of what the child holds.
func (c *Child) Start() error {
	name := filepath.Base(c.Cmd.Path)
	if err := c.Cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	c.started = true
	c.ended = make(chan struct{})
	for _, f := range c.closeMe {
		f.Close()
	}
	c.closeMe = nil
	if c.evW != nil {
		c.evW.Close()
		c.evW = nil
	}
	return nil
}

// Kill ends the child with everything it started.
func (c *Child) Kill() {
	if c != nil && c.Cmd != nil && c.Cmd.Process != nil {
		c.stop()
	}
}

// Wait waits for the child to end and says how it did. It may be called more than once.
func (c *Child) Wait() ExitStatus {
	c.waitOnce.Do(func() {
		if !c.started {
			c.st = ExitStatus{ExitCode: -1}
			return
		}
		err := c.Cmd.Wait()
		close(c.ended)
		c.Kill() // whatever the child left behind goes with it
		c.st.ExitCode = c.Cmd.ProcessState.ExitCode()
		if err != nil && c.st.ExitCode == 0 {
			c.st.ExitCode = -1
		}
		c.readStatus()
	})
	return c.st
}

// eventsGrace is how long the events pipe is still read once the child has ended. What it
// wrote is in the pipe already and is read in microseconds; but a process that outlived it
// holding the pipe (without namespaces, a detached grandchild keeps fd 3) would keep the reader
// waiting for an end that never comes.
const eventsGrace = 2 * time.Second

// EndEvents is called once the child has ended: it waits for the reader of Events to finish
// (done closed) and, when it has not within eventsGrace, closes Events, which ends it.
func (c *Child) EndEvents(done <-chan struct{}) {
	t := time.NewTimer(eventsGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.Events.Close()
		<-done
	}
}

// Close removes what the child needed on disk and closes the descriptors still open.
func (c *Child) Close() {
	for _, f := range append(c.closeMe, c.evW, c.status) {
		if f != nil {
			f.Close()
		}
	}
	c.closeMe, c.evW, c.status = nil, nil, nil
	if c.tmp != "" {
		os.RemoveAll(c.tmp)
		c.tmp = ""
	}
}

// Event is one line of the events pipe.
type Event struct {
	// Raw is the line; Trusted when it carries the child's key.
	Raw     json.RawMessage
	Trusted bool
	// Attempt is set for a network event (from anyone in the child).
	Attempt *Attempt
}

// ParseEvent reads one events line. Lines that are not a JSON object are ignored (ok false).
func (c *Child) ParseEvent(line []byte) (Event, bool) {
	line = bytes.TrimSpace(line)
	if len(line) < 2 || line[0] != '{' || !json.Valid(line) {
		return Event{}, false
	}
	var head struct {
		Key  string `json:"key"`
		Type string `json:"type"`
		Attempt
	}
	if json.Unmarshal(line, &head) != nil {
		return Event{}, false
	}
	ev := Event{Raw: json.RawMessage(append([]byte(nil), line...)), Trusted: head.Key != "" && head.Key == c.Key}
	if head.Type == "network" {
		a := head.Attempt
		ev.Attempt = &a
	}
	return ev, true
}

// The events a parent keeps from one child: enough for any honest pack.
const (
	maxEventLine   = 64 << 20
	maxEventsBytes = 256 << 20
	maxAttempts    = 64
)

// readEvents reads the events pipe to its end: the trusted events and the attempts, within
// bounds (beyond them the pipe is drained and the rest dropped).
func (c *Child) readEvents(r io.Reader) ([]json.RawMessage, []Attempt) {
	var events []json.RawMessage
	var attempts []Attempt
	total := 0
	ReadLines(r, maxEventLine, func(line []byte) {
		ev, ok := c.ParseEvent(line)
		if !ok {
			return
		}
		if ev.Attempt != nil {
			if len(attempts) < maxAttempts {
				attempts = append(attempts, *ev.Attempt)
			}
			return
		}
		if ev.Trusted && total+len(ev.Raw) <= maxEventsBytes {
			total += len(ev.Raw)
			events = append(events, ev.Raw)
		}
	})
	return events, attempts
}

// ReadLines calls fn with every line of r (without its newline) until r ends; a line longer
// than max is skipped whole.
func ReadLines(r io.Reader, max int, fn func([]byte)) {
	buf := make([]byte, 64<<10)
	var line []byte
	skipping := false
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			part := chunk
			if i >= 0 {
				part = chunk[:i]
			}
			if !skipping {
				if len(line)+len(part) > max {
					skipping, line = true, nil
				} else {
					line = append(line, part...)
				}
			}
			if i < 0 {
				break
			}
			if !skipping {
				fn(line)
			}
			line, skipping = line[:0], false
			chunk = chunk[i+1:]
		}
		if err != nil {
			if len(line) > 0 && !skipping {
				fn(line)
			}
			return
		}
	}
}

// TailBuffer keeps the last Max bytes written to it.
type TailBuffer struct {
	Max int
	mu  sync.Mutex
	buf []byte
}

func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.Max {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-t.Max:]...)
	}
	return len(p), nil
}

func (t *TailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// hooksConfig is what hooks.cjs reads once, in the child's top process.
type hooksConfig struct {
	Key        string `json:"key"`
	Shims      bool   `json:"shims"`
	Releasable bool   `json:"releasable"`
}

// prepare builds c.Cmd for spec: the program and environment, the events pipe and the hooks'
// configuration, and the platform's containment.
func (s *Sandbox) prepare(c *Child, spec Spec) error {
	name := spec.Name
	if name == "" {
		name = s.node
	}
	if !filepath.IsAbs(name) {
		p, err := exec.LookPath(name)
		if err != nil {
			return fmt.Errorf("%s is not on PATH", name)
		}
		name = p
	}
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	argv0 := filepath.Base(name)
	if real, err := realpath.Resolve(name); err == nil {
		name = real // the link (node_modules/.bin/pnpm) is not among what the child sees
	}
	env := spec.Env
	if env == nil {
		env = BaseEnv(os.Getenv)
	}
	env = withoutKeys(env, "HOME", "TMPDIR", "NODE_OPTIONS", "PLAIOS_SANDBOX_EVENTS_FD", "PLAIOS_SANDBOX_CONFIG_FD", "PLAIOS_SANDBOX_NETWORK")
	env = append(env, "PLAIOS_SANDBOX_EVENTS_FD=3")
	evR, evW, err := os.Pipe()
	if err != nil {
		return err
	}
	c.Events, c.evW = evR, evW
	files := append([]*os.File{evW}, spec.Files...)
	// No V8 heap flag here: any (--max-old-space-size and its kin) makes node refuse its
	// built-in code cache and compile its builtins from source, 25–30 ms a start; the watcher
	// and RLIMIT_DATA hold the memory limit for node as for any other child.
	nodeOptions := ""
	if spec.Hooks {
		cfg, _ := json.Marshal(hooksConfig{Key: c.Key, Shims: spec.Shims, Releasable: spec.Releasable})
		cfgR, cfgW, err := os.Pipe()
		if err != nil {
			return err
		}
		go func() {
			// The hooks read it once at start; a child that never reads it is killed in time.
			_, _ = cfgW.Write(cfg)
			cfgW.Close()
		}()
		files = append(files, cfgR)
		c.closeMe = append(c.closeMe, cfgR)
		env = append(env, fmt.Sprintf("PLAIOS_SANDBOX_CONFIG_FD=%d", 2+len(files)))
		nodeOptions = "--require=" + s.Hooks()
	}
	if nodeOptions != "" {
		env = append(env, "NODE_OPTIONS="+nodeOptions)
	}
	return s.containedCommand(c, spec, name, argv0, env, files)
}

// BaseEnv is the environment a child gets when its caller names none: PATH, LANG, LC_ALL
// and TZ of this process, nothing else.
func BaseEnv(getenv func(string) string) []string {
	var env []string
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "TZ"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func withoutKeys(env []string, keys ...string) []string {
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, key := range keys {
			if k == key {
				drop = true
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

func newKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func fileURL(p string) string {
	return "file://" + filepath.ToSlash(p)
}

// networkVars are the variables a child that is given the network needs to reach it as this
// machine does: the certificate authorities it trusts (a TLS-inspecting proxy's own, for
// one) and the proxies. None of them is a credential a pack could use elsewhere; a proxy URL
// that carries one is left out.
var networkVars = []string{"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"}

// NetworkEnv returns, for a child given the network, the variables of networkVars this
// process has, and the files and folders they name, to be shown read-only.
func NetworkEnv(getenv func(string) string) (env []string, mounts []Mount) {
	for _, k := range networkVars {
		v := getenv(k)
		if v == "" {
			continue
		}
		if strings.HasSuffix(strings.ToLower(k), "_proxy") && strings.Contains(v, "@") {
			continue
		}
		env = append(env, k+"="+v)
		switch k {
		case "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR":
			if filepath.IsAbs(v) {
				if _, err := os.Stat(v); err == nil {
					mounts = append(mounts, Mount{Path: v})
				}
			}
		}
	}
	return env, mounts
}
