package bridge

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/sandbox"
)

//go:embed node/serve.mjs
var nodeScripts embed.FS

const serveFile = ".plaios-bridge-serve.mjs"

// LoadError is a pack that did not load: the harness's reason, a network attempt while
// loading, a time-out. The commands exit 1 on it; other errors are the environment's.
type LoadError struct{ Reason string }

func (e *LoadError) Error() string { return e.Reason }

// Loader starts bridge children for one pack: node processes that load the pack with guard's
// harness, with the network refused, and then run its tools on request.
type Loader struct {
	Pack *Pack
	// Node is the node binary (default: node on PATH).
	Node string
	// Getenv reads this process's environment (nil: os.Getenv). The children get only what
	// the pack's declared secrets and configuration name, plus PATH, LANG and TZ (and a
	// private HOME from the sandbox): never the rest of the environment.
	Getenv func(string) string
	// Sandbox is how children are contained (default sandbox.Auto: namespaces, or an error
	// naming the layer the kernel refuses; sandbox.Off only with the user's consent).
	Sandbox sandbox.Mode
	// SecretEnv maps AgentOS secret ids to the environment variables holding them
	// (--secret id=ENV_VAR); the manifest's envVar mappings are added by NewLoader.
	SecretEnv map[string]string
	// Serve loads for running tools: real secrets and configuration from the environment, and
	// tools whose required secret or configuration is missing left out. Without it the pack
	// loads with guard's inert inputs, so that every tool is seen (plaios export).
	Serve bool
	// Offline keeps the network refused while tools run, in a network namespace when the
	// machine allows one.
	Offline bool
	// Timeout bounds loading (default 60s).
	Timeout time.Duration
	// Memory bounds each child's resident memory, all its processes together, while it loads
	// and while it runs tools (0: sandbox.DefaultMemory). MemoryFlag, when set, names the flag
	// that sets it ("mcp serve's --memory"), and a child ended by the limit says so.
	Memory     int64
	MemoryFlag string
	// Log, when set, receives what the children print on stderr (verbose).
	Log io.Writer
	// OnSecret is told the name of every environment variable a getSecret call read.
	OnSecret func(env string)
	// Notes are said by NewLoader: interfaces left out for missing configuration.
	Notes []string
	// Redact, when set, cleans what the children print before it reaches Log or a message.
	Redact func(string) string

	sb      *sandbox.Sandbox
	project string
	input   []byte
	checked bool   // the pack loaded once without the network (Serve, not Offline)
	piHost  string // piOnPath, found once
}

// NewLoader prepares the children's folder: guard's harness and the serve script, with a
// node_modules that links the pack under its name, so that node resolves it through its
// exports as an installed dependency.
func NewLoader(ctx context.Context, l *Loader) (*Loader, error) {
	if l.Timeout <= 0 {
		l.Timeout = 60 * time.Second
	}
	rt := l.Pack.Runtime()
	switch rt {
	case pack.AgentOS, pack.PLAIOS, pack.OpenClaw, pack.Pi:
	default:
		return nil, fmt.Errorf("%s is not a pack of a runtime plaios knows (no agent-os.package.yaml, no manifest.json declaring extensions and no dependency on @framers/agentos, no openclaw.plugin.json and no pi field in package.json)", l.Pack.Dir)
	}
	if l.Getenv == nil {
		l.Getenv = os.Getenv
	}
	sb, err := sandbox.New(ctx, sandbox.Config{Mode: l.Sandbox, Node: l.Node})
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) {
			return nil, fmt.Errorf("plaios cannot contain the pack's code: %w; enable user namespaces, or pass --sandbox off to run it uncontained", err)
		}
		return nil, err
	}
	l.sb = sb
	l.piHost = l.piOnPath()
	l.project = filepath.Join(sb.Dir(), "project")
	if err := l.writeProject(); err != nil {
		sb.Close()
		return nil, err
	}
	return l, nil
}

func (l *Loader) writeProject() error {
	link := filepath.Join(l.project, "node_modules", filepath.FromSlash(l.Pack.Name()))
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	target := l.Pack.Dir
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	if err := os.Symlink(target, link); err != nil {
		return err
	}
	serve, _ := nodeScripts.ReadFile("node/serve.mjs")
	files := map[string][]byte{
		guard.HarnessFile: sandbox.Harness(),
		serveFile:         serve,
		"package.json":    []byte(`{"name":"plaios-bridge","private":true,"type":"module"}` + "\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(l.project, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// bridgeInput is the harness input with what only the serve script reads.
type bridgeInput struct {
	*guard.HarnessInput
	AllowNetwork bool `json:"allowNetwork,omitempty"`
	// Bridge says the harness loads for mcp serve or export, not guard (its sentences differ).
	Bridge bool `json:"bridge"`
	// PiHost is the Pi a Pi pack loads with when none is installed beside it: the one whose
	// pi command is on PATH (piOnPath).
	PiHost string `json:"piHost,omitempty"`
}

func (l *Loader) harnessInput() ([]byte, error) {
	p := l.Pack
	link := filepath.Join(l.project, "node_modules", filepath.FromSlash(p.Name()))
	in, err := guard.InputFor(p.Pack, link, p.Fixture)
	if err != nil {
		return nil, err
	}
	if len(in.Files) == 0 && (p.Runtime() == pack.OpenClaw || p.Runtime() == pack.Pi) {
		where := "openclaw.extensions"
		if p.Runtime() == pack.Pi {
			where = "pi.extensions"
		}
		return nil, fmt.Errorf("package.json has no %s naming the built entry", where)
	}
	if l.Serve {
		in.Serve = true
		in.SecretEnv = l.secretEnv()
		if p.Runtime() == pack.AgentOS {
			in.Secrets = nil
			for k, v := range p.Fixture.Secrets {
				if in.Secrets == nil {
					in.Secrets = map[string]string{}
				}
				in.Secrets[k] = v
			}
		}
		if p.Runtime() == pack.PLAIOS {
			l.Notes = append(l.Notes, configureFromEnv(in, p, l.getenv)...)
		}
	}
	return json.Marshal(bridgeInput{HarnessInput: in, AllowNetwork: l.Serve && !l.Offline, Bridge: true, PiHost: l.piHost})
}

// piOnPath is the folder of the Pi whose pi command is on PATH, for a Pi pack that has none
// installed beside it (in a node_modules above its real folder), as a package Pi installed has
// not: `pi install` installs a package without its peers (npm --legacy-peer-deps, Pi 1.6.0's
// dist/core/package-manager.js) and lends it Pi's own core packages. "" when the pack has a Pi
// beside it, is no Pi pack, or no pi command leads to Pi's package.
func (l *Loader) piOnPath() string {
	if l.Pack.Runtime() != pack.Pi {
		return ""
	}
	dir := l.Pack.Dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for d := dir; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "node_modules", filepath.FromSlash(pack.PiCodingAgent), "package.json")); err == nil {
			return ""
		}
	}
	for _, bin := range filepath.SplitList(l.getenv("PATH")) {
		if bin == "" {
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Join(bin, "pi"))
		if err != nil {
			continue
		}
		for d := filepath.Dir(real); filepath.Dir(d) != d; d = filepath.Dir(d) {
			data, err := os.ReadFile(filepath.Join(d, "package.json"))
			if err != nil {
				continue
			}
			var pj struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(data, &pj) != nil || pj.Name == "" {
				continue // a folder's own package.json ({"type": "module"}), not a package's
			}
			if pj.Name == pack.PiCodingAgent {
				return d
			}
			break // the pi command belongs to another package
		}
	}
	return ""
}

func (l *Loader) getenv(k string) string {
	if l.Getenv == nil {
		return os.Getenv(k)
	}
	return l.Getenv(k)
}

// childEnv is the children's whole environment: the variables the pack's declared secrets
// and configuration name (those that are set), PATH with node's folder first, LANG and TZ.
func (l *Loader) childEnv() []string {
	path := l.getenv("PATH")
	if n := l.sb.Node(); n != "" {
		path = filepath.Dir(n) + string(os.PathListSeparator) + path
	}
	env := []string{"PATH=" + path}
	for _, k := range []string{"LANG", "TZ"} {
		if v := l.getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	if l.Serve && !l.Offline {
		// Tool calls have the network: they reach it through this machine's certificate
		// authorities and proxies (the files are shown to the child by mounts).
		netEnv, _ := sandbox.NetworkEnv(l.getenv)
		env = append(env, netEnv...)
	}
	if l.Serve {
		for _, k := range l.EnvNames() {
			if v := l.getenv(k); v != "" {
				env = append(env, k+"="+v)
			}
		}
	}
	return env
}

// mounts is what a child sees besides the system: its project (the harness, the serve script
// and the link to the pack), the pack's folder, and the node_modules above it that node
// resolves the pack's imports from, with the folders their links lead to (a workspace's
// other packages; for a package linked from a node_modules elsewhere, a shared store's or a
// host's installed outside the workspace, that whole node_modules, where its own
// dependencies are: guard.LinkedFolder, as guard shows a linked host). Nothing else of the
// host.
func (l *Loader) mounts() []sandbox.Mount {
	packDir := l.Pack.Dir
	if real, err := filepath.EvalSymlinks(packDir); err == nil {
		packDir = real
	}
	ms := []sandbox.Mount{{Path: l.project}, {Path: packDir}}
	if l.Serve && !l.Offline {
		_, netMounts := sandbox.NetworkEnv(l.getenv)
		ms = append(ms, netMounts...)
	}
	seen := map[string]bool{packDir: true}
	add := func(p string) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return
		}
		real = guard.LinkedFolder(real)
		if !seen[real] && !within(real, packDir) {
			seen[real] = true
			ms = append(ms, sandbox.Mount{Path: real})
		}
	}
	if l.piHost != "" {
		add(l.piHost) // with the node_modules it lies in, where its own dependencies are
	}
	for dir := packDir; ; dir = filepath.Dir(dir) {
		nm := filepath.Join(dir, "node_modules")
		if st, err := os.Stat(nm); err == nil && st.IsDir() {
			add(nm)
			for _, link := range linksIn(nm) {
				add(link)
			}
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return ms
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// linksIn lists the symbolic links directly in a node_modules folder and in its @scope
// folders (where npm and pnpm link a workspace's packages).
func linksIn(nm string) []string {
	var out []string
	entries, _ := os.ReadDir(nm)
	for _, e := range entries {
		p := filepath.Join(nm, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
			out = append(out, p)
		case e.IsDir() && strings.HasPrefix(e.Name(), "@"):
			scoped, _ := os.ReadDir(p)
			for _, se := range scoped {
				if se.Type()&os.ModeSymlink != 0 {
					out = append(out, filepath.Join(p, se.Name()))
				}
			}
		}
	}
	return out
}

// secretEnv maps every AgentOS secret id the manifest declares with an envVar, then the
// --secret ones over them.
func (l *Loader) secretEnv() map[string]string {
	m := map[string]string{}
	if a := l.Pack.Pack.AgentOS; a != nil {
		for _, s := range append(append([]pack.AgentOSSecret{}, a.RequiredSecrets...), a.OptionalSecrets...) {
			if s.ID != "" && s.EnvVar != "" {
				m[s.ID] = s.EnvVar
			}
		}
	}
	for id, env := range l.SecretEnv {
		m[id] = env
	}
	return m
}

// unsetSecrets lists the AgentOS secrets the manifest requires (not optional) whose
// variable (--secret's, the manifest's envVar, else the conventional name) is not set, each as
// "id (VAR)".
func (l *Loader) unsetSecrets() []string {
	a := l.Pack.Pack.AgentOS
	if a == nil {
		return nil
	}
	m := l.secretEnv()
	var out []string
	for _, s := range a.RequiredSecrets {
		if s.ID == "" || s.Optional {
			continue
		}
		env := m[s.ID]
		if env == "" {
			env = ConventionalEnv(s.ID)
		}
		if env != "" && l.getenv(env) == "" {
			out = append(out, fmt.Sprintf("%s (%s)", s.ID, env))
		}
	}
	return out
}

// SecretEnvNames lists the environment variables the pack's declared secrets are read from:
// the mapped ones, and the conventional names of the declared ids nothing maps.
func (l *Loader) SecretEnvNames() []string {
	m := l.secretEnv()
	var ids []string
	if a := l.Pack.Pack.AgentOS; a != nil {
		for _, s := range append(append([]pack.AgentOSSecret{}, a.RequiredSecrets...), a.OptionalSecrets...) {
			ids = append(ids, s.ID)
		}
		for _, c := range a.Config {
			if c.Secret {
				ids = append(ids, c.Key)
			}
		}
	}
	for id := range l.SecretEnv {
		ids = append(ids, id)
	}
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if id == "" {
			continue
		}
		env := m[id]
		if env == "" {
			env = ConventionalEnv(id)
		}
		if env != "" && !seen[env] {
			seen[env] = true
			out = append(out, env)
		}
	}
	if p := l.Pack.Pack.PLAIOS; p != nil {
		for _, in := range p.Ifaces {
			for _, f := range in.Fields {
				if pack.Scalar(f.Type) == "secret" {
					if env := pack.Scalar(f.Env); env != "" && !seen[env] {
						seen[env] = true
						out = append(out, env)
					}
				}
			}
		}
	}
	return out
}

// EnvNames lists every environment variable the pack's tools are configured from: the
// secrets' (SecretEnvNames) and every PLAIOS configuration field's env.
func (l *Loader) EnvNames() []string {
	out := l.SecretEnvNames()
	seen := map[string]bool{}
	for _, e := range out {
		seen[e] = true
	}
	if p := l.Pack.Pack.PLAIOS; p != nil {
		for _, in := range p.Ifaces {
			for _, f := range in.Fields {
				if env := pack.Scalar(f.Env); env != "" && !seen[env] {
					seen[env] = true
					out = append(out, env)
				}
			}
		}
	}
	return out
}

// ConventionalEnv is the environment variable an AgentOS secret id is read from when nothing
// maps it: "serper.apiKey" → SERPER_API_KEY (the harness applies the same rule).
func ConventionalEnv(id string) string {
	var b strings.Builder
	prevLowerOrDigit := false
	pendingSep := false
	for _, r := range id {
		isUpper := r >= 'A' && r <= 'Z'
		isLower := r >= 'a' && r <= 'z'
		isDigit := r >= '0' && r <= '9'
		if !isUpper && !isLower && !isDigit {
			pendingSep = b.Len() > 0
			prevLowerOrDigit = false
			continue
		}
		if pendingSep || (isUpper && prevLowerOrDigit) {
			b.WriteByte('_')
			pendingSep = false
		}
		if isLower {
			r -= 'a' - 'A'
		}
		b.WriteRune(r)
		prevLowerOrDigit = isLower || isDigit
	}
	return b.String()
}

// Close removes the children's folder. Children still running are the caller's to stop.
func (l *Loader) Close() {
	if l != nil && l.sb != nil {
		l.sb.Close()
	}
}

// Child is one running bridge child.
type Child struct {
	sc      *sandbox.Child
	req     *os.File
	out     *tailBuffer
	mu      sync.Mutex
	pending map[uint64]chan *Reply
	next    uint64
	dead    bool
	reason  string
	done    chan struct{}
	loaded  chan *guard.HarnessResult
	netMu   sync.Mutex
	tried   []sandbox.Attempt
	secret  func(string)
	waited  chan struct{} // closed once status is set: the child's processes have ended
	exited  chan struct{} // closed once the child's init has ended and its events are read
	status  sandbox.ExitStatus

	memoryFlag string // what sets its memory limit, for a person ("mcp serve's --memory"), or ""
}

// Reply is what a tool call gave back.
type Reply struct {
	OK      bool            `json:"ok"`
	Output  json.RawMessage `json:"output"`  // AgentOS output, PLAIOS data
	Content json.RawMessage `json:"content"` // OpenClaw and Pi: the tool's {content, details}
	Error   string          `json:"error"`
	Micros  int64           `json:"micros"` // the tool's own time in the child
}

// ErrChildExited is returned (wrapped) by Call when the child ended before it answered.
var ErrChildExited = errors.New("the tools' node process exited")

// Start starts a child and waits until the pack has loaded in it. The result lists the
// pack's tools; a pack that fails to load, or reaches for the network while loading, is a
// *LoadError. For plaios mcp serve without --offline the pack first loads in a child without
// the network, which decides (a pack that reaches for it does not start), and then in the
// child that serves, which gets the network once loaded.
func (l *Loader) Start(ctx context.Context) (*Child, *guard.HarnessResult, error) {
	if l.input == nil {
		in, err := l.harnessInput()
		if err != nil {
			return nil, nil, err
		}
		l.input = in
	}
	network := l.Serve && !l.Offline
	if network && !l.checked {
		c, _, err := l.start(ctx, false)
		if err != nil {
			return nil, nil, err
		}
		c.Close()
		l.checked = true
	}
	return l.start(ctx, network)
}

// start starts one child, with the network (once loaded) or without.
func (l *Loader) start(ctx context.Context, network bool) (*Child, *guard.HarnessResult, error) {
	input := l.input
	if !network {
		input = l.offlineInput()
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	sc, err := l.sb.Command(sandbox.Spec{
		Memory:     l.Memory,
		Hooks:      true,
		Args:       []string{serveFile},
		Dir:        l.project,
		Env:        l.childEnv(),
		Shims:      l.Pack.Runtime() == pack.OpenClaw,
		Releasable: network,
		Network:    network,
		Mounts:     l.mounts(),
		Files:      []*os.File{reqR},
	})
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, nil, err
	}
	c := &Child{sc: sc, req: reqW, out: &tailBuffer{max: 64 << 10, log: l.Log, redact: l.Redact}, pending: map[uint64]chan *Reply{},
		done: make(chan struct{}), waited: make(chan struct{}), exited: make(chan struct{}), loaded: make(chan *guard.HarnessResult, 1), secret: l.OnSecret,
		memoryFlag: l.MemoryFlag}
	sc.Cmd.Stdin = nil
	sc.Cmd.Stdout = c.out
	sc.Cmd.Stderr = c.out
	if err := sc.Start(); err != nil {
		sc.Close()
		reqR.Close()
		reqW.Close()
		return nil, nil, fmt.Errorf("start node: %w", err)
	}
	reqR.Close()
	go c.read(sc.Events)
	go func() {
		c.status = sc.Wait()
		close(c.waited)
		sc.EndEvents(c.done)
		sc.Close()
		close(c.exited)
	}()
	if _, err := reqW.Write(append(input, '\n')); err != nil {
		c.Kill()
		<-c.done
		return nil, nil, &LoadError{Reason: c.endReason("node exited before the pack loaded")}
	}
	timer := time.NewTimer(l.Timeout)
	defer timer.Stop()
	var res *guard.HarnessResult
	select {
	case res = <-c.loaded:
	case <-c.done:
		select {
		case res = <-c.loaded:
		default:
			return nil, nil, &LoadError{Reason: c.endReason("node exited before the pack loaded")}
		}
	case <-timer.C:
		c.Kill()
		return nil, nil, &LoadError{Reason: fmt.Sprintf("timed out after %s while loading the pack (a hanging import or constructor)", l.Timeout)}
	case <-ctx.Done():
		c.Kill()
		return nil, nil, ctx.Err()
	}
	if why := guard.AttemptReason(c.attempts(), l.Pack.Fixture.Loopback); why != "" {
		c.Kill()
		return nil, nil, &LoadError{Reason: why}
	}
	if !res.OK {
		c.Kill()
		reason := res.Reason
		if p := l.Pack.Pack; p.Runtime == pack.Pi && p.Pkg != nil && p.Pkg.JSON != nil {
			reason = pack.PiPeerHint(p.Pkg.JSON.Value, reason)
		}
		return nil, nil, &LoadError{Reason: reason}
	}
	return c, res, nil
}

// offlineInput is the harness input of a child without the network.
func (l *Loader) offlineInput() []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(l.input, &m) != nil {
		return l.input
	}
	delete(m, "allowNetwork")
	data, err := json.Marshal(m)
	if err != nil {
		return l.input
	}
	return data
}

// endReason says why a child ended while loading: a limit it passed, else what it printed
// last.
func (c *Child) endReason(prefix string) string {
	if limit, flag := c.limitPassed(5 * time.Second); limit != "" {
		if flag != "" {
			return limit + " while loading (" + flag + ")"
		}
		return limit + " while loading"
	}
	return prefix + ": " + lastLines(c.out.String())
}

// limitPassed waits up to wait for the child's exit status and says which of the sandbox's
// limits ended it ("used more than 2 GiB"), with, for memory, what sets that limit ("mcp
// serve's --memory sets the limit"); "" when none did or the status did not come.
func (c *Child) limitPassed(wait time.Duration) (limit, flag string) {
	if c.sc == nil {
		return "", ""
	}
	select {
	case <-c.waited:
	case <-time.After(wait):
		return "", ""
	}
	limit = c.sc.LimitReason(c.status)
	if c.status.Memory && c.memoryFlag != "" {
		flag = c.memoryFlag + " sets the limit"
	}
	return limit, flag
}

func (c *Child) attempts() []sandbox.Attempt {
	c.netMu.Lock()
	defer c.netMu.Unlock()
	return append([]sandbox.Attempt(nil), c.tried...)
}

type event struct {
	Type    string          `json:"type"`
	ID      uint64          `json:"id"`
	OK      bool            `json:"ok"`
	Output  json.RawMessage `json:"output"`
	Content json.RawMessage `json:"content"`
	Error   string          `json:"error"`
	Micros  int64           `json:"micros"`
	What    string          `json:"what"`
	Target  string          `json:"target"`
	Env     string          `json:"env"`
	Message string          `json:"message"`
}

// read turns the child's events into replies until the pipe closes, then fails every call
// still waiting. Replies, the result and secrets count only from the child's trusted writer
// (the serve script, through the sandbox's key); network attempts from anyone.
func (c *Child) read(r *os.File) {
	defer r.Close()
	crash := ""
	sandbox.ReadLines(r, 64<<20, func(line []byte) {
		pe, ok := c.sc.ParseEvent(line)
		if !ok {
			return
		}
		if pe.Attempt != nil {
			c.netMu.Lock()
			if len(c.tried) < 64 {
				c.tried = append(c.tried, *pe.Attempt)
			}
			c.netMu.Unlock()
			return
		}
		if !pe.Trusted {
			return
		}
		var ev event
		if json.Unmarshal(pe.Raw, &ev) != nil {
			return
		}
		switch ev.Type {
		case "reply":
			c.mu.Lock()
			ch := c.pending[ev.ID]
			delete(c.pending, ev.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- &Reply{OK: ev.OK, Output: ev.Output, Content: ev.Content, Error: ev.Error, Micros: ev.Micros}
			}
		case "result":
			var res guard.HarnessResult
			if json.Unmarshal(pe.Raw, &res) == nil {
				select {
				case c.loaded <- &res:
				default: // one result per child
				}
			}
		case "secret":
			if c.secret != nil && ev.Env != "" {
				c.secret(ev.Env)
			}
		case "crash":
			crash = ev.Message
		}
	})
	// The events end when the child's processes have; its status, which says whether one of
	// the sandbox's limits ended it, follows as soon as the init has reaped them.
	reason := "it printed nothing"
	if limit, flag := c.limitPassed(2 * time.Second); limit != "" {
		reason = limit
		if flag != "" {
			reason += "; " + flag
		}
	} else if crash != "" {
		reason = "uncaught " + crash
	} else if s := lastLines(c.out.String()); s != "" {
		reason = s
	}
	c.mu.Lock()
	c.dead = true
	c.reason = reason
	pending := c.pending
	c.pending = map[uint64]chan *Reply{}
	c.mu.Unlock()
	for _, ch := range pending {
		close(ch)
	}
	close(c.done)
}

// Alive reports whether the child still runs.
func (c *Child) Alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.dead
}

// Call runs a tool with args (JSON) and waits for its reply. When ctx ends first the child is
// told to abort the call's signal and ctx's error is returned.
func (c *Child) Call(ctx context.Context, name string, args json.RawMessage) (*Reply, error) {
	ch := make(chan *Reply, 1)
	c.mu.Lock()
	if c.dead {
		reason := c.reason
		c.mu.Unlock()
		return nil, fmt.Errorf("%w (%s)", ErrChildExited, reason)
	}
	c.next++
	id := c.next
	c.pending[id] = ch
	msg, err := json.Marshal(struct {
		Type string          `json:"type"`
		ID   uint64          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}{"call", id, name, args})
	if err == nil {
		_, err = c.req.Write(append(msg, '\n'))
	}
	c.mu.Unlock()
	if err != nil {
		c.forget(id)
		return nil, fmt.Errorf("%w (the call could not be sent: %v)", ErrChildExited, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			c.mu.Lock()
			reason := c.reason
			c.mu.Unlock()
			return nil, fmt.Errorf("%w while the tool ran (%s)", ErrChildExited, reason)
		}
		return r, nil
	case <-ctx.Done():
		c.forget(id)
		c.mu.Lock()
		if !c.dead {
			_, _ = fmt.Fprintf(c.req, `{"type":"cancel","id":%d}`+"\n", id)
		}
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

func (c *Child) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Kill stops the child and everything it started.
func (c *Child) Kill() {
	c.sc.Kill()
	c.mu.Lock()
	_ = c.req.Close()
	c.mu.Unlock()
}

// Close ends the child: its request pipe closes, so it exits; it is killed when it has not
// after a moment.
func (c *Child) Close() {
	c.mu.Lock()
	_ = c.req.Close()
	c.mu.Unlock()
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
	}
	c.sc.Kill()
	<-c.done
}

// Done is closed when the child has exited.
func (c *Child) Done() <-chan struct{} { return c.done }

// tailBuffer keeps the last max bytes written, and copies them to log when set.
type tailBuffer struct {
	mu     sync.Mutex
	buf    []byte
	max    int
	log    io.Writer
	redact func(string) string
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	if t.log != nil {
		if t.redact != nil {
			_, _ = io.WriteString(t.log, t.redact(string(p)))
		} else {
			_, _ = t.log.Write(p)
		}
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.redact != nil {
		return t.redact(string(t.buf))
	}
	return string(t.buf)
}

// lastLines is the end of what a child printed, without stack frames, on one line.
func lastLines(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "at ") && !strings.HasPrefix(l, "^") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 2 {
		lines = lines[len(lines)-2:]
	}
	return strings.Join(lines, " ")
}
