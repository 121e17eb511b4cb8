// Package sandbox runs a child process with the network refused, for `plaios guard`. On Linux
// the child starts in a new network namespace of its own (CLONE_NEWNET as root, through a new
// user namespace otherwise), where no interface is up, so nothing it does reaches another
// machine or this one's loopback. Inside it, node children are preloaded with hooks.mjs, which
// records every attempt to connect (TCP and TLS sockets, DNS, HTTP, fetch, UDP, WebSocket,
// network clients started as child processes) and refuses it, so that a package that swallows
// the error is still caught. The embedded node scripts (node/) are the hooks, the faithful
// copies of OpenClaw's entry helpers they can serve in place of the real SDK, and the guard
// harness that checks a package's contract. With Mode Off there is no namespace and only the hooks stand guard: a weaker
// check that callers must say out loud.
package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

//go:embed node
var scripts embed.FS

// Mode is how the sandbox refuses the network.
type Mode string

// The modes of `--sandbox`.
const (
	// Auto uses the best isolation the machine allows: a network namespace, entered directly as
	// root and through a user namespace otherwise. Without one it is an error, as for NetNS.
	Auto Mode = "auto"
	// NetNS insists on a network namespace.
	NetNS Mode = "netns"
	// Off runs children without a namespace: only the hooks record and refuse connections.
	Off Mode = "off"
)

// Modes lists the modes as users type them.
var Modes = []string{string(Auto), string(NetNS), string(Off)}

// ErrUnavailable is returned (wrapped) by New when no network namespace can be made.
var ErrUnavailable = errors.New("no network namespace can be made")

// Config configures New.
type Config struct {
	Mode Mode
	// Node is the node binary the probe starts (default: node on PATH).
	Node string
	// UserNamespace makes the namespace through a new user namespace even when running as
	// root (tests use it to exercise the unprivileged path).
	UserNamespace bool
}

// Sandbox starts children with the network refused. It owns a temporary folder holding the
// node scripts; Close removes it.
type Sandbox struct {
	mode   Mode // NetNS or Off
	userns bool
	dir    string
	node   string
}

// New probes once that a child can be started in a new network namespace (unless the mode
// is Off) and writes the node scripts to a temporary folder.
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
	s := &Sandbox{mode: NetNS, node: cfg.Node}
	switch cfg.Mode {
	case Off:
		s.mode = Off
	case Auto, NetNS:
		s.userns = cfg.UserNamespace || os.Geteuid() != 0
	default:
		return nil, fmt.Errorf("unknown sandbox mode %q; use one of %s", cfg.Mode, strings.Join(Modes, ", "))
	}
	dir, err := os.MkdirTemp("", "plaios-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("make the sandbox folder: %w", err)
	}
	s.dir = dir
	if err := writeScripts(dir); err != nil {
		s.Close()
		return nil, err
	}
	if s.mode == NetNS {
		if err := s.probe(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

func writeScripts(dir string) error {
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

// probe starts `node --version` in a new network namespace.
func (s *Sandbox) probe(ctx context.Context) error {
	attr, err := namespaceAttr(s.userns)
	if err == nil {
		cmd := exec.CommandContext(ctx, s.node, "--version")
		cmd.SysProcAttr = attr
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err = cmd.Run(); err != nil && out.Len() > 0 {
			err = fmt.Errorf("%v: %s", err, strings.TrimSpace(out.String()))
		}
	}
	if err != nil {
		how := "a new network namespace"
		if s.userns {
			how = "a new user and network namespace"
		}
		return fmt.Errorf("%w (starting a child in %s failed: %v)", ErrUnavailable, how, err)
	}
	return nil
}

// Isolated reports whether children run in their own network namespace.
func (s *Sandbox) Isolated() bool { return s.mode == NetNS }

// Describe says in a few words how children are isolated.
func (s *Sandbox) Describe() string {
	switch {
	case s.mode == Off:
		return "no network namespace (--sandbox off): connections are only recorded and refused by hooks inside node"
	case s.userns:
		return "a network namespace of its own, made through a user namespace"
	default:
		return "a network namespace of its own"
	}
}

// Dir is the folder holding the node scripts.
func (s *Sandbox) Dir() string { return s.dir }

// Hooks is the path of the preload script (node --import).
func (s *Sandbox) Hooks() string { return filepath.Join(s.dir, "node", "hooks.mjs") }

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

// Spec is one child to run.
type Spec struct {
	Name string // the program; node when Hooks is set
	Args []string
	Dir  string
	Env  []string // nil: the parent's environment
	// Timeout kills the child's whole process group when it runs longer (0: no limit).
	Timeout time.Duration
	// Hooks preloads hooks.mjs (node only): the recording and refusal of network attempts.
	Hooks bool
	// Shims also serves OpenClaw's entry helpers (openclaw/plugin-sdk/plugin-entry and
	// …/tool-plugin) from the sandbox's faithful copies (needs Hooks).
	Shims bool
	// Releasable lets the child lift the hooks' refusal once it has loaded what it must load
	// with the network refused (globalThis[Symbol.for('plaios.sandbox')].allowNetwork()), for
	// long-lived children whose later work may use the network (plaios mcp serve). It lifts
	// the hooks only: a child in a network namespace stays without a network.
	Releasable bool
}

// Attempt is one recorded attempt to reach the network.
type Attempt struct {
	What   string `json:"what"`   // connect, tls, dns lookup, http, https, fetch, udp, websocket, spawn…
	Target string `json:"target"` // host:port, URL or command line
}

// String is the attempt as reasons word it: "fetch https://…".
func (a Attempt) String() string { return strings.TrimSpace(a.What + " " + a.Target) }

// Result is what a child did.
type Result struct {
	// Events are the JSON lines the child wrote to its events descriptor (fd 3), in order.
	Events []json.RawMessage
	// Attempts are the network attempts among the events.
	Attempts []Attempt
	Stdout   string // at most the last 64 KiB
	Stderr   string // at most the last 64 KiB
	ExitCode int    // -1 when killed
	TimedOut bool
	Canceled bool
	Duration time.Duration
}

const outputTail = 64 << 10

// Run starts the child, waits for it (killing its whole process group on timeout or when ctx
// ends) and returns what it did. An error means it could not be started at all.
func (s *Sandbox) Run(ctx context.Context, spec Spec) (*Result, error) {
	if s.dir == "" {
		return nil, errors.New("the sandbox is closed")
	}
	tmp, err := os.MkdirTemp(s.dir, "run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	events, err := os.OpenFile(filepath.Join(tmp, "events"), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer events.Close()
	stdout, err := os.Create(filepath.Join(tmp, "stdout"))
	if err != nil {
		return nil, err
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(tmp, "stderr"))
	if err != nil {
		return nil, err
	}
	defer stderr.Close()

	cmd, err := s.command(spec, tmp)
	if err != nil {
		return nil, err
	}
	name := cmd.Path
	cmd.Stdin = nil
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.ExtraFiles = []*os.File{events}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", filepath.Base(name), err)
	}
	pid := cmd.Process.Pid
	res := &Result{}
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
			killGroup(pid)
		case <-ctx.Done():
			res.Canceled = true
			killGroup(pid)
		}
	}()
	waitErr := cmd.Wait()
	close(done)
	<-killed
	killGroup(pid) // whatever the child left behind in its group goes with it
	res.Duration = time.Since(start)
	res.ExitCode = cmd.ProcessState.ExitCode()
	if waitErr != nil && res.ExitCode == 0 {
		res.ExitCode = -1
	}

	res.Stdout = tail(stdout)
	res.Stderr = tail(stderr)
	if _, err := events.Seek(0, io.SeekStart); err == nil {
		sc := bufio.NewScanner(events)
		sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 || !json.Valid(line) {
				continue
			}
			raw := json.RawMessage(append([]byte(nil), line...))
			res.Events = append(res.Events, raw)
			var ev struct {
				Type string `json:"type"`
				Attempt
			}
			if json.Unmarshal(raw, &ev) == nil && ev.Type == "network" {
				res.Attempts = append(res.Attempts, ev.Attempt)
			}
		}
	}
	return res, nil
}

// command prepares the child of spec: hooks preloaded with their configuration written to
// tmp, the events descriptor announced as fd 3, the namespace or process group set.
func (s *Sandbox) command(spec Spec, tmp string) (*exec.Cmd, error) {
	name := spec.Name
	args := spec.Args
	env := spec.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], "PLAIOS_SANDBOX_EVENTS_FD=3")
	if spec.Hooks {
		if name == "" {
			name = s.node
		}
		cfg, _ := json.Marshal(map[string]any{"shims": spec.Shims, "releasable": spec.Releasable})
		cfgPath := filepath.Join(tmp, "config.json")
		if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
			return nil, err
		}
		env = append(env, "PLAIOS_SANDBOX_CONFIG="+cfgPath)
		args = append([]string{"--import", fileURL(s.Hooks())}, args...)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = spec.Dir
	cmd.Env = env
	if s.mode == NetNS {
		attr, err := namespaceAttr(s.userns)
		if err != nil {
			return nil, err
		}
		cmd.SysProcAttr = attr
	} else {
		cmd.SysProcAttr = groupAttr()
	}
	return cmd, nil
}

// Command prepares a long-lived child that the caller starts, talks to and stops itself:
// the same program, hooks, environment and isolation as Run gives spec (Timeout aside). The
// caller must pass the events descriptor as the first of cmd.ExtraFiles (fd 3), may add
// more, sets the standard streams, and calls Kill when done; cleanup removes the child's
// configuration and may be called once it has started.
func (s *Sandbox) Command(spec Spec) (cmd *exec.Cmd, cleanup func(), err error) {
	if s.dir == "" {
		return nil, nil, errors.New("the sandbox is closed")
	}
	tmp, err := os.MkdirTemp(s.dir, "child-")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	cmd, err = s.command(spec, tmp)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return cmd, cleanup, nil
}

// Kill ends a child started from Command, with everything left in its process group.
func Kill(cmd *exec.Cmd) {
	if cmd != nil && cmd.Process != nil {
		killGroup(cmd.Process.Pid)
	}
}

func tail(f *os.File) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := int64(0)
	if st.Size() > outputTail {
		off = st.Size() - outputTail
	}
	buf := make([]byte, st.Size()-off)
	n, _ := f.ReadAt(buf, off)
	return string(buf[:n])
}

func fileURL(p string) string {
	return "file://" + filepath.ToSlash(p)
}
