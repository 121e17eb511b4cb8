package cmd

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/check"
	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/report"
)

// ValidateOptions are the inputs of `plaios validate`.
type ValidateOptions struct {
	IO      *IOStreams
	Factory *Factory

	Paths   []string
	Format  string
	Strict  bool
	Rules   []string
	Runtime string
	Explain string
}

// NewCmdValidate builds `plaios validate`.
func NewCmdValidate(f *Factory, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{IO: f.IO, Factory: f}
	c := &cobra.Command{
		Use:   "validate [PATH...]",
		Short: "Check packs statically: manifests, package.json, shipped files, schemas",
		Long: `Check packs statically, without node: every rule of plaios's catalogue (see --explain ID),
with the file, line and column of each finding and a hint when there is a fix to suggest.

PATH is a package folder or a repository root (then every workspace package:
pnpm-workspace.yaml globs, package.json workspaces, or scripts/package-roles.json).

Each package's runtime comes from its content: agent-os.package.yaml (plaios), a manifest.json
declaring extensions or any dependency on @framers/agentos (agentos), openclaw.plugin.json
(openclaw), a pi field in package.json (pi); never from its scope or folder alone. --runtime
(or the configuration's runtime) forces one for every package named.`,
		Example: `  plaios validate
  plaios validate packages/weather --strict
  plaios validate --format sarif > plaios.sarif
  plaios validate --rule readme-missing=off --rule agentos-name=error
  plaios validate --explain entry-not-shipped`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if f.JSON && !c.Flags().Changed("format") {
				opts.Format = "json"
			}
			if runF != nil {
				return runF(opts)
			}
			return validateRun(opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Format, "format", "text", "output `format`: text, json, sarif or github")
	fl.BoolVar(&opts.Strict, "strict", false, "fail on warnings too")
	fl.StringArrayVar(&opts.Rules, "rule", nil, "set a rule's severity, `ID=off|warning|error` (repeatable)")
	fl.StringVar(&opts.Explain, "explain", "", "print the help of rule `ID` and exit")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(report.Formats, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("explain", cobra.FixedCompletions(check.RuleIDs(), cobra.ShellCompDirectiveNoFileComp))
	addRuntimeFlag(c, &opts.Runtime, "check every package")
	return c
}

func validateRun(opts *ValidateOptions) error {
	if opts.Explain != "" {
		return explainRule(opts.IO, opts.Explain)
	}
	if err := oneOf("format", opts.Format, report.Formats...); err != nil {
		return err
	}
	if _, err := parseRuntimeFlag(opts.Runtime); err != nil {
		return err
	}
	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	force, err := forcedRuntime(opts.Runtime, func() (*config.Config, error) { return cfg, nil })
	if err != nil {
		return err
	}
	sev, err := severities(cfg.Rules, opts.Rules)
	if err != nil {
		return err
	}
	if cfg.PackManager != "" && cfg.PackManager != "npm" && cfg.PackManager != "pnpm" {
		return exit.Usagef("packManager %q is not valid; use npm or pnpm", cfg.PackManager)
	}
	wd, err := opts.Factory.Dir()
	if err != nil {
		return err
	}
	jobs := cfg.Jobs
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	res, err := check.Validate(opts.Paths, check.ValidateOptions{
		Options: check.Options{Severity: sev, Jobs: jobs, PackManager: cfg.PackManager},
		Runtime: force,
		WorkDir: wd,
	})
	if err != nil {
		return exit.UsageErr(err)
	}
	if err := renderValidate(opts, wd, res); err != nil {
		return err
	}
	failed := res.Summary.Errors > 0 || (opts.Strict && res.Summary.Warnings > 0)
	if failed {
		return &exit.Silent{Code: exit.Fail}
	}
	return nil
}

func renderValidate(opts *ValidateOptions, wd string, res *check.Result) error {
	out := opts.IO.Out
	switch opts.Format {
	case "json":
		var pkgs []report.Package
		for _, t := range res.Targets {
			pkgs = append(pkgs, report.Package{Dir: check.DirOf(wd, t), Name: t.Pack.Name(), Version: t.Pack.Version(), Runtime: runtimeName(t.Pack.Runtime)})
		}
		if err := report.JSON(out, pkgs, res.Diagnostics, res.Summary); err != nil {
			return err
		}
	case "sarif":
		if err := report.SARIF(out, res.Diagnostics, check.Rules(), version(), "https://github.com/plaios/plaios"); err != nil {
			return err
		}
	case "github":
		if err := report.GitHub(out, res.Diagnostics); err != nil {
			return err
		}
		fmt.Fprintln(opts.IO.ErrOut, report.SummaryLine(res.Summary))
		return nil
	default:
		if err := report.Text(out, res.Diagnostics, res.Summary, opts.IO.ColorOut()); err != nil {
			return err
		}
	}
	if opts.Factory.Getenv("GITHUB_ACTIONS") == "true" {
		// Annotations go to stderr so that stdout keeps only the chosen format.
		_ = report.GitHub(opts.IO.ErrOut, res.Diagnostics)
	}
	return nil
}

func runtimeName(r pack.Runtime) string {
	if r == pack.None {
		return "npm"
	}
	return string(r)
}

// severities merges the configuration's `rules:` with --rule flags (flags win).
func severities(fromConfig map[string]string, flags []string) (map[string]check.Severity, error) {
	out := map[string]check.Severity{}
	set := func(id, value, source string) error {
		if check.Lookup(id) == nil {
			return exit.Usagef("%s names rule %q, which does not exist; see 'plaios validate --explain ID' for one of: %s", source, id, strings.Join(check.RuleIDs(), ", "))
		}
		s, ok := check.ParseSeverity(value)
		if !ok {
			return exit.Usagef("%s sets %s to %q; use off, warning or error", source, id, value)
		}
		out[id] = s
		return nil
	}
	for id, v := range fromConfig {
		if err := set(id, v, "the configuration's rules"); err != nil {
			return nil, err
		}
	}
	for _, r := range flags {
		id, v, ok := strings.Cut(r, "=")
		if !ok {
			return nil, exit.Usagef("--rule %q must be ID=off|warning|error", r)
		}
		if err := set(strings.TrimSpace(id), v, "--rule"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func explainRule(io *IOStreams, id string) error {
	r := check.Lookup(id)
	if r == nil {
		return exit.Usagef("there is no rule %q; the rules are: %s", id, strings.Join(check.RuleIDs(), ", "))
	}
	applies := "every package"
	if r.Runtime != pack.None {
		applies = string(r.Runtime) + " packages"
	}
	by := "plaios validate"
	if r.Guard {
		by = "plaios guard"
	}
	fmt.Fprintf(io.Out, "%s (%s, default severity %s; %s; checked by %s)\n\n%s\n", r.ID, r.Family, r.Severity, applies, by, wrap(r.Help, 92))
	return nil
}

// wrap folds text at width columns.
func wrap(s string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(s) {
		if col > 0 && col+1+len(w) > width {
			b.WriteByte('\n')
			col = 0
		} else if col > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}
