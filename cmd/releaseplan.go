package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
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

	number int // the pull request's number, from the event
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

// prText resolves the pull request's title and body: flags, then the event, then (TitleSet
// false) the head commit.
func (o *ReleasePlanOptions) prText(dir string) (title, body string, titleSet bool, err error) {
	if o.BodyFile != "" {
		var data []byte
		if o.BodyFile == "-" {
			data, err = io.ReadAll(o.IO.In)
		} else {
			p := o.BodyFile
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			data, err = os.ReadFile(p)
		}
		if err != nil {
			return "", "", false, exit.Usagef("--body-file %s cannot be read: %v", o.BodyFile, unwrapPath(err))
		}
		o.Body, o.BodySet = string(data), true
	}
	eventPath, fromEnv := o.Event, false
	if !o.EventSet && eventPath == "" {
		eventPath, fromEnv = o.Getenv("GITHUB_EVENT_PATH"), true
	}
	var evTitle, evBody string
	var evOK bool
	if eventPath != "" {
		var ev prEvent
		ev, evOK, err = readPREvent(dir, eventPath)
		evTitle, evBody, o.number = ev.title, ev.body, ev.number
		if err != nil {
			if fromEnv {
				return "", "", false, exit.Envf("GITHUB_EVENT_PATH %s: %v", eventPath, err)
			}
			return "", "", false, exit.Usagef("--event %s: %v", eventPath, err)
		}
	}
	switch {
	case o.TitleSet:
		title, titleSet = o.Title, true
		if o.BodySet {
			body = o.Body
		} else if evOK {
			body = evBody
		}
	case evOK:
		title, body, titleSet = evTitle, evBody, true
		if o.BodySet {
			body = o.Body
		}
	case o.BodySet:
		// A description without a title: the title still comes from the commit.
		return "", o.Body, false, nil
	}
	return title, body, titleSet, nil
}

// prEvent is what a pull_request event says about the pull request.
type prEvent struct {
	title, body string
	number      int
}

// readEvent reads a GitHub event payload; ok is false when it is not about a pull request.
func readEvent(dir, file string) (title, body string, ok bool, err error) {
	ev, ok, err := readPREvent(dir, file)
	return ev.title, ev.body, ok, err
}

// readPREvent reads a GitHub event payload's pull request; ok is false when it has none.
func readPREvent(dir, file string) (prEvent, bool, error) {
	title, body, number, ok, err := readEventFile(dir, file)
	return prEvent{title, body, number}, ok, err
}

func readEventFile(dir, file string) (title, body string, number int, ok bool, err error) {
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", "", 0, false, fmt.Errorf("cannot be read (%v)", unwrapPath(err))
	}
	var ev struct {
		PullRequest *struct {
			Title  *string `json:"title"`
			Body   *string `json:"body"`
			Number int     `json:"number"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return "", "", 0, false, fmt.Errorf("is not a GitHub event payload (not JSON: %v)", err)
	}
	if ev.PullRequest == nil || ev.PullRequest.Title == nil {
		return "", "", 0, false, nil
	}
	if ev.PullRequest.Body != nil {
		body = *ev.PullRequest.Body
	}
	return *ev.PullRequest.Title, body, ev.PullRequest.Number, true, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
	title, body, titleSet, err := o.prText(dir)
	if err != nil {
		return err
	}
	res, err := releaseplan.Run(ctx, releaseplan.Options{
		Dir: dir, Base: o.Base, Head: o.Head,
		Title: title, Body: body, TitleSet: titleSet, Number: o.number,
		// Registry requests wait on the network, not the CPU: 4 per job, at least 8.
		Jobs: max(8, 4*cfg.Jobs),
		Client: func(root string) (*registry.Client, error) {
			rc, err := npmrc.Load(root, o.Getenv)
			if err != nil {
				return nil, exit.EnvErr(err)
			}
			hc, err := o.HTTPClient()
			if err != nil {
				return nil, exit.EnvErr(err)
			}
			return &registry.Client{HTTP: hc, NPMRC: rc, Registry: cfg.Registry, Abbreviated: true, UserAgent: "plaios/" + version()}, nil
		},
	})
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
		p := o.Out
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return exit.Envf("cannot write the plan to %s: %v", o.Out, unwrapPath(err))
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
