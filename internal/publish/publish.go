// Package publish carries out a release plan, as `plaios publish` promises (CLI.md,
// RELEASE.md "Publishing"): it publishes the tarballs guard tested to the npm registry, tags
// each release `<name>@<version>` at the plan's head and pushes the tags in one push, then
// writes a GitHub release for each tag — in that order, so that a failed publish never leaves
// a tag behind and a tag never points at a version the registry does not have.
//
// Every step reads the state first and does only what is missing, so a run stopped anywhere
// (a dead registry, a rejected push, a GitHub 502, a SIGKILL) is finished by running it
// again, with no duplicate version, tag or release:
//
//   - registry: the packument says whether the version is there; with the guard's integrity it
//     is skipped, with another it is an error (a version is never republished); otherwise
//     `npm publish <tarball> --access public [--provenance] [--tag <prerelease id>]`. npm's
//     "cannot publish over the previously published version" counts as done once the
//     registry's integrity matches. A publish is confirmed twice: npm's own report of the
//     integrity it sent must match guard-report.json, and at the end of the registry step the
//     packuments are read again (in parallel, polling a while for registries that list a
//     version late) and must show the same integrity. A version the registry does not list in
//     time is a warning, not a failure: npm had the registry's acceptance.
//   - tags: `git ls-remote --tags` on the remote says which exist; a tag at another commit is
//     an error (found before anything is published, so the version is not stranded); missing
//     tags are created (lightweight: CI checkouts have no committer identity) and pushed in one
//     `git push --atomic`.
//   - the same merge, again: a release the plan marks `released` (its version belongs to the
//     head: tagged at it, or published from it) — or whose registry document's gitHead is the
//     plan's head — counts as done on the registry even when the tarball rebuilt now differs
//     from the one published (a warning says so); its missing tag and GitHub release are made.
//   - GitHub: unless NoGitHubReleases, releases are listed (drafts too: the get-by-tag endpoint does not return drafts),
//     missing ones are created as drafts with the pull request's title and description and the
//     package's changed files, then published. A create that failed with a 5xx or a lost answer
//     is retried only after listing again, so a create that succeeded server-side is adopted,
//     not duplicated.
//
// Transient failures (5xx, 429, a reset or refused connection, a timeout) are retried with
// exponential backoff. npm's own retries are turned off (`--fetch-retries=0`): they would
// wait minutes against a dead registry, and a retry here re-reads the packument first.
//
// Decisions where the issue and CLI.md are silent, made on purpose:
//
//   - Everything that can refuse the whole run is checked before anything is written: the
//     plan (no refusals, its head checked out), every tarball against guard-report.json (file
//     present, sha512 equal, its package.json naming the release), npm, the remote, the
//     GitHub repository and token (one cheap authenticated request); the registry and the
//     remote's tags are read then too, so a release whose tag exists at another commit fails
//     before it is published. A working tree changed by `release-plan --write` is expected:
//     only HEAD must match the plan's head.
//   - A release that fails in the registry is not tagged or released; the releases after it
//     that depend on it (dependencies, optional or peer dependencies in its tarball's
//     package.json) are held back, the others go on. When the registry cannot be reached (or
//     refuses the credentials) the registry step stops: the next releases would fail the same
//     way. Releases done before the failure are still tagged and released.
//   - A prerelease version is published with `--tag <its first prerelease identifier>`
//     (2.0.0-beta.1 → beta; "next" when the identifier is numeric or not usable as a tag):
//     npm 11 refuses to publish a prerelease without --tag, and it must not become "latest".
//     Its GitHub release is marked as a prerelease.
//   - The registry and the credentials are npm's own: npm reads .npmrc itself; plaios passes
//     `--registry` with the registry its packument client chose for the package (a scope's
//     registry, --registry, .npmrc, npmjs.org — npm's order), so both look at the same place.
//     Tokens are never put on a command line.
//   - publishConfig in a tarball's package.json: its `tag` is kept (no --tag is passed then);
//     `access: "restricted"` and a `registry` other than the one plaios publishes to are
//     refused before anything is published, since the flags plaios gives npm (--access public,
//     --registry) would silently override them.
//   - GITHUB_API_URL, when set (the runner sets it, also on GitHub Enterprise), wins over the
//     configuration's github.apiURL, so that a repository's .plaios.yaml cannot send the
//     workflow's token to another host.
//   - Output from npm and git is captured, never passed through, and everything plaios prints
//     goes through a Redactor that removes the token values it knows (GITHUB_TOKEN,
//     NODE_AUTH_TOKEN, the .npmrc credentials of the registries used…) and anything shaped
//     like a token (npm_…, ghp_…/ghs_…, github_pat_…, _authToken=…, URL user info).
//   - --dry-run reads everything (registry, remote tags, GitHub releases) and reports what it
//     would do; it writes nothing: no npm publish, no local tag, no push, no GitHub write.
package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/git"
	"github.com/plaios/plaios/internal/npm/npmrc"
	"github.com/plaios/plaios/internal/npm/registry"
	"github.com/plaios/plaios/release"
)

// SchemaVersion is the version of the JSON events.
const SchemaVersion = 1

// Provenance modes.
const (
	ProvenanceAuto = "auto"
	ProvenanceOn   = "on"
	ProvenanceOff  = "off"
)

// Options are the inputs of one publish run.
type Options struct {
	Dir   string // the working directory, inside the git checkout; relative paths start here
	Plan  string // plan.json
	Packs string // guard's --out folder (tarballs and guard-report.json)

	Registry   string // --registry (or the configuration's registry); "" for .npmrc's
	Provenance string // auto, on or off (default auto)
	Remote     string // the git remote tags are pushed to (default origin)
	GitHubRepo string // OWNER/NAME; "" to read it from the remote's URL, then GITHUB_REPOSITORY
	GitHubAPI  string // the configuration's github.apiURL (GITHUB_API_URL wins when set)
	// NoGitHubReleases leaves GitHub out (--github-releases=false, github.releases: false):
	// the registry and the tags only, with no GitHub repository or token needed.
	NoGitHubReleases bool

	// Body is the pull request's description for the release notes; when BodySet is false
	// the head commit's message body stands for it (a squash merge writes it there).
	Body    string
	BodySet bool

	DryRun bool

	Getenv func(string) string // the environment as plaios reads it (nil: os.Getenv)
	Env    []string            // the environment of npm and git (nil: os.Environ())
	HTTP   *http.Client        // for the registry and GitHub (nil: a 60 s client)
	NPM    string              // the npm program (default: npm on PATH)

	// Attempts bounds the tries of a step that fails transiently (default 4); Backoff is the
	// first wait (default 500 ms), doubled each time and capped at 8 s.
	Attempts int
	Backoff  time.Duration
	// ConfirmTimeout bounds how long the registry is polled for versions npm published but
	// the registry does not list yet (default 60 s).
	ConfirmTimeout time.Duration

	UserAgent string // default "plaios"

	// Events, when set, receives each step's outcome as it happens.
	Events func(Event)
	// Progress, when set, is told which release each step is at (for a terminal line).
	Progress func(Progress)
	// Log, when set, receives notes and npm's and git's (redacted) output: --verbose.
	Log io.Writer

	// AfterRegistry, when set, is called after the registry step of release i (0-based), before
	// the next one. It exists for tests that stop a run between publishing and tagging.
	AfterRegistry func(i int)
}

// Progress is where a run is.
type Progress struct {
	Step  string // "registry", "tag", "release"
	Done  int
	Total int
	Tag   string // the release being worked on
}

// Outcome is what became of one release.
type Outcome struct {
	Name    string
	Version string
	Tag     string
	Dir     string

	Registry string // StatusPublished, StatusSkipped, StatusWouldPublish, StatusFailed, "" (not reached)
	Tagging  string // StatusPushed, StatusExists, StatusWouldPush, StatusFailed, ""
	GitHub   string // StatusCreated, StatusPublished, StatusExists, StatusWould…, StatusFailed, ""
	URL      string // the GitHub release page

	Reason string // the first failure, worded for a person; "" when nothing failed
	env    bool   // the failure is the environment's (unreachable, credentials): exit 3

	release release.Release
	tarball string // absolute path
	sha512  string // the guard's integrity
	shasum  string
	deps    []string

	configRegistry string // the tarball's publishConfig.registry
	configTag      string // the tarball's publishConfig.tag
}

// Failed reports whether some step of the release failed.
func (o *Outcome) Failed() bool { return o.Reason != "" }

// The statuses of events and outcomes.
const (
	StatusPublished    = "published"
	StatusSkipped      = "skipped"
	StatusFailed       = "failed"
	StatusWouldPublish = "would-publish"
	StatusPushed       = "pushed"
	StatusExists       = "exists"
	StatusWouldPush    = "would-push"
	StatusCreated      = "created"
	StatusWouldCreate  = "would-create"
)

// Result is the outcome of a run.
type Result struct {
	Head     string
	Remote   string
	Repo     string // OWNER/NAME on GitHub
	DryRun   bool
	Releases []*Outcome

	// NPM is the time spent in npm publish processes: the rest of a run's time is plaios's.
	NPM time.Duration
}

// Counts returns how many releases were published, skipped (already on the registry) and
// failed; in a dry run, published counts the releases that would be.
func (r *Result) Counts() (published, skipped, failed int) {
	for _, o := range r.Releases {
		switch {
		case o.Failed():
			failed++
		case o.Registry == StatusPublished || o.Registry == StatusWouldPublish:
			published++
		case o.Registry == StatusSkipped:
			skipped++
		}
	}
	return
}

// Failures returns the releases that failed, in plan order.
func (r *Result) Failures() []*Outcome {
	var out []*Outcome
	for _, o := range r.Releases {
		if o.Failed() {
			out = append(out, o)
		}
	}
	return out
}

// Err is the run's error when releases failed: exit 3 when the environment (registry, git,
// GitHub) was unreachable or refused the credentials, else exit 1. nil when none failed.
func (r *Result) Err() error {
	failed := r.Failures()
	if len(failed) == 0 {
		return nil
	}
	env := false
	for _, o := range failed {
		env = env || o.env
	}
	noun := "release"
	if len(r.Releases) != 1 {
		noun = "releases"
	}
	msg := fmt.Sprintf("%d of %d %s failed; fix what each reason says and run plaios publish again: it finishes what is missing and repeats nothing", len(failed), len(r.Releases), noun)
	if env {
		return exit.Envf("%s", msg)
	}
	return exit.Failf("%s", msg)
}

// Event is one line of `--json` output.
type Event struct {
	SchemaVersion int      `json:"schemaVersion"`
	Event         string   `json:"event"` // registry, tag, push, release, warning, summary, error
	Name          string   `json:"name,omitempty"`
	Version       string   `json:"version,omitempty"`
	Tag           string   `json:"tag,omitempty"`
	Status        string   `json:"status,omitempty"`
	Reason        string   `json:"reason,omitempty"`
	URL           string   `json:"url,omitempty"`
	Commit        string   `json:"commit,omitempty"`
	Remote        string   `json:"remote,omitempty"`
	Tags          []string `json:"tags,omitempty"`
	Message       string   `json:"message,omitempty"`
	Notes         string   `json:"notes,omitempty"` // a dry run's would-create release: its notes

	// The summary.
	DryRun    *bool     `json:"dryRun,omitempty"`
	Published *int      `json:"published,omitempty"`
	Skipped   *int      `json:"skipped,omitempty"`
	Failed    *int      `json:"failed,omitempty"`
	Failures  []Failure `json:"failures,omitempty"`
	ExitCode  *int      `json:"exitCode,omitempty"`
}

// Failure is one failed release in the summary.
type Failure struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Reason  string `json:"reason"`
}

// Summary is the last event of a run.
func (r *Result) Summary() Event {
	p, s, f := r.Counts()
	dry := r.DryRun
	failures := []Failure{}
	for _, o := range r.Failures() {
		failures = append(failures, Failure{Name: o.Name, Version: o.Version, Reason: o.Reason})
	}
	code := exit.Code(r.Err())
	return Event{SchemaVersion: SchemaVersion, Event: "summary", DryRun: &dry, Published: &p, Skipped: &s, Failed: &f, Failures: failures, ExitCode: &code}
}

// run is one publish run.
type run struct {
	opts   Options
	ctx    context.Context
	red    *Redactor
	repo   *git.Repo
	root   string // the workspace root on disk (where npm runs and .npmrc is read)
	plan   *release.Plan
	res    *Result
	npmrc  *npmrc.Config
	client *registry.Client
	gh     *gitHub
	getenv func(string) string

	packuments map[string]*registry.Packument // read before publishing; nil: not on the registry
	remote     map[string]string              // tags on the remote → commit
	local      map[string]string              // local tags → commit
	env        []string
	started    time.Time
}

// Run publishes the plan. The error is for the run as a whole (a refused plan, a tarball that
// is not the one guard tested, a missing tool, an unreachable registry before anything was
// written); failed releases are in the Result, and Result.Err turns them into the exit code.
// ctx must not be nil.
func Run(ctx context.Context, opts Options) (*Result, error) {
	r, err := newRun(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer r.close()
	res, err := r.run()
	if err != nil {
		return res, r.redactErr(err)
	}
	return res, nil
}

func newRun(ctx context.Context, opts Options) (*run, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	if opts.Remote == "" {
		opts.Remote = "origin"
	}
	if opts.Provenance == "" {
		opts.Provenance = ProvenanceAuto
	}
	switch opts.Provenance {
	case ProvenanceAuto, ProvenanceOn, ProvenanceOff:
	default:
		return nil, exit.Usagef("--provenance %q is not valid; use auto, on or off", opts.Provenance)
	}
	if opts.Attempts < 1 {
		opts.Attempts = 4
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 500 * time.Millisecond
	}
	if opts.ConfirmTimeout <= 0 {
		opts.ConfirmTimeout = 60 * time.Second
	}
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{Timeout: 60 * time.Second}
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "plaios"
	}
	if opts.Plan == "" {
		return nil, exit.Usagef("--plan is required: give the plan.json plaios release-plan --out wrote")
	}
	if opts.Packs == "" {
		return nil, exit.Usagef("--packs is required: give the folder plaios guard --out wrote the tarballs and guard-report.json to")
	}
	return &run{opts: opts, ctx: ctx, red: NewRedactor(opts.Getenv), getenv: opts.Getenv, env: opts.Env}, nil
}

func (r *run) close() {
	if r.repo != nil {
		_ = r.repo.Close()
	}
}

// redactErr keeps the exit code of err and removes secrets from its message.
func (r *run) redactErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := r.red.Redact(msg)
	if clean == msg {
		return err
	}
	return &exit.Error{Code: exit.Code(err), Err: errors.New(clean)}
}

func (r *run) emit(ev Event) {
	ev.SchemaVersion = SchemaVersion
	ev.Reason = r.red.Redact(ev.Reason)
	ev.Message = r.red.Redact(ev.Message)
	if r.opts.Events != nil {
		r.opts.Events(ev)
	}
}

func (r *run) warn(format string, a ...any) {
	r.emit(Event{Event: "warning", Message: fmt.Sprintf(format, a...)})
}

func (r *run) logf(format string, a ...any) {
	if r.opts.Log != nil {
		fmt.Fprintln(r.opts.Log, r.red.Redact(fmt.Sprintf(format, a...)))
	}
}

func (r *run) progress(step string, done, total int, tag string) {
	if r.opts.Progress != nil {
		r.opts.Progress(Progress{Step: step, Done: done, Total: total, Tag: tag})
	}
}

// fail records a release's first failure and reports it.
func (r *run) fail(o *Outcome, step string, env bool, format string, a ...any) {
	reason := r.red.Redact(fmt.Sprintf(format, a...))
	if o.Reason == "" {
		o.Reason, o.env = reason, env
	}
	switch step {
	case "registry":
		o.Registry = StatusFailed
	case "tag":
		o.Tagging = StatusFailed
	case "release":
		o.GitHub = StatusFailed
	}
	r.emit(Event{Event: step, Name: o.Name, Version: o.Version, Tag: o.Tag, Status: StatusFailed, Reason: reason})
}

func (r *run) run() (*Result, error) {
	if err := r.load(); err != nil {
		return nil, err
	}
	res := r.res
	if len(res.Releases) == 0 {
		return res, nil
	}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	r.registryStep()
	r.tagStep()
	if !r.opts.NoGitHubReleases {
		r.releaseStep()
	}
	return res, nil
}

// short abbreviates a commit id for messages.
func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// abbrev shortens an integrity for messages.
func abbrev(integrity string) string {
	if len(integrity) > 19 {
		return integrity[:19] + "…"
	}
	return integrity
}

// joinNames lists names for a message.
func joinNames(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}
