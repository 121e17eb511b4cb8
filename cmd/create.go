package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/scaffold"
)

// CreateOptions holds the inputs of `plaios create` and what it needs to run.
type CreateOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	Dir    func() (string, error)
	JSON   bool

	Kinds       []string // from KIND[,KIND…] or --kind
	Name        string
	Runtime     string // --runtime; the configuration when empty
	Scope       string // --scope; the configuration when empty
	PackageDir  string // --dir
	Category    string
	Description string
	Template    string
	DryRun      bool
	Force       bool
	NoInstall   bool

	// Node is the node whose version decides whether the install can succeed (tests; empty:
	// node on PATH).
	Node string

	// Install runs the package manager (tests replace it).
	Install func(ctx context.Context, in scaffold.Install, w io.Writer, where string) error
}

// NewCmdCreate builds `plaios create`. runF, when not nil, receives the parsed options instead
// of running them (tests of flag parsing).
func NewCmdCreate(f *Factory, runF func(*CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{IO: f.IO, Config: f.Config, Dir: f.Dir}
	var kindFlag string
	cmd := &cobra.Command{
		Use:   "create [KIND[,KIND...]] NAME",
		Short: "Scaffold a new extension pack from the embedded templates",
		Long: `Scaffold a new extension pack from the templates embedded in plaios.

Kinds by runtime (the first named is the default, except for plaios, where it is action):
  plaios    input, output, action, agent, orchestrator, discovery, database, memory,
            system1, system2, env (several at once: one interface, class and page each)
  agentos   tool, multi-tool, guardrail
  openclaw  tool
  pi        tool

The runtime is --runtime, else the configuration key runtime, else detected from the
repository (a registry/curated folder means agentos), else plaios. The package goes to
--dir, else packages/NAME under the repository root (registry/curated/CATEGORY/NAME for
agentos; CATEGORY defaults to tools, or safety for a guardrail). The repository root is the
nearest folder upwards with pnpm-workspace.yaml, a package.json with workspaces, or
scripts/package-roles.json; else the working directory. In a repository with a role map the
new folder is added to it with role pack. Then the package manager installs (pnpm in a pnpm
workspace or with packManager: pnpm, else npm) unless --no-install.

Templates are Go text/templates; --template DIR overrides any of them with DIR/<runtime>/…
files of the same path (see templates/ in the plaios sources).`,
		Example: `  plaios create action weather
  plaios create --kind input,output telegram-clone
  plaios create --runtime agentos tool web-search --category research
  plaios create --runtime openclaw tool weather
  plaios create --runtime pi tool weather --dry-run`,
		Args: usageArgs(cobra.RangeArgs(1, 2)),
		RunE: func(c *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			opts.Name = args[len(args)-1]
			switch {
			case len(args) == 2 && c.Flags().Changed("kind"):
				return exit.Usagef("give the kind either as the first argument or with --kind, not both; see 'plaios create --help'")
			case len(args) == 2:
				opts.Kinds = strings.Split(args[0], ",")
			case kindFlag != "":
				opts.Kinds = strings.Split(kindFlag, ",")
			}
			if opts.Runtime != "" {
				if err := scaffold.CheckRuntime(opts.Runtime); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return createRun(c.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&kindFlag, "kind", "", "the `KIND[,KIND...]` to scaffold (instead of the first argument)")
	fl.StringVar(&opts.Runtime, "runtime", "", "the `RUNTIME`: plaios, agentos, openclaw or pi (default: configuration, else detected)")
	fl.StringVar(&opts.PackageDir, "dir", "", "the `DIR` the package goes to (default: the runtime's layout in the repository)")
	fl.StringVar(&opts.Category, "category", "", "the AgentOS registry `CATEGORY` (default tools; safety for a guardrail)")
	fl.StringVar(&opts.Scope, "scope", "", "the npm `SCOPE` of the package name (default: configuration, else @plaios for plaios)")
	fl.StringVar(&opts.Description, "description", "", "the package's one-line `TEXT` description")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print every file it would write, and write nothing")
	fl.BoolVar(&opts.Force, "force", false, "write into an existing, non-empty folder, replacing the files it writes")
	fl.StringVar(&opts.Template, "template", "", "a `DIR` laid out like the embedded templates whose files override them")
	fl.BoolVar(&opts.NoInstall, "no-install", false, "do not run the package manager's install")
	f.bindFlag("runtime", fl.Lookup("runtime"))
	f.bindFlag("scope", fl.Lookup("scope"))
	return cmd
}

// createJSON is the --json output.
type createJSON struct {
	SchemaVersion int      `json:"schemaVersion"`
	Runtime       string   `json:"runtime"`
	Name          string   `json:"name"`
	Dir           string   `json:"dir"`
	Files         []string `json:"files"`
}

// createRun scaffolds the package. ctx is the command's context, never nil (cobra gives every command one).
func createRun(ctx context.Context, opts *CreateOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	wd, err := opts.Dir()
	if err != nil {
		return err
	}
	runtime, err := createRuntime(opts.Runtime, cfg, wd)
	if err != nil {
		return err
	}
	scope := opts.Scope
	if scope == "" {
		scope = cfg.Scope
	}
	s, err := scaffold.Plan(scaffold.Options{
		Kinds:       opts.Kinds,
		Name:        opts.Name,
		Runtime:     runtime,
		Dir:         opts.PackageDir,
		WorkDir:     wd,
		Category:    opts.Category,
		Scope:       scope,
		Description: opts.Description,
		Template:    opts.Template,
		Force:       opts.Force,
	})
	if err != nil {
		return err
	}
	if opts.DryRun {
		return renderCreated(opts, wd, s)
	}
	if !opts.NoInstall {
		// Before anything is written: an install that cannot succeed on this Node is refused
		// now rather than after a minute of npm.
		if err := scaffold.CheckNode(ctx, s.Runtime, opts.Node); err != nil {
			return err
		}
	}
	if err := s.Write(); err != nil {
		return err
	}
	if err := renderCreated(opts, wd, s); err != nil {
		return err
	}
	in := s.InstallPlan(cfg.PackManager)
	if !opts.NoInstall {
		if err := createInstall(ctx, opts, wd, s.RelDir(wd), in); err != nil {
			return err
		}
	}
	if !opts.JSON && !opts.IO.Quiet {
		renderNextSteps(opts.IO.Out, wd, s, in, opts.NoInstall)
	}
	return nil
}

// createRuntime is the runtime to scaffold: --runtime, else the configuration's (which the
// flag is bound to), refused when it names none; "" lets scaffold detect it.
func createRuntime(flag string, cfg *config.Config, wd string) (string, error) {
	if flag != "" || cfg.Runtime == "" {
		return flag, nil
	}
	if scaffold.CheckRuntime(cfg.Runtime) != nil {
		from := "PLAIOS_RUNTIME"
		if cfg.File != "" {
			from = relPath(wd, cfg.File)
		}
		return "", exit.Usagef("the configuration (%s) sets runtime %q, which is not a runtime; use one of %s", from, cfg.Runtime, strings.Join(scaffold.Runtimes, ", "))
	}
	return cfg.Runtime, nil
}

// renderCreated lists the files written (or that --dry-run would write) and the role map's
// new entry, as text or JSON.
func renderCreated(opts *CreateOptions, wd string, s *scaffold.Scaffold) error {
	rel := s.RelDir(wd)
	out := opts.IO.Out
	if opts.JSON {
		res := createJSON{SchemaVersion: 1, Runtime: s.Runtime, Name: s.Package, Dir: rel, Files: make([]string, 0, len(s.Files))}
		for _, f := range s.Files {
			res.Files = append(res.Files, f.Path)
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	created, updated := "Created", "Updated"
	if opts.DryRun {
		created, updated = "Would create", "Would update"
	}
	fmt.Fprintf(out, "%s %s (%s %s) in %s:\n", created, s.Package, s.Runtime, strings.Join(s.Kinds, ","), rel)
	for _, f := range s.Files {
		fmt.Fprintf(out, "  %s\n", filepath.ToSlash(filepath.Join(rel, f.Path)))
		if opts.DryRun && opts.IO.Verbose {
			fmt.Fprintf(out, "%s\n", indent(string(f.Data)))
		}
	}
	if rm := s.RoleMap; rm != nil {
		fmt.Fprintf(out, "%s %s: %q → %s\n", updated, relPath(wd, rm.Path), rm.Key, rm.Role)
	}
	if opts.DryRun {
		fmt.Fprintln(out, "Dry run: nothing was written.")
	}
	return nil
}

// createInstall runs the package manager. On a terminal it gets the terminal itself, so that
// it shows its own progress as it does when run by hand; elsewhere its output is kept, and
// its end shown only when it fails.
func createInstall(ctx context.Context, opts *CreateOptions, wd, rel string, in scaffold.Install) error {
	run := opts.Install
	if run == nil {
		run = func(ctx context.Context, in scaffold.Install, w io.Writer, where string) error {
			return in.Run(ctx, w, where)
		}
	}
	var log bytes.Buffer
	var w io.Writer = &log
	if opts.IO.Progress() {
		fmt.Fprintf(opts.IO.ErrOut, "Installing: %s in %s (this takes a while the first time)\n", in, relPath(wd, in.Dir))
		w = opts.IO.ErrOut
	}
	if err := run(ctx, in, w, rel); err != nil {
		if !opts.IO.Progress() && log.Len() > 0 {
			opts.IO.ErrOut.Write(tail(log.Bytes(), 20))
		}
		return err
	}
	return nil
}

// renderNextSteps says what to run next (the install too, with --no-install).
func renderNextSteps(out io.Writer, wd string, s *scaffold.Scaffold, in scaffold.Install, noInstall bool) {
	fmt.Fprintln(out, "\nNext steps:")
	fmt.Fprintf(out, "  cd %s\n", s.RelDir(wd))
	if noInstall {
		if in.Dir == s.Dir {
			fmt.Fprintf(out, "  %s\n", in)
		} else {
			fmt.Fprintf(out, "  %s   # in %s\n", in, relPath(wd, in.Dir))
		}
	}
	fmt.Fprintf(out, "  %s run build\n", in.Tool)
	fmt.Fprintf(out, "  %s test\n", in.Tool)
	fmt.Fprintln(out, "  plaios validate")
}

// relPath is p relative to base in slash form (p itself when there is no relative path).
func relPath(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    | " + l
	}
	return strings.Join(lines, "\n")
}

// tail returns the last n lines of b.
func tail(b []byte, n int) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return bytes.Join(lines, nil)
}
