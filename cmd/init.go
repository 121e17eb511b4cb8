package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/setup"
)

// InitOptions are the inputs of `plaios init`.
type InitOptions struct {
	IO     *IOStreams
	Dir    func() (string, error)
	Getenv func(string) string

	Runtime, Registry, Scope string
	PlaiosVersion            string
	DryRun, Force, NoGitHub  bool
}

// NewCmdInit builds `plaios init`. runF replaces the run in tests of flag parsing.
func NewCmdInit(f *Factory, runF func(*InitOptions) error) *cobra.Command {
	opts := &InitOptions{IO: f.IO, Dir: f.Dir, Getenv: f.Getenv}
	c := &cobra.Command{
		Use:   "init",
		Short: "Set the repository up: .plaios.yaml, .gitignore and the GitHub Actions workflows",
		Long: `init sets a repository up for the flow plaios exists for, as changeset init or helm create
would. It writes:

  .plaios.yaml                          the detected runtime, registry (from .npmrc) and scope
  .gitignore                            the lines it lacks of node_modules/, .plaios/, .env*
  .github/workflows/plaios-check.yml    on pull requests: validate --format sarif uploaded to
                                        code scanning, guard --all as a --shard matrix
  .github/workflows/plaios-release.yml  on a push to the default branch: release-plan --write,
                                        guard --plan --out, publish (concurrency-guarded,
                                        id-token: write for provenance, contents: write)

The workflows install the plaios release they pin (this binary's version, or --plaios-version)
and check its archive against the release's checksums.txt. An existing file is refused (exit 2)
unless --force; .gitignore is only appended to. --no-github writes the configuration alone,
with github.releases: false.`,
		Example: `  plaios init --dry-run
  plaios init
  plaios init --no-github --registry http://localhost:4873/
  plaios init --force --plaios-version 1.4.0`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Runtime != "" {
				if err := oneOf("runtime", opts.Runtime, "plaios", "agentos", "openclaw", "pi"); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return runInit(opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Runtime, "runtime", "", "the runtime to write (default: detected from the packages)")
	fl.StringVar(&opts.Registry, "registry", "", "the npm registry `URL` to write (default: from .npmrc, else registry.npmjs.org)")
	fl.StringVar(&opts.Scope, "scope", "", "the npm `@scope` to write (default: the packages' most common scope)")
	fl.StringVar(&opts.PlaiosVersion, "plaios-version", "", "the plaios release the workflows install (`X.Y.Z`; default: this plaios's version)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "list what would be written, and write nothing")
	fl.BoolVar(&opts.Force, "force", false, "replace the files that exist")
	fl.BoolVar(&opts.NoGitHub, "no-github", false, "write only the configuration (no workflows; github.releases: false)")
	return c
}

func runInit(o *InitOptions) error {
	dir, err := o.Dir()
	if err != nil {
		return err
	}
	v := o.PlaiosVersion
	if v == "" {
		v = version()
	}
	plan, err := setup.Make(setup.Options{Dir: dir, Version: strings.TrimPrefix(v, "v"), Runtime: o.Runtime, Registry: o.Registry,
		Scope: o.Scope, NoGitHub: o.NoGitHub, Force: o.Force, Getenv: o.Getenv})
	if err != nil {
		return err
	}
	verb := func(f setup.File) string {
		switch {
		case f.Append != nil && f.Exists:
			return "append " + strings.Join(f.Append, " ") + " to"
		case f.Exists:
			return "replace"
		}
		return "write"
	}
	if o.DryRun {
		for _, f := range plan.Files {
			fmt.Fprintf(o.IO.Out, "would %s %s\n", verb(f), f.Path)
		}
		fmt.Fprintf(o.IO.Out, "dry run: runtime %s, registry %s, release branch %s; nothing was written\n", plan.Runtime, plan.Registry, plan.Branch)
		return nil
	}
	written, err := plan.Write()
	for _, w := range written {
		fmt.Fprintf(o.IO.Out, "wrote %s\n", w)
	}
	if err != nil {
		return exit.EnvErr(fmt.Errorf("%w; the files listed above were written", err))
	}
	return nil
}
