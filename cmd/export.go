package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/bridge"
	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/pack"
)

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
			if _, err := bridge.ParseSecrets(opts.Secrets); err != nil {
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

// exportRun runs the export and renders what it did. ctx is the command's context, never nil
// (cobra gives every command one).
func exportRun(ctx context.Context, opts *ExportOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A bad --secret is refused before anything is read, naming the id only.
	if _, err := bridge.ParseSecrets(opts.Secrets); err != nil {
		return err
	}
	t, err := packTarget(opts.Dir, opts.Config, opts.Path, opts.Runtime)
	if err != nil {
		return err
	}
	switch opts.Target {
	case "openclaw":
		res, err := bridge.OpenClawExport{Target: t, Check: opts.Check, DryRun: opts.DryRun}.Run(ctx)
		if err != nil {
			return err
		}
		return renderOpenClawExport(opts, res)
	case "pi":
		res, err := bridge.PiExport{Target: t, Check: opts.Check, DryRun: opts.DryRun}.Run(ctx)
		if res != nil && !opts.IO.Quiet {
			for _, n := range res.Notes {
				fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", n)
			}
		}
		if err != nil {
			return err
		}
		return renderPiExport(opts, res)
	}
	res, err := bridge.HermesExport{
		Target: t, Secrets: opts.Secrets, ServerName: opts.ServerName, Command: opts.Command, Args: opts.Args, ArgsGiven: opts.ArgsGiven,
		IncludeTags: opts.IncludeTags, ExcludeTags: opts.ExcludeTags, Timeout: int(opts.Timeout), ConnectTimeout: int(opts.ConnectTimeout),
		Parallel: opts.Parallel, Executable: opts.Executable, Merge: opts.Merge, DryRun: opts.DryRun,
	}.Run(ctx)
	if err != nil {
		return err
	}
	return renderHermesExport(opts, res)
}

func writeJSON(opts *ExportOptions, v any) error {
	enc := json.NewEncoder(opts.IO.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// renderHermesExport prints the fragment, or says what the merge did.
func renderHermesExport(opts *ExportOptions, res *bridge.HermesExportResult) error {
	s := res.Server
	if opts.Merge == "" {
		if opts.JSON {
			servers, err := s.Servers()
			if err != nil {
				return err
			}
			return writeJSON(opts, map[string]any{"schemaVersion": 1, "mcp_servers": servers})
		}
		_, err := opts.IO.Out.Write(res.Fragment)
		return err
	}
	if opts.JSON {
		return writeJSON(opts, map[string]any{"schemaVersion": 1, "file": res.File, "server": s.Name, "replaced": res.Replaced, "written": res.Written, "tools": s.Include})
	}
	if opts.DryRun {
		_, err := opts.IO.Out.Write(res.Merged)
		return err
	}
	if !res.Written {
		fmt.Fprintf(opts.IO.Out, "%s already holds server %s with %s\n", opts.Merge, s.Name, countTools(len(s.Include)))
		return nil
	}
	verb := "added"
	if res.Replaced {
		verb = "replaced"
	}
	fmt.Fprintf(opts.IO.Out, "%s server %s in %s (%s: %s); run /reload-mcp in Hermes\n", verb, s.Name, opts.Merge, countTools(len(s.Include)), strings.Join(s.Include, ", "))
	return nil
}

func countTools(n int) string {
	if n == 1 {
		return "1 tool"
	}
	return fmt.Sprintf("%d tools", n)
}

// renderOpenClawExport shows the drift (--check), the manifest (--dry-run) or what was
// written; --check fails (exit 1) on drift.
func renderOpenClawExport(opts *ExportOptions, m *bridge.OpenClawExportResult) error {
	switch {
	case opts.Check:
		if opts.JSON {
			if err := writeJSON(opts, map[string]any{"schemaVersion": 1, "file": m.Rel, "upToDate": !m.Drift, "tools": nonNil(m.Tools), "diff": diffOrEmpty(m.Drift, m.Diff)}); err != nil {
				return err
			}
		} else if m.Drift {
			fmt.Fprint(opts.IO.Out, m.Diff())
		} else {
			fmt.Fprintf(opts.IO.Out, "%s is up to date (%s)\n", m.Rel, countTools(len(m.Tools)))
		}
		if m.Drift {
			return exit.Failf("%s is out of date with the built entry; run plaios export openclaw", m.Rel)
		}
		return nil
	case opts.JSON:
		return writeJSON(opts, map[string]any{"schemaVersion": 1, "file": m.Rel, "changed": m.Changed, "written": m.Written, "tools": nonNil(m.Tools), "manifest": json.RawMessage(m.New)})
	case opts.DryRun:
		_, err := opts.IO.Out.Write(m.New)
		return err
	case m.Written:
		fmt.Fprintf(opts.IO.Out, "wrote %s (%s: %s)\n", m.Rel, countTools(len(m.Tools)), strings.Join(m.Tools, ", "))
	default:
		fmt.Fprintf(opts.IO.Out, "%s is up to date (%s)\n", m.Rel, countTools(len(m.Tools)))
	}
	return nil
}

// renderPiExport shows the difference (--check), the new package.json (--dry-run) or what
// changed; --check fails (exit 1) when a field is missing.
func renderPiExport(opts *ExportOptions, r *bridge.PiExportResult) error {
	switch {
	case opts.Check:
		if opts.JSON {
			if err := writeJSON(opts, map[string]any{"schemaVersion": 1, "file": r.Rel, "upToDate": !r.Changed(), "changes": nonNil(r.Changes), "diff": diffOrEmpty(r.Changed(), r.Diff)}); err != nil {
				return err
			}
		} else if r.Changed() {
			fmt.Fprint(opts.IO.Out, r.Diff())
		} else {
			fmt.Fprintf(opts.IO.Out, "%s has what a Pi package needs\n", r.Rel)
		}
		if r.Changed() {
			return exit.Failf("%s lacks what a Pi package needs; run plaios export pi", r.Rel)
		}
		return nil
	case opts.JSON:
		return writeJSON(opts, map[string]any{"schemaVersion": 1, "file": r.Rel, "changed": r.Changed(), "written": r.Written, "changes": nonNil(r.Changes), "entry": r.Entry})
	case opts.DryRun:
		_, err := opts.IO.Out.Write(r.New)
		return err
	case !r.Changed():
		fmt.Fprintf(opts.IO.Out, "%s has what a Pi package needs\n", r.Rel)
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "updated %s:\n", r.Rel)
	for _, c := range r.Changes {
		fmt.Fprintf(opts.IO.Out, "  %s\n", c)
	}
	return nil
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
