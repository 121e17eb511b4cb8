package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/npm/exports"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/sandbox"
	"github.com/plaios/plaios/internal/workspace"
)

// harnessFile is the name the harness is copied under in every guard project.
const harnessFile = ".plaios-guard-harness.mjs"

// The contracts the harness checks.
const (
	checkAgentOS  = "agentos-pack"
	checkLibrary  = "library"
	checkRoot     = "root"
	checkPLAIOS   = "plaios"
	checkOpenClaw = "openclaw"
	checkPi       = "pi"
	checkImport   = "import"
)

// harnessInput is what the harness reads (node/harness.mjs documents the same shape).
type harnessInput struct {
	Check          string            `json:"check"`
	Name           string            `json:"name"`
	Specifier      string            `json:"specifier,omitempty"`
	Secrets        map[string]string `json:"secrets,omitempty"`
	Options        map[string]any    `json:"options,omitempty"`
	LibraryExports []string          `json:"libraryExports,omitempty"`
	Catalog        json.RawMessage   `json:"catalog,omitempty"`
	PLAIOS         []plaiosIface     `json:"plaios,omitempty"`
	Files          []string          `json:"files,omitempty"`
	PackageDir     string            `json:"packageDir,omitempty"` // the installed package (OpenClaw's api.rootDir)
	// Serve and SecretEnv are for the bridges' long-lived loads (internal/bridge): descriptors
	// whose non-optional secrets are missing are left out, and getSecret reads the environment
	// variable SecretEnv maps an id to (else the id's conventional name).
	Serve     bool              `json:"serve,omitempty"`
	SecretEnv map[string]string `json:"secretEnv,omitempty"`
}

type plaiosIface struct {
	ID           string            `json:"id"`
	Kind         string            `json:"kind"`
	ClassName    string            `json:"className"`
	Specifier    string            `json:"specifier"`
	Options      map[string]any    `json:"options"`
	EnvValues    map[string]string `json:"envValues"`
	Dependencies []plaiosDep       `json:"dependencies"`
	Skip         bool              `json:"skip,omitempty"` // not constructed (the bridges: a required config value is missing)
}

type plaiosDep struct {
	Kind string   `json:"kind"`
	Keys []string `json:"keys"`
}

// harnessResult is the harness's final event.
type harnessResult struct {
	Type        string `json:"type"`
	OK          bool   `json:"ok"`
	Reason      string `json:"reason"`
	Descriptors []struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"descriptors"`
	Tools      []harnessTool `json:"tools"`
	Registered []string      `json:"registered"`
	// For the bridges: an OpenClaw entry's defineToolPlugin metadata or, without it, its
	// plugin entry fields; the tools registered as optional; AgentOS tools left out for a
	// missing secret.
	ToolPlugin  json.RawMessage `json:"toolPlugin,omitempty"`
	PluginEntry json.RawMessage `json:"pluginEntry,omitempty"`
	Optional    []string        `json:"optional,omitempty"`
	Skipped     []struct {
		Tool    string   `json:"tool"`
		Secrets []string `json:"secrets"`
		Env     []string `json:"env"`
	} `json:"skipped,omitempty"`
}

type harnessTool struct {
	Source       string          `json:"source"`
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	Tags         []string        `json:"tags,omitempty"`
	ReadOnly     *bool           `json:"readOnly,omitempty"`
}

// checkFor decides which contract a candidate is held to: its role first (library, root),
// then its runtime.
func checkFor(r *Result) string {
	switch r.Role {
	case workspace.RoleLibrary:
		return checkLibrary
	case workspace.RoleRoot:
		return checkRoot
	}
	return runtimeCheck(r.Runtime)
}

// runtimeCheck is the contract of a runtime's packs.
func runtimeCheck(rt pack.Runtime) string {
	switch rt {
	case pack.AgentOS:
		return checkAgentOS
	case pack.PLAIOS:
		return checkPLAIOS
	case pack.OpenClaw:
		return checkOpenClaw
	case pack.Pi:
		return checkPi
	}
	return checkImport
}

// loadAll imports every installed candidate in its own sandboxed child, --jobs at a time.
func (g *run) loadAll(ctx context.Context, results []*Result, installed map[*Result]string) error {
	var todo []*Result
	for _, r := range results {
		if r.OK && installed[r] != "" {
			todo = append(todo, r)
		}
	}
	if err := os.MkdirAll(filepath.Join(g.tmp, "inputs"), 0o755); err != nil {
		return err
	}
	total := len(todo)
	done := 0
	g.progress(Progress{Stage: "load", Done: 0, Total: total})
	g.parallel(total, func(i int) {
		if ctx.Err() != nil {
			return
		}
		r := todo[i]
		g.load(ctx, r, installed[r], i)
		g.applySeverity(r)
		g.mu.Lock()
		done++
		d := done
		g.mu.Unlock()
		g.progress(Progress{Stage: "load", Done: d, Total: total, Note: r.Name})
	})
	return ctx.Err()
}

func (g *run) load(ctx context.Context, r *Result, project string, i int) {
	r.Check = checkFor(r)
	in, err := g.harnessInput(r, project)
	if err != nil {
		r.fail("%v", err)
		return
	}
	data, err := json.Marshal(in)
	if err != nil {
		r.fail("cannot prepare the check: %v", err)
		return
	}
	inputPath := filepath.Join(g.tmp, "inputs", fmt.Sprintf("%d.json", i))
	if err := os.WriteFile(inputPath, data, 0o644); err != nil {
		r.fail("cannot prepare the check: %v", err)
		return
	}
	res, err := g.sb.Run(ctx, sandbox.Spec{
		Name:    g.opts.Node,
		Hooks:   true,
		Args:    []string{harnessFile, inputPath},
		Dir:     project,
		Env:     childEnv(g.opts.Getenv, g.opts.Node),
		Timeout: g.opts.Timeout,
		Shims:   r.Check == checkOpenClaw,
		// The project read-only, the workspace for the host runtimes linked from it, the input.
		Mounts: append([]sandbox.Mount{{Path: project}, {Path: g.ws.Root}, {Path: inputPath}}, g.hostMountList()...),
		Memory: g.opts.Memory,
	})
	if err != nil {
		r.fail("cannot start node: %v", err)
		return
	}
	r.Duration = res.Duration
	r.Attempts = res.Attempts
	if res.Canceled {
		r.fail("interrupted")
		return
	}
	var result *harnessResult
	results := 0
	stage := ""
	for _, ev := range res.Events {
		var head struct {
			Type  string `json:"type"`
			Stage string `json:"stage"`
		}
		if json.Unmarshal(ev, &head) != nil {
			continue
		}
		switch head.Type {
		case "stage":
			stage = head.Stage
		case "result":
			// Only the harness can write these (the sandbox keeps events without its key), and
			// it writes one: anything else is not a result.
			results++
			var hr harnessResult
			if json.Unmarshal(ev, &hr) == nil && hr.Type == "result" && results == 1 {
				result = &hr
			}
		}
	}
	if results > 1 {
		r.fail("the check reported %d results instead of one; the package interfered with it", results)
		return
	}
	if res.LimitReason() != "" {
		r.fail("%s", limitReason(res, describeStage(stage, r.Check)))
		return
	}
	if why := AttemptReason(res.Attempts, g.fixture(r.Dir).Loopback); why != "" {
		r.fail("%s", why)
	}
	switch {
	case res.TimedOut:
		r.fail("timed out after %s while %s (a hanging import or constructor; raise --timeout if it is only slow)", g.opts.Timeout, describeStage(stage, r.Check))
		return
	case result == nil:
		r.fail("node exited with code %d before the check finished: %s", res.ExitCode, lastLines(res.Stderr, 2))
		return
	case !result.OK:
		r.fail("%s", peerHint(r, hostHint(result.Reason)))
		return
	}
	if !r.OK {
		return
	}
	for _, d := range result.Descriptors {
		r.Descriptors = append(r.Descriptors, Descriptor{ID: d.ID, Kind: d.Kind})
	}
	installedDir := filepath.Join(project, "node_modules", filepath.FromSlash(r.Name))
	var entries []string
	for _, f := range in.Files {
		if rel, err := filepath.Rel(installedDir, f); err == nil {
			entries = append(entries, filepath.ToSlash(rel))
		}
	}
	if len(entries) == 0 && r.packed != nil && r.packed.pkg != nil && r.packed.tb != nil {
		if target, _, err := exports.Entry(r.packed.pkg, r.packed.tb.Has, importConditions); err == nil {
			entries = append(entries, strings.TrimPrefix(target, "./"))
		}
	}
	g.contract(r, result, installedDir, entries)
}

// hostHint explains a failed import of a host package, which guard never installs.
func hostHint(reason string) string {
	for _, h := range HostPackages {
		if strings.Contains(reason, "Cannot find package '"+h+"'") || strings.Contains(reason, "Cannot find module '"+h+"'") {
			return reason + fmt.Sprintf(" (guard never installs the host runtime %s: install it in the workspace, as a devDependency of the package, and guard loads it from there)", h)
		}
	}
	return reason
}

// peerHint explains a Pi package's failed import of a package it lists only as a peer: Pi
// installs no peer (projectManifest), so the package must depend on it.
func peerHint(r *Result, reason string) string {
	if r.Runtime != pack.Pi || r.packed == nil {
		return reason
	}
	return pack.PiPeerHint(r.packed.pkg, reason)
}

func describeStage(stage, check string) string {
	switch {
	case stage == "factory":
		return "calling createExtensionPack"
	case strings.HasPrefix(stage, "construct "):
		return "constructing " + strings.TrimPrefix(stage, "construct ")
	case stage == "register":
		return "registering its tools"
	case stage == "session_start":
		return "starting Pi's session (its session_start handlers)"
	}
	return "importing it"
}

func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "at ") {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 {
		return "it printed nothing"
	}
	return strings.Join(lines, " ")
}

// childEnv is the environment a loaded package sees: enough to run node, nothing else (the
// sandbox adds a private HOME and TMPDIR). The user's secrets and tokens stay out, so the
// pack constructs with the inert inputs only.
func childEnv(getenv func(string) string, node string) []string {
	path := getenv("PATH")
	if node != "" {
		path = filepath.Dir(node) + string(os.PathListSeparator) + path
	}
	env := []string{"NODE_ENV=production", "TZ=UTC", "PATH=" + path}
	for _, k := range []string{"LANG", "LC_ALL", "SYSTEMROOT"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// harnessInput prepares the inert inputs of one candidate's check.
func (g *run) harnessInput(r *Result, project string) (*harnessInput, error) {
	fixture := g.fixture(r.Dir)
	var exports []string
	if g.ws.Roles != nil {
		exports = g.ws.Roles.LibraryExports[r.Dir]
	}
	p := r.packed
	installedDir := filepath.Join(project, "node_modules", filepath.FromSlash(r.Name))
	return buildInput(r.Check, r.Name, installedDir, p.pkg, p.agentos, p.plaios, p.catalog, fixture, exports)
}

// fixture is the inert input of the package in dir: the role map's fixtures.<dir>, with the
// configuration's fixtures.<dir> laid over it (workspace.FixtureOf).
func (g *run) fixture(dir string) workspace.Fixture {
	return workspace.FixtureOf(g.ws, dir, g.opts.Fixtures)
}

// buildInput is the harness input of a package installed at installedDir under its name.
func buildInput(check, name, installedDir string, pkg *jsonpos.Value, agentos *pack.AgentOSModel, plaios *pack.PLAIOSModel, catalog []byte, fixture workspace.Fixture, libraryExports []string) (*harnessInput, error) {
	in := &harnessInput{Check: check, Name: name, Specifier: name}
	switch check {
	case checkAgentOS:
		in.Secrets = map[string]string{}
		if agentos != nil {
			for _, s := range agentos.RequiredSecrets {
				if s.ID != "" && !s.Optional {
					in.Secrets[s.ID] = "placeholder-" + s.ID
				}
			}
		}
		for k, v := range fixture.Secrets {
			in.Secrets[k] = v
		}
		in.Options = fixture.Options
	case checkLibrary:
		in.LibraryExports = libraryExports
	case checkRoot:
		if len(catalog) > 0 && json.Valid(catalog) {
			in.Catalog = catalog
		}
	case checkPLAIOS:
		if plaios == nil {
			return nil, fmt.Errorf("the packed agent-os.package.yaml cannot be read")
		}
		in.PLAIOS = plaiosInputs(name, plaios, fixture.Options)
	case checkOpenClaw:
		in.PackageDir = installedDir
		// Every entry, each through the file an installed openclaw loads for it
		// (openclaw.runtimeExtensions, or the built candidate of a TypeScript source).
		has := func(rel string) bool {
			st, err := os.Stat(filepath.Join(installedDir, filepath.FromSlash(rel)))
			return err == nil && !st.IsDir()
		}
		entries, _, _ := openClawEntries(pkg, has)
		for _, e := range entries {
			if e.Runtime != "" {
				in.Files = append(in.Files, filepath.Join(installedDir, filepath.FromSlash(e.Runtime)))
			}
		}
	case checkPi:
		for _, e := range pack.PiPackageExtensions(os.DirFS(installedDir), pkg) {
			if e.File != "" {
				in.Files = append(in.Files, filepath.Join(installedDir, filepath.FromSlash(e.File)))
			}
		}
	}
	return in, nil
}

// plaiosInputs builds the options the host would give each interface, inertly: config
// defaults, a placeholder for a required value without one, the fixture's options over them,
// and the declared dependencies as inert stand-ins.
func plaiosInputs(name string, m *pack.PLAIOSModel, fixture map[string]any) []plaiosIface {
	kinds := map[string]string{}
	for _, in := range m.Ifaces {
		kinds[pack.Scalar(in.ID)] = pack.Scalar(in.Kind)
	}
	var out []plaiosIface
	for _, in := range m.Ifaces {
		spec := name
		if e := in.EntryPath(); e != "." && e != "" {
			spec = name + "/" + strings.TrimPrefix(e, "./")
		}
		it := plaiosIface{
			ID:        pack.Scalar(in.ID),
			Kind:      pack.Scalar(in.Kind),
			ClassName: pack.Scalar(in.ClassName),
			Specifier: spec,
			Options:   map[string]any{},
			EnvValues: map[string]string{},
		}
		for _, f := range in.Fields {
			key := pack.Scalar(f.Key)
			if key == "" {
				continue
			}
			var value any
			if f.Default != nil {
				_ = f.Default.Decode(&value)
			} else if isTrue(f.Required) {
				switch pack.Scalar(f.Type) {
				case "number":
					value = 0
				case "boolean":
					value = false
				default:
					value = "placeholder-" + key
				}
			}
			if v, ok := fixture[key]; ok {
				value = v
			}
			if value == nil {
				continue
			}
			it.Options[key] = value
			if env := pack.Scalar(f.Env); env != "" {
				it.EnvValues[env] = fmt.Sprint(value)
			}
		}
		for k, v := range fixture {
			if _, ok := it.Options[k]; !ok {
				it.Options[k] = v
			}
		}
		for _, item := range append(pack.ScalarStrings(in.Required), pack.ScalarStrings(in.Optional)...) {
			kind := item
			if !pack.IsPLAIOSKind(item) {
				kind = kinds[item]
			}
			keys := []string{item}
			if kind != "" && kind != item {
				keys = append(keys, kind)
			}
			if kind == "discovery" {
				keys = append(keys, "capabilityDiscovery")
			}
			it.Dependencies = append(it.Dependencies, plaiosDep{Kind: kind, Keys: keys})
		}
		out = append(out, it)
	}
	return out
}

func isTrue(n *yaml.Node) bool {
	var b bool
	return n != nil && n.Decode(&b) == nil && b
}

// hostMountList is a copy of the folders showHost found.
func (g *run) hostMountList() []sandbox.Mount {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]sandbox.Mount(nil), g.hostMounts...)
}

// AttemptReason is why a pack that tried the network or a unix socket while it loaded fails
// there (guard's load, and mcp serve's and export's), "" when nothing it tried counts: with
// loopback (its fixture's `loopback: true`) an attempt to reach the loopback does not. A
// loopback attempt that counts names the fixture key that would allow it.
func AttemptReason(attempts []sandbox.Attempt, loopback bool) string {
	for _, a := range attempts {
		switch {
		case a.Loopback() && loopback:
			continue
		case a.What == "unix socket":
			return "opened a unix socket while loading or constructing: " + a.String()
		case a.Loopback():
			return "reached for the network while loading or constructing: " + a.String() + "; a pack whose work is finding a server on the user's own machine may try the loopback: give its folder `loopback: true` in fixtures"
		default:
			return "reached for the network while loading or constructing: " + a.String()
		}
	}
	return ""
}
