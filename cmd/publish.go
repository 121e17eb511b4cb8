package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/publish"
	"github.com/plaios/plaios/release/releaseplan"
)

// PublishOptions holds the inputs of `plaios publish` and what it needs from the outside.
type PublishOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	HTTPClient func() (*http.Client, error)
	Getenv     func(string) string
	Dir        func() (string, error)
	JSON       bool // the global --json

	Plan       string
	Packs      string
	Provenance string
	Remote     string
	Event      string
	DryRun     bool

	EventSet bool
}

// pauseHook names the test hook that stops a run after the registry step of one release:
// PLAIOS_TESTHOOK_PAUSE_AFTER_PUBLISH=N:FILE makes publish create FILE after release N
// (1-based) and wait there (at most ten minutes) to be killed. Unset, it does nothing.
const pauseHook = "PLAIOS_TESTHOOK_PAUSE_AFTER_PUBLISH"

// NewCmdPublish builds `plaios publish`. runF replaces the run in tests of flag parsing.
func NewCmdPublish(f *Factory, runF func(*PublishOptions) error) *cobra.Command {
	opts := &PublishOptions{IO: f.IO, Config: f.Config, HTTPClient: f.HTTPClient, Getenv: f.Getenv, Dir: f.Dir}
	var registryURL, githubRepo string
	var githubReleases bool
	c := &cobra.Command{
		Use:   "publish --plan plan.json --packs DIR",
		Short: "Publish a release plan: npm publish, git tags, GitHub releases",
		Long: `Publishes what a release plan says, from the tarballs guard tested, in three steps and in
this order, so that a failed publish never leaves a tag behind:

  1. registry  For each release in plan order: the tarball's sha512 must match
               guard-report.json; a version the registry already has with the same integrity
               is skipped, with another integrity it is an error; otherwise
               npm publish <tarball> --access public [--provenance] (a prerelease goes to the
               dist-tag named by its first identifier, such as beta). The registry and its
               credentials are npm's: .npmrc, or --registry.
  2. tags      <name>@<version> at the plan's head commit, created only where missing and
               pushed to --remote in one push. A tag at another commit is an error.
  3. GitHub    A release per tag (GITHUB_TOKEN; GITHUB_API_URL or github.apiURL for GitHub
               Enterprise): missing ones are created as drafts, then published. The notes are
               the release's CHANGELOG.md entry from the plan (for an older plan without one:
               the pull request's title and description — from the pull_request event,
               --event, default $GITHUB_EVENT_PATH, else the head commit's message body — then
               the package's changed files). --github-releases=false (config
               github.releases: false) leaves this step out: no GitHub repository or token is
               needed, for registries such as a PLAIOS Verdaccio.

The plan must have no refusals and its head must be the commit checked out. Safe to run
again: every step reads what exists first, so a run stopped at any point finishes the rest
and duplicates nothing. A release the plan marks "released" (release-plan found its version
tagged at the head or published from it: the same merge run again) counts as done on the
registry, with a warning when the tarball rebuilt now differs from the published one. Transient failures (5xx, a reset connection, a timeout) are retried
with backoff. --dry-run reads the registry, the remote and GitHub and says what it would do,
writing nothing.

--provenance auto asks npm for provenance inside GitHub Actions when the job can get an OIDC
token (permissions: id-token: write); on always, off never.

Exit status: 0 when every release is done, 1 when one failed or the plan or a tarball is
refused, 2 for a usage mistake, 3 when the registry, git or GitHub cannot be reached (or
refuses the credentials) after retries.`,
		Example: `  plaios release-plan --out plan.json --write
  plaios guard --plan plan.json --out .plaios/packs
  plaios publish --plan plan.json --packs .plaios/packs
  plaios publish --plan plan.json --packs .plaios/packs --dry-run
  plaios --json publish --plan plan.json --packs .plaios/packs --github-repo acme/packs
  plaios publish --plan plan.json --packs .plaios/packs --github-releases=false`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.JSON = f.JSON
			opts.EventSet = cmd.Flags().Changed("event")
			if err := oneOf("provenance", opts.Provenance, publish.ProvenanceAuto, publish.ProvenanceOn, publish.ProvenanceOff); err != nil {
				return err
			}
			if opts.Plan == "" || opts.Packs == "" {
				return exit.Usagef("--plan and --packs are required: give the plan.json of plaios release-plan --out and the folder of plaios guard --out")
			}
			if opts.Remote == "" {
				return exit.Usagef("--remote needs the name of a git remote, such as origin")
			}
			if githubRepo != "" && !publish.ValidRepo(githubRepo) {
				return exit.Usagef("--github-repo %q is not OWNER/NAME", githubRepo)
			}
			if runF != nil {
				return runF(opts)
			}
			return runPublish(cmd.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Plan, "plan", "", "the release plan to publish (`plan.json` of plaios release-plan --out)")
	fl.StringVar(&opts.Packs, "packs", "", "the tarballs and guard-report.json of plaios guard --out (`DIR`)")
	fl.StringVar(&registryURL, "registry", "", "the npm registry `URL` (default: from .npmrc, else registry.npmjs.org)")
	fl.StringVar(&opts.Provenance, "provenance", publish.ProvenanceAuto, "npm provenance: auto (in GitHub Actions with an OIDC token), on or off")
	fl.StringVar(&opts.Remote, "remote", "origin", "the git remote the tags are pushed to (`NAME`)")
	fl.StringVar(&githubRepo, "github-repo", "", "the GitHub repository of the releases (`OWNER/NAME`; default: from the remote's URL)")
	fl.StringVar(&opts.Event, "event", "", "a GitHub pull_request event `FILE` for the release notes (default: $GITHUB_EVENT_PATH when set)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "say what would be published, tagged and released, and change nothing")
	fl.BoolVar(&githubReleases, "github-releases", true, "write a GitHub release per tag (false: the registry and the tags only, no GitHub needed)")
	f.bindFlag("registry", fl.Lookup("registry"))
	f.bindFlag("github.repo", fl.Lookup("github-repo"))
	f.bindFlag("github.releases", fl.Lookup("github-releases"))
	return c
}

// body resolves the pull request description: the event (--event, else GITHUB_EVENT_PATH)
// when it is a pull_request event, else none (publish then reads the head commit's body).
func (o *PublishOptions) body(dir string) (string, bool, error) {
	ev, ok, err := releaseplan.EventSource{File: o.Event, FileSet: o.EventSet, Getenv: o.Getenv}.Read(dir)
	return ev.Body, ok, err
}

// runPublish publishes the plan. ctx is the command's context, never nil (cobra gives every command one).
func runPublish(ctx context.Context, opts *PublishOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &publishRenderer{io: opts.IO, json: opts.JSON}
	err := publishRun(ctx, opts, r)
	if err != nil && opts.JSON && !exit.IsSilent(err) {
		code := exit.Code(err)
		r.event(publish.Event{SchemaVersion: publish.SchemaVersion, Event: "error", Message: sentence(err.Error()), ExitCode: &code})
	}
	return err
}

func publishRun(ctx context.Context, opts *PublishOptions, r *publishRenderer) error {
	dir, err := opts.Dir()
	if err != nil {
		return err
	}
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	httpc, err := opts.HTTPClient()
	if err != nil {
		return exit.EnvErr(err)
	}
	body, bodySet, err := opts.body(dir)
	if err != nil {
		return err
	}
	popts := publish.Options{
		Dir:              dir,
		Plan:             opts.Plan,
		Packs:            opts.Packs,
		Registry:         cfg.Registry,
		Provenance:       opts.Provenance,
		Remote:           opts.Remote,
		GitHubRepo:       cfg.GitHubRepo,
		GitHubAPI:        cfg.GitHubAPI,
		NoGitHubReleases: !cfg.GitHubReleases,
		Body:             body,
		BodySet:          bodySet,
		DryRun:           opts.DryRun,
		Getenv:           opts.Getenv,
		HTTP:             httpc,
		UserAgent:        "plaios/" + version(),
		Events:           r.event,
	}
	if opts.IO.Progress() {
		r.bar = true
		popts.Progress = r.progress
	}
	if opts.IO.Verbose {
		popts.Log = opts.IO.ErrOut
	}
	if hook := opts.Getenv(pauseHook); hook != "" {
		popts.AfterRegistry = pauseAfter(hook)
	}
	res, err := publish.Run(ctx, popts)
	r.clear()
	if err != nil {
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return exit.Failf("interrupted; run plaios publish again to finish: it repeats nothing")
		}
		return err
	}
	r.summary(res)
	if ctx.Err() != nil {
		return exit.Failf("interrupted; run plaios publish again to finish: it repeats nothing")
	}
	return res.Err()
}

// pauseAfter is the test hook of pauseHook.
func pauseAfter(spec string) func(int) {
	n, file, ok := strings.Cut(spec, ":")
	at, err := strconv.Atoi(n)
	if !ok || err != nil || at < 1 || file == "" {
		return nil
	}
	return func(i int) {
		if i+1 != at {
			return
		}
		_ = os.WriteFile(file, []byte("paused\n"), 0o644)
		time.Sleep(10 * time.Minute)
	}
}

// publishRenderer prints a run's events: text lines on stdout (warnings on stderr) or one JSON
// object per line, and a progress line on a terminal's stderr.
type publishRenderer struct {
	io    *IOStreams
	json  bool
	bar   bool
	shown bool
}

func (p *publishRenderer) event(ev publish.Event) {
	if p.json {
		data, err := json.Marshal(ev)
		if err != nil {
			return
		}
		p.clear()
		fmt.Fprintf(p.io.Out, "%s\n", data)
		return
	}
	line := ""
	switch ev.Event {
	case "warning":
		p.clear()
		fmt.Fprintf(p.io.ErrOut, "warning: %s\n", ev.Message)
		return
	case "registry":
		switch ev.Status {
		case publish.StatusPublished:
			line = "published " + ev.Tag
		case publish.StatusSkipped:
			line = "skipped " + ev.Tag + ": " + ev.Reason
		case publish.StatusWouldPublish:
			line = "would publish " + ev.Tag
		}
	case "tag":
		switch ev.Status {
		case publish.StatusPushed:
			line = fmt.Sprintf("tagged %s at %s", ev.Tag, shortID(ev.Commit))
		case publish.StatusWouldPush:
			line = fmt.Sprintf("would tag %s at %s", ev.Tag, shortID(ev.Commit))
		}
	case "push":
		switch ev.Status {
		case publish.StatusPushed:
			line = fmt.Sprintf("pushed %d %s to %s", len(ev.Tags), plural(len(ev.Tags), "tag", "tags"), ev.Remote)
		case publish.StatusWouldPush:
			line = fmt.Sprintf("would push %d %s to %s", len(ev.Tags), plural(len(ev.Tags), "tag", "tags"), ev.Remote)
		}
	case "release":
		switch ev.Status {
		case publish.StatusCreated, publish.StatusPublished:
			line = "released " + ev.Tag + ": " + ev.URL
		case publish.StatusWouldCreate:
			line = "would create and publish the GitHub release " + ev.Tag
			if notes := strings.TrimRight(ev.Notes, "\n"); notes != "" {
				line += ", with the notes:"
				for _, l := range strings.Split(notes, "\n") {
					line += "\n"
					if l != "" {
						line += "    " + l
					}
				}
			}
		case publish.StatusWouldPublish:
			line = "would publish the draft GitHub release " + ev.Tag
		}
	}
	if line == "" || p.io.Quiet {
		return
	}
	p.clear()
	fmt.Fprintln(p.io.Out, line)
}

func (p *publishRenderer) summary(res *publish.Result) {
	if p.json {
		p.event(res.Summary())
		return
	}
	for _, o := range res.Failures() {
		fmt.Fprintf(p.io.Out, "%s: %s\n", o.Tag, o.Reason)
	}
	pub, skipped, failed := res.Counts()
	if res.DryRun {
		fmt.Fprintf(p.io.Out, "dry run: would publish %d, skipped %d, failed %d; nothing was changed\n", pub, skipped, failed)
		return
	}
	fmt.Fprintf(p.io.Out, "published %d, skipped %d, failed %d\n", pub, skipped, failed)
}

var stepWords = map[string]string{"registry": "publishing", "tag": "pushing tags", "release": "writing GitHub releases"}

func (p *publishRenderer) progress(ev publish.Progress) {
	if !p.bar {
		return
	}
	line := fmt.Sprintf("publish: %s %d/%d", stepWords[ev.Step], ev.Done, ev.Total)
	if ev.Tag != "" {
		line += " " + ev.Tag
	}
	fmt.Fprintf(p.io.ErrOut, "\r\033[K%s", line)
	p.shown = true
}

func (p *publishRenderer) clear() {
	if p.shown {
		fmt.Fprint(p.io.ErrOut, "\r\033[K")
		p.shown = false
	}
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
