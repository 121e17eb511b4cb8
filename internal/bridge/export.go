package bridge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/pack"
)

// This file holds the three actions of `plaios export`, as helm's pkg/action holds its
// actions: each opens the pack the command names, loads it once with guard's inert inputs,
// builds what the other runtime reads (hermes.go, openclaw.go, pi.go) and writes it, leaving
// the rendering to the command. Their errors carry the command's exit code.

// HermesExport is `plaios export hermes`: the Hermes mcp_servers entry that runs
// `plaios mcp serve` on the pack, printed or merged into a Hermes config file.
type HermesExport struct {
	Target
	// Secrets are the --secret ID=ENV_VAR flags: read when loading, passed on to mcp serve
	// and named in the entry's env.
	Secrets []string
	// ServerName is the server's name in mcp_servers ("": DefaultServerName of the pack).
	ServerName string
	// Command is the program Hermes starts ("": Executable, with mcp serve <pack> as args).
	Command string
	// Args, when ArgsGiven, are the command's arguments as given.
	Args      []string
	ArgsGiven bool
	// IncludeTags and ExcludeTags filter the pack's tools by tag (FilterTags).
	IncludeTags, ExcludeTags []string
	// Timeout, ConnectTimeout and Parallel go into the entry as they are (0, false: left out).
	Timeout, ConnectTimeout int
	Parallel                bool
	// Executable is the path of the running plaios, the default command.
	Executable func() (string, error)
	// Merge is the Hermes config file to merge the entry into, relative to WorkDir ("":
	// print the fragment). With DryRun the merged file is returned, not written.
	Merge  string
	DryRun bool
}

// HermesExportResult is what HermesExport made.
type HermesExportResult struct {
	Server   HermesServer
	Fragment []byte // the mcp_servers fragment (without Merge)
	File     string // the merged file, absolute (with Merge)
	Merged   []byte // the merged file's content (with Merge)
	Replaced bool   // the file held a server of that name before
	Written  bool   // the merged file was written (it changed, or did not exist)
}

// Run builds the entry and, with Merge, merges it.
func (e HermesExport) Run(ctx context.Context) (*HermesExportResult, error) {
	secrets, err := ParseSecrets(e.Secrets)
	if err != nil {
		return nil, err
	}
	p, err := e.OpenRuntime()
	if err != nil {
		return nil, err
	}
	l, res, err := loadInert(ctx, p, secrets)
	if err != nil {
		return nil, err
	}
	server, err := e.server(p, l, res)
	if err != nil {
		return nil, err
	}
	out := &HermesExportResult{Server: server}
	if e.Merge == "" {
		out.Fragment, err = server.Fragment()
		return out, err
	}
	return out, e.merge(out)
}

// NoTool says that a loaded pack exposes no tool, and, for an OpenClaw plugin that registers
// tool factories making none without configuration (every official channel plugin), which.
func NoTool(name string, res *guard.HarnessResult) string {
	msg := name + " exposes no tool to serve"
	if res != nil && len(res.Registered) > 0 {
		msg += fmt.Sprintf(": the tools it registers (%s) are made only once it is configured, and an OpenClaw plugin gets no configuration here", strings.Join(res.Registered, ", "))
	}
	return msg
}

// server is the mcp_servers entry for the loaded pack: its tools after the tag filters, the
// names Hermes will register them under checked, the command that serves them.
func (e HermesExport) server(p *Pack, l *Loader, res *Loaded) (HermesServer, error) {
	tools := FilterTags(res.Tools, e.IncludeTags, e.ExcludeTags)
	if len(tools) == 0 {
		if len(e.IncludeTags)+len(e.ExcludeTags) > 0 {
			return HermesServer{}, exit.Failf("no tool of %s is left by the tag filters; check --include-tag and --exclude-tag", p.Name())
		}
		return HermesServer{}, exit.Failf("%s", NoTool(p.Name(), res.Result))
	}
	name := e.ServerName
	if name == "" {
		name = DefaultServerName(p.Name())
	}
	var include []string
	for _, t := range tools {
		include = append(include, t.Name)
	}
	if err := CheckHermesNames(name, include); err != nil {
		return HermesServer{}, exit.FailErr(err)
	}
	s := HermesServer{Name: name, Command: e.Command, Env: l.EnvNames(), Timeout: e.Timeout, ConnectTimeout: e.ConnectTimeout, Parallel: e.Parallel, Include: include}
	if s.Command == "" {
		exe, err := e.Executable()
		if err != nil {
			return HermesServer{}, exit.Envf("cannot find the plaios executable (%v); give --command", err)
		}
		s.Command = exe
	}
	if e.ArgsGiven {
		s.Args = e.Args
	} else if e.Command == "" {
		s.Args = []string{"mcp", "serve", p.Dir}
		for _, sec := range e.Secrets {
			s.Args = append(s.Args, "--secret", sec)
		}
	}
	return s, nil
}

// merge merges the entry into the Merge file and writes it when it changed (or did not
// exist), unless DryRun.
func (e HermesExport) merge(out *HermesExportResult) error {
	out.File = e.Merge
	if !filepath.IsAbs(out.File) {
		out.File = filepath.Join(e.WorkDir, out.File)
	}
	old, err := os.ReadFile(out.File)
	if err != nil && !os.IsNotExist(err) {
		return exit.Failf("cannot read %s: %v", e.Merge, err)
	}
	out.Merged, out.Replaced, err = out.Server.Merge(old)
	if err != nil {
		return exit.Failf("cannot merge into %s: %v", e.Merge, err)
	}
	if e.DryRun || (string(out.Merged) == string(old) && old != nil) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(out.File), 0o755); err != nil {
		return exit.Failf("cannot write %s: %v", e.Merge, err)
	}
	if err := WriteFileAtomic(out.File, out.Merged); err != nil {
		return exit.Failf("cannot write %s: %v", e.Merge, err)
	}
	out.Written = true
	return nil
}

// OpenClawExport is `plaios export openclaw`: openclaw.plugin.json from what the built entry
// registers, written unless Check or DryRun.
type OpenClawExport struct {
	Target
	Check  bool // compare only: Drift says whether the file is out of date
	DryRun bool // build only
}

// OpenClawExportResult is what OpenClawExport made.
type OpenClawExportResult struct {
	*OpenClawResult
	Rel     string // the manifest's path for the reader (relative to WorkDir when inside it)
	Changed bool   // the new manifest differs from the file's bytes
	Written bool
}

// Run loads the plugin's built entry and builds (and writes) its manifest.
func (e OpenClawExport) Run(ctx context.Context) (*OpenClawExportResult, error) {
	noEntry := e.Path + ` is not an OpenClaw plugin: its package.json has no openclaw.extensions naming the built entry (such as ["./dist/index.js"])`
	p, _, err := e.openBuiltEntry(pack.OpenClaw, OpenClawEntry, noEntry, "plugin")
	if err != nil {
		return nil, err
	}
	_, res, err := loadInert(ctx, p, nil)
	if err != nil {
		return nil, err
	}
	m, err := OpenClawManifest(p, res)
	if err != nil {
		return nil, exit.FailErr(err)
	}
	out := &OpenClawExportResult{OpenClawResult: m, Rel: e.rel(m.File), Changed: string(m.New) != string(m.Old)}
	if e.Check || e.DryRun || !out.Changed {
		return out, nil
	}
	if err := WriteFileAtomic(m.File, m.New); err != nil {
		return nil, exit.Failf("cannot write %s: %v", out.Rel, err)
	}
	out.Written = true
	return out, nil
}

// PiExport is `plaios export pi`: the package.json fields a Pi package needs, written in place
// unless Check or DryRun.
type PiExport struct {
	Target
	Check  bool // compare only: Changed says whether a field is missing
	DryRun bool // build only
}

// PiExportResult is what PiExport made.
type PiExportResult struct {
	*PiResult
	Rel     string // package.json's path for the reader
	Written bool
}

// Diff shows what export pi changes in package.json, as a unified diff.
func (r *PiExportResult) Diff() string {
	return UnifiedDiff(r.Rel+" (on disk)", r.Rel+" (as export pi writes it)", string(r.Old), string(r.New))
}

// Run edits package.json, proves the entry is a Pi extension by loading it as one (with the
// pi field as it will be), and writes the file. When only the write fails the result is
// returned with the error, so that its Notes can still be shown.
func (e PiExport) Run(ctx context.Context) (*PiExportResult, error) {
	noEntry := "cannot tell the extension entry of " + e.Path + ": give package.json a pi.extensions, exports or main naming the built entry"
	p, entry, err := e.openBuiltEntry(pack.Pi, PiEntry, noEntry, "extension")
	if err != nil {
		return nil, err
	}
	r, err := PiPackage(p, entry)
	if err != nil {
		return nil, exit.FailErr(err)
	}
	if err := loadPiEntry(ctx, p, r); err != nil {
		return nil, err
	}
	out := &PiExportResult{PiResult: r, Rel: e.rel(r.File)}
	if e.Check || e.DryRun || !r.Changed() {
		return out, nil
	}
	if err := WriteFileAtomic(r.File, r.New); err != nil {
		return out, exit.Failf("cannot write %s: %v", out.Rel, err)
	}
	out.Written = true
	return out, nil
}

// loadPiEntry loads the extension entry as Pi would, reading the edited package.json.
func loadPiEntry(ctx context.Context, p *Pack, r *PiResult) error {
	pkgJSON := p.Pack.Pkg.JSON
	if r.Changed() {
		edited, err := ReadPackageJSONBytes(r.New)
		if err != nil {
			return exit.FailErr(err)
		}
		saved := pkgJSON.Value
		pkgJSON.Value = edited
		defer func() { pkgJSON.Value = saved }()
	}
	_, _, err := loadInert(ctx, p, nil)
	return err
}
