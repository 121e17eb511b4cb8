package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/plaios/plaios/internal/bridge"
	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/pack"
)

// exportLoadTimeout bounds loading a pack for an export.
const exportLoadTimeout = 60 * time.Second

// ExportOptions holds the inputs of `plaios export hermes|openclaw|pi` and what they need
// from the outside.
type ExportOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	Dir        func() (string, error)
	Getenv     func(string) string
	Executable func() (string, error)
	JSON       bool

	Target  string // hermes, openclaw or pi
	Path    string
	DryRun  bool
	Check   bool   // openclaw, pi
	Runtime string // --runtime: the runtime of the pack in PATH

	// hermes
	Merge          string
	ServerName     string
	Command        string
	Args           []string
	ArgsGiven      bool
	IncludeTags    []string
	ExcludeTags    []string
	Timeout        seconds
	ConnectTimeout seconds
	Parallel       bool
	Secrets        []string
}

// seconds is a flag holding whole seconds, given as a number (120) or a duration (2m).
type seconds int

func (s *seconds) String() string { return strconv.Itoa(int(*s)) }
func (s *seconds) Type() string   { return "seconds" }
func (s *seconds) Set(v string) error {
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		*s = seconds(n)
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second || d%time.Second != 0 {
		return fmt.Errorf("give whole seconds, such as 120 or 2m")
	}
	*s = seconds(d / time.Second)
	return nil
}

var exportTargets = []string{"hermes", "openclaw", "pi"}

// NewCmdExport builds `plaios export` and its three targets.
func NewCmdExport(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "export <hermes|openclaw|pi> [PATH]",
		Short: "Write what Hermes, OpenClaw or Pi needs to use a pack's tools",
		Long: `One pack, every runtime: export writes what another runtime reads to use the tools of the
built pack in PATH (default .). hermes prints (or merges) an mcp_servers fragment that runs
plaios mcp serve; openclaw writes openclaw.plugin.json; pi writes the package.json fields of a
Pi package.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exit.Usagef("give what to export: one of %s", strings.Join(exportTargets, ", "))
			}
			return exit.Usagef("unknown export %q; use one of %s", args[0], strings.Join(exportTargets, ", "))
		},
	}
	c.AddCommand(NewCmdExportHermes(f, nil), NewCmdExportOpenClaw(f, nil), NewCmdExportPi(f, nil))
	return c
}

func newExportOptions(f *Factory, target string) *ExportOptions {
	return &ExportOptions{IO: f.IO, Config: f.Config, Dir: f.Dir, Getenv: f.Getenv, Executable: f.Executable, Target: target}
}

func exportArgs(f *Factory, opts *ExportOptions, runF func(*ExportOptions) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		opts.Path = "."
		if len(args) == 1 {
			opts.Path = args[0]
		}
		opts.JSON = f.JSON
		r, err := parseRuntimeFlag(opts.Runtime)
		if err != nil {
			return err
		}
		if opts.Target != "hermes" && r != pack.None && string(r) != opts.Target {
			return exit.Usagef("export %s reads %s; --runtime %s does not apply (give --runtime %s, or leave it out)", opts.Target, targetRuntimeName(opts.Target), r, opts.Target)
		}
		if runF != nil {
			return runF(opts)
		}
		return exportRun(c.Context(), opts)
	}
}

// targetRuntimeName is how a sentence names the package an export target reads.
func targetRuntimeName(target string) string {
	if target == "pi" {
		return "a Pi extension"
	}
	return "an OpenClaw plugin"
}

// NewCmdExportHermes builds `plaios export hermes`.
func NewCmdExportHermes(f *Factory, runF func(*ExportOptions) error) *cobra.Command {
	opts := newExportOptions(f, "hermes")
	c := &cobra.Command{
		Use:   "hermes [PATH]",
		Short: "Print or merge the Hermes mcp_servers entry that serves a pack's tools",
		Long: `Prints the mcp_servers fragment of Hermes's ~/.hermes/config.yaml for the built pack in
PATH, or merges it into a config file with --merge (adding the server, or replacing the entry
of the same name, and leaving every other line of the file as it was, comments included).

The server runs plaios mcp serve <absolute package path> (or --command and --args). Its
tools.include is an explicit snapshot of the pack's tool names, so that a tool added to the
pack later is not granted to Hermes silently: export again and review. Secrets appear as
${VAR} references in env, never as values.

The pack's runtime comes from its content, as for validate; --runtime (or the configuration's
runtime) forces one.`,
		Example: `  plaios export hermes packages/weather
  plaios export hermes --merge ~/.hermes/config.yaml --timeout 120 --parallel
  plaios export hermes --include-tag hermes --server-name weather
  plaios export hermes --secret serper.apiKey=SERPER_KEY`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			opts.ArgsGiven = c.Flags().Changed("args")
			if _, err := parseSecrets(opts.Secrets); err != nil {
				return err
			}
			if c.Flags().Changed("server-name") && strings.TrimSpace(opts.ServerName) == "" {
				return exit.Usagef("--server-name is empty; give the name Hermes should know the server by")
			}
			if opts.DryRun && opts.Merge == "" {
				return exit.Usagef("--dry-run goes with --merge: without it nothing is written anyway")
			}
			return exportArgs(f, opts, runF)(c, args)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Merge, "merge", "", "add or replace the server in this Hermes config `FILE` instead of printing it")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "with --merge: print the merged file, write nothing")
	fl.StringVar(&opts.ServerName, "server-name", "", "the server's `NAME` in mcp_servers (default: the package name without its scope)")
	fl.StringVar(&opts.Command, "command", "", "the `PROGRAM` Hermes starts (default: this plaios, absolute)")
	fl.StringArrayVar(&opts.Args, "args", nil, "an `ARG` of the command, repeatable (default: mcp serve <absolute package path>)")
	fl.StringArrayVar(&opts.IncludeTags, "include-tag", nil, "include only tools with this `TAG` (repeatable)")
	fl.StringArrayVar(&opts.ExcludeTags, "exclude-tag", nil, "leave out tools with this `TAG` (repeatable)")
	fl.Var(&opts.Timeout, "timeout", "Hermes's call timeout, in `seconds` (120 or 2m; Hermes's default: 300)")
	fl.Var(&opts.ConnectTimeout, "connect-timeout", "Hermes's connection timeout, in `seconds` (Hermes's default: 60)")
	fl.BoolVar(&opts.Parallel, "parallel", false, "let Hermes call the tools in parallel (supports_parallel_tool_calls)")
	fl.StringArrayVar(&opts.Secrets, "secret", nil, "pass `ID=ENV_VAR` to mcp serve and reference ${ENV_VAR} in env (repeatable)")
	addRuntimeFlag(c, &opts.Runtime, "load the pack")
	return c
}

// NewCmdExportOpenClaw builds `plaios export openclaw`.
func NewCmdExportOpenClaw(f *Factory, runF func(*ExportOptions) error) *cobra.Command {
	opts := newExportOptions(f, "openclaw")
	c := &cobra.Command{
		Use:   "openclaw [PATH]",
		Short: "Write openclaw.plugin.json from what the built entry registers",
		Long: `Writes openclaw.plugin.json for the OpenClaw plugin in PATH as openclaw plugins build does:
id, name, description, configSchema and activation from the built entry (the first of
openclaw.extensions in package.json), version from package.json, contracts.tools from the
tools it registers. Keys already in the file keep their place; contracts and toolMetadata go
last. --check writes nothing and exits 1 when the file differs, showing the difference.`,
		Example: `  plaios export openclaw packages/weather
  plaios export openclaw --check
  plaios export openclaw --dry-run`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Check && opts.DryRun {
				return exit.Usagef("--check and --dry-run do not go together: --check never writes")
			}
			return exportArgs(f, opts, runF)(c, args)
		},
	}
	c.Flags().BoolVar(&opts.Check, "check", false, "exit 1 when openclaw.plugin.json is out of date, showing the difference; write nothing")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the manifest, write nothing")
	c.Flags().StringVar(&opts.Runtime, "runtime", "", "the pack's `runtime`: only openclaw applies here (the plugin is always read as OpenClaw)")
	_ = c.RegisterFlagCompletionFunc("runtime", cobra.FixedCompletions([]string{"openclaw"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// NewCmdExportPi builds `plaios export pi`.
func NewCmdExportPi(f *Factory, runF func(*ExportOptions) error) *cobra.Command {
	opts := newExportOptions(f, "pi")
	c := &cobra.Command{
		Use:   "pi [PATH]",
		Short: "Write the package.json fields a Pi package needs",
		Long: `Writes what Pi reads in the package.json of the extension in PATH: the pi field naming the
extension entry (pi.extensions, else the package's main entry), the Pi core packages as peer
dependencies with range "*", and the pi-package keyword. Only those bytes change: the rest of
package.json keeps its layout. The entry is loaded first, to prove it registers tools.
--check writes nothing and exits 1 when a field is missing, showing the difference.`,
		Example: `  plaios export pi packages/weather
  plaios export pi --check`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Check && opts.DryRun {
				return exit.Usagef("--check and --dry-run do not go together: --check never writes")
			}
			return exportArgs(f, opts, runF)(c, args)
		},
	}
	c.Flags().BoolVar(&opts.Check, "check", false, "exit 1 when package.json lacks what Pi needs, showing the difference; write nothing")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the new package.json, write nothing")
	c.Flags().StringVar(&opts.Runtime, "runtime", "", "the pack's `runtime`: only pi applies here (the extension is always read as Pi)")
	_ = c.RegisterFlagCompletionFunc("runtime", cobra.FixedCompletions([]string{"pi"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// exportRun writes the export. ctx is the command's context, never nil (cobra gives every command one).
func exportRun(ctx context.Context, opts *ExportOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch opts.Target {
	case "openclaw":
		return exportOpenClaw(ctx, opts)
	case "pi":
		return exportPi(ctx, opts)
	}
	return exportHermes(ctx, opts)
}

// loadForExport loads the pack once with guard's inert inputs, so that every tool shows.
func loadForExport(ctx context.Context, p *bridge.Pack, secrets map[string]string) (*bridge.Loader, *bridge.Loaded, error) {
	l, err := bridge.NewLoader(ctx, &bridge.Loader{Pack: p, SecretEnv: secrets, Timeout: exportLoadTimeout})
	if err != nil {
		return nil, nil, loaderError(err)
	}
	res, err := bridge.Load(ctx, l)
	l.Close()
	if err != nil {
		return nil, nil, loaderError(err)
	}
	return l, res, nil
}

func writeJSON(opts *ExportOptions, v any) error {
	enc := json.NewEncoder(opts.IO.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func exportHermes(ctx context.Context, opts *ExportOptions) error {
	secrets, err := parseSecrets(opts.Secrets)
	if err != nil {
		return err
	}
	force, err := forcedRuntime(opts.Runtime, opts.Config)
	if err != nil {
		return err
	}
	p, err := openRuntimePack(opts.Dir, opts.Path, force)
	if err != nil {
		return err
	}
	l, res, err := loadForExport(ctx, p, secrets)
	if err != nil {
		return err
	}
	if err := bridge.CheckNames(res.Tools); err != nil {
		return exit.FailErr(err)
	}
	tools := bridge.FilterTags(res.Tools, opts.IncludeTags, opts.ExcludeTags)
	if len(tools) == 0 {
		if len(opts.IncludeTags)+len(opts.ExcludeTags) > 0 {
			return exit.Failf("no tool of %s is left by the tag filters; check --include-tag and --exclude-tag", p.Name())
		}
		return exit.Failf("%s exposes no tool to serve", p.Name())
	}
	name := opts.ServerName
	if name == "" {
		name = bridge.DefaultServerName(p.Name())
	}
	var include []string
	for _, t := range tools {
		include = append(include, t.Name)
	}
	if err := bridge.CheckHermesNames(name, include); err != nil {
		return exit.FailErr(err)
	}
	server := bridge.HermesServer{Name: name, Env: l.EnvNames(), Timeout: int(opts.Timeout), ConnectTimeout: int(opts.ConnectTimeout), Parallel: opts.Parallel, Include: include}
	server.Command = opts.Command
	if server.Command == "" {
		exe, err := opts.Executable()
		if err != nil {
			return exit.Envf("cannot find the plaios executable (%v); give --command", err)
		}
		server.Command = exe
	}
	if opts.ArgsGiven {
		server.Args = opts.Args
	} else if opts.Command == "" {
		server.Args = []string{"mcp", "serve", p.Dir}
		for _, s := range opts.Secrets {
			server.Args = append(server.Args, "--secret", s)
		}
	}
	if opts.Merge == "" {
		frag, err := server.Fragment()
		if err != nil {
			return err
		}
		if opts.JSON {
			var v any
			if err := yaml.Unmarshal(frag, &v); err != nil {
				return err
			}
			m := v.(map[string]any)
			return writeJSON(opts, map[string]any{"schemaVersion": 1, "mcp_servers": m["mcp_servers"]})
		}
		_, err = opts.IO.Out.Write(frag)
		return err
	}
	file := opts.Merge
	if !filepath.IsAbs(file) {
		wd, err := opts.Dir()
		if err != nil {
			return err
		}
		file = filepath.Join(wd, file)
	}
	old, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return exit.Failf("cannot read %s: %v", opts.Merge, err)
	}
	merged, replaced, err := server.Merge(old)
	if err != nil {
		return exit.Failf("cannot merge into %s: %v", opts.Merge, err)
	}
	written := false
	if opts.DryRun {
		if !opts.JSON {
			_, err = opts.IO.Out.Write(merged)
			return err
		}
	} else if string(merged) != string(old) || old == nil {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return exit.Failf("cannot write %s: %v", opts.Merge, err)
		}
		if err := bridge.WriteFileAtomic(file, merged); err != nil {
			return exit.Failf("cannot write %s: %v", opts.Merge, err)
		}
		written = true
	}
	if opts.JSON {
		return writeJSON(opts, map[string]any{"schemaVersion": 1, "file": file, "server": name, "replaced": replaced, "written": written, "tools": include})
	}
	verb := "added"
	if replaced {
		verb = "replaced"
	}
	if !written {
		fmt.Fprintf(opts.IO.Out, "%s already holds server %s with %s\n", opts.Merge, name, countTools(len(include)))
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "%s server %s in %s (%s: %s); run /reload-mcp in Hermes\n", verb, name, opts.Merge, countTools(len(include)), strings.Join(include, ", "))
	return nil
}

func countTools(n int) string {
	if n == 1 {
		return "1 tool"
	}
	return fmt.Sprintf("%d tools", n)
}

func exportOpenClaw(ctx context.Context, opts *ExportOptions) error {
	p, err := openPack(opts.Dir, opts.Path, pack.OpenClaw)
	if err != nil {
		return err
	}
	entry := bridge.EntryFile(p, "openclaw")
	if entry == "" {
		return exit.Usagef("%s is not an OpenClaw plugin: its package.json has no openclaw.extensions naming the built entry (such as [\"./dist/index.js\"])", opts.Path)
	}
	if err := refuseUnbuilt(p, opts.Path); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(p.Dir, filepath.FromSlash(entry))); err != nil {
		return exit.Failf("the built entry %s does not exist; build the plugin first", entry)
	}
	_, res, err := loadForExport(ctx, p, nil)
	if err != nil {
		return err
	}
	if err := bridge.CheckNames(res.Tools); err != nil {
		return exit.FailErr(err)
	}
	m, err := bridge.OpenClawManifest(p, res)
	if err != nil {
		return exit.FailErr(err)
	}
	rel := relTo(opts, m.File)
	switch {
	case opts.Check:
		if opts.JSON {
			if err := writeJSON(opts, map[string]any{"schemaVersion": 1, "file": rel, "upToDate": !m.Drift, "tools": nonNil(m.Tools), "diff": diffOrEmpty(m.Drift, m.Diff)}); err != nil {
				return err
			}
		} else if m.Drift {
			fmt.Fprint(opts.IO.Out, m.Diff())
		} else {
			fmt.Fprintf(opts.IO.Out, "%s is up to date (%s)\n", rel, countTools(len(m.Tools)))
		}
		if m.Drift {
			return exit.Failf("%s is out of date with the built entry; run plaios export openclaw", rel)
		}
		return nil
	case opts.DryRun:
		if opts.JSON {
			return writeJSON(opts, map[string]any{"schemaVersion": 1, "file": rel, "changed": string(m.New) != string(m.Old), "written": false, "tools": nonNil(m.Tools), "manifest": json.RawMessage(m.New)})
		}
		_, err := opts.IO.Out.Write(m.New)
		return err
	}
	changed := string(m.New) != string(m.Old)
	if changed {
		if err := bridge.WriteFileAtomic(m.File, m.New); err != nil {
			return exit.Failf("cannot write %s: %v", rel, err)
		}
	}
	if opts.JSON {
		return writeJSON(opts, map[string]any{"schemaVersion": 1, "file": rel, "changed": changed, "written": changed, "tools": nonNil(m.Tools), "manifest": json.RawMessage(m.New)})
	}
	if changed {
		fmt.Fprintf(opts.IO.Out, "wrote %s (%s: %s)\n", rel, countTools(len(m.Tools)), strings.Join(m.Tools, ", "))
	} else {
		fmt.Fprintf(opts.IO.Out, "%s is up to date (%s)\n", rel, countTools(len(m.Tools)))
	}
	return nil
}

func exportPi(ctx context.Context, opts *ExportOptions) error {
	p, err := openPack(opts.Dir, opts.Path, pack.Pi)
	if err != nil {
		return err
	}
	entry := bridge.PiEntry(p)
	if entry == "" {
		return exit.Usagef("cannot tell the extension entry of %s: give package.json a pi.extensions, exports or main naming the built entry", opts.Path)
	}
	if err := refuseUnbuilt(p, opts.Path); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(p.Dir, filepath.FromSlash(entry))); err != nil {
		return exit.Failf("the built entry %s does not exist; build the extension first", entry)
	}
	r, err := bridge.PiPackage(p, entry)
	if err != nil {
		return exit.FailErr(err)
	}
	// Prove the entry is a Pi extension: load it as one, with the pi field as it will be.
	if err := loadPiEntry(ctx, p, r); err != nil {
		return err
	}
	rel := relTo(opts, r.File)
	if !opts.Quiet() {
		for _, n := range r.Notes {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", n)
		}
	}
	switch {
	case opts.Check:
		diff := unifiedText(rel, string(r.Old), string(r.New))
		if opts.JSON {
			if err := writeJSON(opts, map[string]any{"schemaVersion": 1, "file": rel, "upToDate": !r.Changed(), "changes": nonNil(r.Changes), "diff": diffOrEmpty(r.Changed(), func() string { return diff })}); err != nil {
				return err
			}
		} else if r.Changed() {
			fmt.Fprint(opts.IO.Out, diff)
		} else {
			fmt.Fprintf(opts.IO.Out, "%s has what a Pi package needs\n", rel)
		}
		if r.Changed() {
			return exit.Failf("%s lacks what a Pi package needs; run plaios export pi", rel)
		}
		return nil
	case opts.DryRun:
		if opts.JSON {
			return writeJSON(opts, map[string]any{"schemaVersion": 1, "file": rel, "changed": r.Changed(), "written": false, "changes": nonNil(r.Changes), "entry": r.Entry})
		}
		_, err := opts.IO.Out.Write(r.New)
		return err
	}
	if r.Changed() {
		if err := bridge.WriteFileAtomic(r.File, r.New); err != nil {
			return exit.Failf("cannot write %s: %v", rel, err)
		}
	}
	if opts.JSON {
		return writeJSON(opts, map[string]any{"schemaVersion": 1, "file": rel, "changed": r.Changed(), "written": r.Changed(), "changes": nonNil(r.Changes), "entry": r.Entry})
	}
	if !r.Changed() {
		fmt.Fprintf(opts.IO.Out, "%s has what a Pi package needs\n", rel)
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "updated %s:\n", rel)
	for _, c := range r.Changes {
		fmt.Fprintf(opts.IO.Out, "  %s\n", c)
	}
	return nil
}

// loadPiEntry loads the extension entry as Pi would, reading the edited package.json.
func loadPiEntry(ctx context.Context, p *bridge.Pack, r *bridge.PiResult) error {
	pkgJSON := p.Pack.Pkg.JSON
	if r.Changed() {
		edited, err := bridge.ReadPackageJSONBytes(r.New)
		if err != nil {
			return exit.FailErr(err)
		}
		saved := pkgJSON.Value
		pkgJSON.Value = edited
		defer func() { pkgJSON.Value = saved }()
	}
	_, res, err := loadForExport(ctx, p, nil)
	if err != nil {
		return err
	}
	return exit.FailErr(bridge.CheckNames(res.Tools))
}

func (o *ExportOptions) Quiet() bool { return o.IO.Quiet }

func relTo(opts *ExportOptions, file string) string {
	wd, err := opts.Dir()
	if err != nil {
		return file
	}
	if rel, err := filepath.Rel(wd, file); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return file
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func diffOrEmpty(drift bool, diff func() string) string {
	if !drift {
		return ""
	}
	return diff()
}

func unifiedText(name, a, b string) string {
	return bridge.UnifiedDiff(name+" (on disk)", name+" (as export pi writes it)", a, b)
}
