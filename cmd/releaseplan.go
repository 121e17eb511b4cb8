package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/check"
	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/npm/npmrc"
	"github.com/plaios/plaios/internal/npm/registry"
	"github.com/plaios/plaios/internal/report"
	"github.com/plaios/plaios/release"
	"github.com/plaios/plaios/release/releaseplan"
)

// ReleasePlanOptions are the inputs of `plaios release-plan`.
type ReleasePlanOptions struct {
	IO         *IOStreams
	Dir        func() (string, error)
	Config     func() (*config.Config, error)
	HTTPClient func() (*http.Client, error)
	Getenv     func(string) string

	Base, Head  string
	Title, Body string
	BodyFile    string
	Event       string
	Out         string
	Format      string
	Write       bool

	TitleSet, BodySet, EventSet bool
}

// NewCmdReleasePlan builds `plaios release-plan`.
func NewCmdReleasePlan(f *Factory, runF func(*ReleasePlanOptions) error) *cobra.Command {
	opts := &ReleasePlanOptions{IO: f.IO, Dir: f.Dir, Config: f.Config, HTTPClient: f.HTTPClient, Getenv: f.Getenv}
	var registryURL string
	c := &cobra.Command{
		Use:   "release-plan",
		Short: "Decide which packages a merged pull request publishes, at which versions",
		Long: `release-plan decides, for a merged pull request, which publishable packages publish at which
versions (RELEASE.md): a changed package publishes its next patch, a breaking change its next
minor below 1.0.0 and, from 1.0.0, the major the pull request wrote into package.json; a
version written above every published one publishes as written. It reads both ends of the pull
request from git, the published versions from the registry and the <name>@<version> tags.

Without --title or a GitHub pull_request event, the title and description are the head
commit's message, as a squash merge writes it. Read-only unless --write.`,
		Example: `  plaios release-plan
  plaios release-plan --format json --out plan.json
  plaios release-plan --title "feat!: drop the v1 API" --body-file pr.md
  plaios release-plan --event "$GITHUB_EVENT_PATH" --out plan.json --write`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			opts.TitleSet = fl.Changed("title")
			opts.BodySet = fl.Changed("body")
			opts.EventSet = fl.Changed("event")
			if f.JSON {
				opts.Format = "json"
			}
			if err := oneOf("format", opts.Format, "text", "json"); err != nil {
				return err
			}
			if opts.BodySet && opts.BodyFile != "" {
				return exit.Usagef("--body and --body-file cannot be used together; give the description once")
			}
			if fl.Changed("base") && opts.Base == "" || fl.Changed("head") && opts.Head == "" {
				return exit.Usagef("--base and --head need a revision (a branch, tag or commit)")
			}
			if runF != nil {
				return runF(opts)
			}
			return RunReleasePlan(cmd.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Base, "base", "", "the commit before the pull request (default: the first parent of --head)")
	fl.StringVar(&opts.Head, "head", "", "the merge commit of the pull request (default: HEAD)")
	fl.StringVar(&opts.Title, "title", "", "the pull request `TITLE` (default: from --event, else the head commit's subject)")
	fl.StringVar(&opts.Body, "body", "", "the pull request description")
	fl.StringVar(&opts.BodyFile, "body-file", "", "read the pull request description from `FILE` (- for stdin)")
	fl.StringVar(&opts.Event, "event", "", "a GitHub pull_request event `FILE` (default: $GITHUB_EVENT_PATH when set)")
	fl.StringVar(&registryURL, "registry", "", "the npm registry `URL` (default: from .npmrc, else registry.npmjs.org)")
	fl.StringVar(&opts.Out, "out", "", "also write the plan as JSON to `FILE` (plan.json)")
	fl.BoolVar(&opts.Write, "write", false, "write the next versions into package.json, the runtime manifests and registry.json")
	fl.StringVar(&opts.Format, "format", "text", "output format: text or json")
	f.bindFlag("registry", fl.Lookup("registry"))
	return c
}

// description is where the pull request's title and body come from (the flags, the event,
// the head commit), for releaseplan.Description.Resolve.
func (o *ReleasePlanOptions) description() releaseplan.Description {
	return releaseplan.Description{
		Title: o.Title, TitleSet: o.TitleSet, Body: o.Body, BodySet: o.BodySet, BodyFile: o.BodyFile, Stdin: o.IO.In,
		Event: releaseplan.EventSource{File: o.Event, FileSet: o.EventSet, Getenv: o.Getenv},
	}
}

// RunReleasePlan makes the plan, prints it, writes --out and, with --write, the versions.
func RunReleasePlan(ctx context.Context, o *ReleasePlanOptions) error {
	dir, err := o.Dir()
	if err != nil {
		return err
	}
	cfg, err := o.Config()
	if err != nil {
		return err
	}
	ropts, err := o.description().Resolve(dir)
	if err != nil {
		return err
	}
	ropts.Dir, ropts.Base, ropts.Head = dir, o.Base, o.Head
	// Registry requests wait on the network, not the CPU: 4 per job, at least 8.
	ropts.Jobs = max(8, 4*cfg.Jobs)
	ropts.Client = func(root string) (*registry.Client, error) {
		rc, err := npmrc.Load(root, o.Getenv)
		if err != nil {
			return nil, exit.EnvErr(err)
		}
		hc, err := o.HTTPClient()
		if err != nil {
			return nil, exit.EnvErr(err)
		}
		return &registry.Client{HTTP: hc, NPMRC: rc, Registry: cfg.Registry, Abbreviated: true, UserAgent: "plaios/" + version()}, nil
	}
	res, err := releaseplan.Run(ctx, ropts)
	if err != nil {
		return err
	}
	defer res.Close()
	plan := res.Plan

	data, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if o.Format == "json" {
		if _, err := o.IO.Out.Write(data); err != nil {
			return err
		}
	} else if err := plan.WriteText(o.IO.Out); err != nil {
		return err
	}
	if o.Out != "" {
		if err := releaseplan.WritePlan(dir, o.Out, data); err != nil {
			return err
		}
	}
	if !plan.OK() {
		if o.Getenv != nil && o.Getenv("GITHUB_ACTIONS") == "true" {
			// In GitHub Actions each refusal is also an annotation on the package.json to edit.
			for _, r := range plan.Refusals {
				_ = report.GitHub(o.IO.ErrOut, []check.Diagnostic{{Rule: "release-refused", Severity: check.Error,
					File: path.Join(r.Dir, "package.json"), Line: 1, Col: 1, Message: r.Message}})
			}
		}
		return refusalError(plan)
	}
	if o.Write {
		written, err := res.Write()
		if err != nil {
			return err
		}
		if o.Format == "text" {
			for _, w := range written {
				fmt.Fprintf(o.IO.Out, "wrote %s\n", w)
			}
		} else if o.IO.Verbose {
			for _, w := range written {
				fmt.Fprintf(o.IO.ErrOut, "wrote %s\n", w)
			}
		}
	}
	return nil
}

// refusalError is the one sentence the run ends with when the plan refuses packages.
func refusalError(plan *release.Plan) error {
	if len(plan.Refusals) == 1 {
		r := plan.Refusals[0]
		name := r.Name
		if name == "" {
			name = r.Dir
		}
		return exit.Failf("%s (%s) is refused: %s", name, r.Dir, strings.TrimSuffix(r.Message, "."))
	}
	return exit.Failf("%d packages are refused (listed above); write the versions each refusal names and run release-plan again", len(plan.Refusals))
}
