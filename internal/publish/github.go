package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v93/github"

	"github.com/plaios/plaios/internal/exit"
)

// DefaultGitHubAPI is github.com's REST API.
const DefaultGitHubAPI = "https://api.github.com/"

// gitHub writes the releases of one repository.
type gitHub struct {
	client      *github.Client
	owner, name string
	api         string // for messages
}

var repoRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)
})

// ValidRepo reports whether s is OWNER/NAME.
func ValidRepo(s string) bool {
	return repoRE().MatchString(s) && !strings.HasSuffix(s, "/.") && !strings.HasSuffix(s, "/..")
}

// RepoFromRemote reads OWNER/NAME from a remote URL (https://host/OWNER/NAME(.git),
// ssh://git@host/OWNER/NAME, git@host:OWNER/NAME.git); ok is false for a local path or a URL
// whose path is not OWNER/NAME.
func RepoFromRemote(remote string) (string, bool) {
	remote = strings.TrimSpace(remote)
	var p string
	switch {
	case strings.Contains(remote, "://"):
		u, err := url.Parse(remote)
		if err != nil || u.Host == "" || u.Scheme == "file" {
			return "", false
		}
		p = u.Path
	default:
		// scp-like: [user@]host:path, where the host has no slash.
		host, rest, ok := strings.Cut(remote, ":")
		if !ok || host == "" || strings.ContainsAny(host, `/\`) || len(host) == 1 {
			return "", false
		}
		p = rest
	}
	p = strings.Trim(p, "/")
	p = strings.TrimSuffix(p, ".git")
	if !ValidRepo(p) {
		return "", false
	}
	return p, true
}

// setupGitHub resolves the repository, the API and the token, and checks them with one cheap
// authenticated request. In a dry run without a token, GitHub is not read (gh stays nil).
func (r *run) setupGitHub(remoteURL string) error {
	repo := r.opts.GitHubRepo
	switch {
	case repo != "":
		if !ValidRepo(repo) {
			return exit.Usagef("the GitHub repository %q (--github-repo or github.repo) is not OWNER/NAME", repo)
		}
	default:
		if p, ok := RepoFromRemote(remoteURL); ok {
			repo = p
		} else if env := r.getenv("GITHUB_REPOSITORY"); ValidRepo(env) {
			repo = env
		} else {
			return exit.Usagef("cannot tell which GitHub repository the releases go to: the remote %s is %s; give --github-repo OWNER/NAME (or github.repo in .plaios.yaml), or publish and tag without GitHub releases with --github-releases=false (github.releases: false) — nothing was published", r.opts.Remote, r.red.Redact(remoteURL))
		}
	}
	r.res.Repo = repo
	api := DefaultGitHubAPI
	if v := r.getenv("GITHUB_API_URL"); v != "" {
		api = v
	} else if r.opts.GitHubAPI != "" {
		api = r.opts.GitHubAPI
	}
	if u, err := url.Parse(api); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return exit.Usagef("the GitHub API URL %q is not an http(s) URL; fix GITHUB_API_URL or github.apiURL", r.red.Redact(api))
	}
	token := r.getenv("GITHUB_TOKEN")
	if token == "" {
		if r.opts.DryRun {
			r.warn("GITHUB_TOKEN is not set, so the GitHub releases were not read; the dry run shows every release as missing")
			return nil
		}
		return exit.Envf("publish needs GITHUB_TOKEN to write the GitHub releases of %s; set it (in GitHub Actions: env GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}, with permissions contents: write), or publish and tag without GitHub releases with --github-releases=false (github.releases: false) — nothing was published", repo)
	}
	r.red.Add(token)
	client, err := github.NewClient(
		github.WithHTTPClient(r.opts.HTTP),
		github.WithAuthToken(token),
		github.WithUserAgent(r.opts.UserAgent),
		github.WithURLs(&api, nil),
	)
	if err != nil {
		return exit.Usagef("the GitHub client cannot be made for %s: %v", r.red.Redact(api), err)
	}
	owner, name, _ := strings.Cut(repo, "/")
	r.gh = &gitHub{client: client, owner: owner, name: name, api: strings.TrimSuffix(r.red.Redact(api), "/")}
	// One cheap request proves the token and the repository before anything is published.
	err = r.retryGitHub("read the releases of "+repo, func() (*github.Response, error) {
		_, resp, err := client.Repositories.ListReleases(r.ctx, owner, name, &github.ListOptions{PerPage: 1})
		return resp, err
	})
	if err != nil {
		return exit.EnvErr(fmt.Errorf("%w — nothing was published", err))
	}
	return nil
}

// ghFailure is a GitHub call that failed for good.
type ghFailure struct {
	status int
	env    bool // unreachable, credentials, access: exit 3
	msg    string
}

func (e *ghFailure) Error() string { return e.msg }

// retryGitHub makes a call, retrying transient failures with backoff.
func (r *run) retryGitHub(what string, call func() (*github.Response, error)) error {
	var last error
	for try := 1; try <= r.opts.Attempts; try++ {
		resp, err := call()
		if err == nil {
			return nil
		}
		transient, hint := r.transientGitHub(err, resp)
		last = err
		if !transient || try == r.opts.Attempts {
			break
		}
		r.logf("GitHub: could not %s (%s); trying again", what, r.describeGitHub(err, resp))
		if !r.wait(try+1, hint) {
			return &ghFailure{msg: reasonStopped}
		}
	}
	return r.ghError(what, last)
}

// transientGitHub reports whether a failed call is worth another try, with the wait GitHub
// asked for.
func (r *run) transientGitHub(err error, resp *github.Response) (bool, time.Duration) {
	if r.stopped() {
		return false, 0
	}
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) {
		if abuse.RetryAfter != nil {
			return true, *abuse.RetryAfter
		}
		return true, 0
	}
	var rate *github.RateLimitError
	if errors.As(err, &rate) {
		return false, 0
	}
	var accepted *github.AcceptedError
	if errors.As(err, &accepted) {
		return true, 0
	}
	if resp != nil && resp.Response != nil {
		s := resp.StatusCode
		return s >= 500 || s == http.StatusTooManyRequests, 0
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		s := er.Response.StatusCode
		return s >= 500 || s == http.StatusTooManyRequests, 0
	}
	// No answer: a reset, a refused connection, a timeout, a broken-off body.
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF), 0
}

// status returns the HTTP status of a failed call, 0 when there was no answer.
func status(err error, resp *github.Response) int {
	if resp != nil && resp.Response != nil {
		return resp.StatusCode
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// describeGitHub words a failed call without its URL's query or any header.
func (r *run) describeGitHub(err error, resp *github.Response) string {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		msg := fmt.Sprintf("HTTP %d", er.Response.StatusCode)
		if er.Message != "" {
			msg += " " + er.Message
		}
		for _, e := range er.Errors {
			if e.Code != "" {
				msg += " (" + strings.TrimSpace(e.Field+" "+e.Code) + ")"
			}
		}
		return r.red.Redact(msg)
	}
	var rate *github.RateLimitError
	if errors.As(err, &rate) {
		return "the API rate limit is exhausted until " + rate.Rate.Reset.UTC().Format(time.RFC3339)
	}
	if s := status(err, resp); s != 0 {
		return fmt.Sprintf("HTTP %d %s", s, http.StatusText(s))
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "the request timed out"
	case strings.Contains(err.Error(), "connection refused"):
		return "the connection was refused"
	case strings.Contains(err.Error(), "connection reset") || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection was reset"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return r.red.Redact(ue.Err.Error())
	}
	return r.red.Redact(err.Error())
}

// ghError turns a failed call into one sentence and says whether it is the environment's.
func (r *run) ghError(what string, err error) error {
	var gf *ghFailure
	if errors.As(err, &gf) {
		return gf
	}
	s := status(err, nil)
	desc := r.describeGitHub(err, nil)
	api := "GitHub"
	if r.gh != nil && r.gh.api+"/" != DefaultGitHubAPI {
		api = "GitHub (" + r.gh.api + ")"
	}
	f := &ghFailure{status: s, env: true}
	var rate *github.RateLimitError
	switch {
	case errors.As(err, &rate):
		f.msg = fmt.Sprintf("%s's API rate limit for GITHUB_TOKEN is exhausted until %s, so it could not %s; run plaios publish again then", api, rate.Rate.Reset.UTC().Format(time.RFC3339), what)
	case s == http.StatusUnauthorized:
		f.msg = fmt.Sprintf("%s refused GITHUB_TOKEN when asked to %s (%s); give a valid token", api, what, desc)
	case s == http.StatusForbidden:
		f.msg = fmt.Sprintf("%s did not let GITHUB_TOKEN %s (%s); the token needs contents: write on %s", api, what, desc, r.res.Repo)
	case s == http.StatusNotFound:
		f.msg = fmt.Sprintf("%s has no repository %s that GITHUB_TOKEN can see (could not %s: %s); check --github-repo and the token's access", api, r.res.Repo, what, desc)
	case s == http.StatusUnprocessableEntity || (s >= 400 && s < 500 && s != http.StatusTooManyRequests):
		f.env = false
		f.msg = fmt.Sprintf("%s would not %s (%s)", api, what, desc)
	default:
		f.msg = fmt.Sprintf("%s could not be reached to %s after %d attempts (%s); run plaios publish again", api, what, r.opts.Attempts, desc)
	}
	return f
}

// listReleases returns the repository's releases by tag, drafts included, reading pages until
// every wanted tag is found or the list ends. A tag with several releases (drafts may share a
// tag) gets its published one, else its oldest draft.
func (r *run) listReleases(want []string) (map[string]*github.RepositoryRelease, error) {
	missing := map[string]bool{}
	for _, t := range want {
		missing[t] = true
	}
	byTag := map[string]*github.RepositoryRelease{}
	opt := &github.ListOptions{PerPage: 100}
	for {
		var page []*github.RepositoryRelease
		var resp *github.Response
		err := r.retryGitHub("list the releases of "+r.res.Repo, func() (*github.Response, error) {
			var err error
			page, resp, err = r.gh.client.Repositories.ListReleases(r.ctx, r.gh.owner, r.gh.name, opt)
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, rel := range page {
			if rel == nil {
				continue
			}
			cur := byTag[rel.TagName]
			if cur == nil || (cur.Draft && !rel.Draft) || (cur.Draft == rel.Draft && rel.ID < cur.ID) {
				byTag[rel.TagName] = rel
			}
			if !rel.Draft {
				delete(missing, rel.TagName)
			}
		}
		if resp == nil || resp.NextPage == 0 || len(missing) == 0 {
			return byTag, nil
		}
		opt.Page = resp.NextPage
	}
}

// releaseStep writes the GitHub release of each tagged release.
func (r *run) releaseStep() {
	var todo []*Outcome
	for _, o := range r.res.Releases {
		if !o.Failed() && (o.Tagging == StatusPushed || o.Tagging == StatusExists || o.Tagging == StatusWouldPush) {
			todo = append(todo, o)
		}
	}
	if len(todo) == 0 {
		return
	}
	var tags []string
	for _, o := range todo {
		tags = append(tags, o.Tag)
	}
	if r.stopped() {
		for _, o := range todo {
			r.fail(o, "release", false, reasonStopped)
		}
		return
	}
	existing := map[string]*github.RepositoryRelease{}
	if r.gh != nil {
		var err error
		existing, err = r.listReleases(tags)
		if err != nil {
			var gf *ghFailure
			env := !errors.As(err, &gf) || gf.env
			for _, o := range todo {
				r.fail(o, "release", env, "the GitHub release was not written: %v", err)
			}
			return
		}
	}
	notes := r.notesText()
	for i, o := range todo {
		r.progress("release", i, len(todo), o.Tag)
		if r.stopped() {
			r.fail(o, "release", false, reasonStopped)
			continue
		}
		r.ensureRelease(o, existing[o.Tag], notes)
	}
	r.progress("release", len(todo), len(todo), "")
}

// ensureRelease makes the release of o exist and be published.
func (r *run) ensureRelease(o *Outcome, rel *github.RepositoryRelease, notes func(*Outcome) string) {
	created := false
	if rel != nil && !rel.Draft {
		o.GitHub, o.URL = StatusExists, rel.HTMLURL
		r.emit(Event{Event: "release", Name: o.Name, Version: o.Version, Tag: o.Tag, Status: StatusExists, URL: rel.HTMLURL})
		return
	}
	if r.opts.DryRun {
		ev := Event{Event: "release", Name: o.Name, Version: o.Version, Tag: o.Tag, Status: StatusWouldCreate, Notes: notes(o)}
		if rel != nil {
			ev.Status, ev.Notes = StatusWouldPublish, ""
		}
		o.GitHub = ev.Status
		r.emit(ev)
		return
	}
	if rel == nil {
		var err error
		rel, err = r.createDraft(o, notes(o))
		if err != nil {
			r.failGitHub(o, err)
			return
		}
		created = true
	}
	pub, err := r.publishDraft(o, rel)
	if err != nil {
		r.failGitHub(o, err)
		return
	}
	o.URL = pub.HTMLURL
	o.GitHub = StatusPublished
	if created {
		o.GitHub = StatusCreated
	}
	r.emit(Event{Event: "release", Name: o.Name, Version: o.Version, Tag: o.Tag, Status: o.GitHub, URL: o.URL})
}

func (r *run) failGitHub(o *Outcome, err error) {
	var gf *ghFailure
	env := !errors.As(err, &gf) || gf.env
	r.fail(o, "release", env, "the GitHub release was not written: %v", err)
}

// findRelease lists the releases again for one tag.
func (r *run) findRelease(tag string) (*github.RepositoryRelease, error) {
	m, err := r.listReleases([]string{tag})
	if err != nil {
		return nil, err
	}
	return m[tag], nil
}

// createDraft creates the draft release of o. A try that failed without a clear answer may
// have succeeded: the releases are listed again before the next try, and a draft found then
// is the one to use.
func (r *run) createDraft(o *Outcome, body string) (*github.RepositoryRelease, error) {
	draft, pre := true, isPrerelease(o.Version)
	name, head := o.Tag, r.res.Head
	req := github.CreateReleaseRequest{TagName: o.Tag, TargetCommitish: &head, Name: &name, Body: &body, Draft: &draft, Prerelease: &pre}
	what := "create the release " + o.Tag
	var last error
	for try := 1; try <= r.opts.Attempts; try++ {
		if try > 1 {
			rel, err := r.findRelease(o.Tag)
			if err != nil {
				return nil, err
			}
			if rel != nil {
				r.logf("GitHub: the release %s was created by the try that failed; using it", o.Tag)
				return rel, nil
			}
		}
		rel, resp, err := r.gh.client.Repositories.CreateRelease(r.ctx, r.gh.owner, r.gh.name, req)
		if err == nil {
			return rel, nil
		}
		last = err
		if alreadyExists(err) {
			rel, ferr := r.findRelease(o.Tag)
			if ferr != nil {
				return nil, ferr
			}
			if rel != nil {
				return rel, nil
			}
			return nil, r.ghError(what, err)
		}
		transient, hint := r.transientGitHub(err, resp)
		if !transient || try == r.opts.Attempts {
			break
		}
		r.logf("GitHub: could not %s (%s); trying again", what, r.describeGitHub(err, resp))
		if !r.wait(try+1, hint) {
			return nil, &ghFailure{msg: reasonStopped}
		}
	}
	return nil, r.ghError(what, last)
}

// publishDraft turns a draft into a published release (PATCH is idempotent: retried as is).
func (r *run) publishDraft(o *Outcome, rel *github.RepositoryRelease) (*github.RepositoryRelease, error) {
	if !rel.Draft {
		return rel, nil
	}
	f := false
	var out *github.RepositoryRelease
	err := r.retryGitHub("publish the release "+o.Tag, func() (*github.Response, error) {
		var resp *github.Response
		var err error
		out, resp, err = r.gh.client.Repositories.UpdateRelease(r.ctx, r.gh.owner, r.gh.name, rel.ID, github.UpdateReleaseRequest{Draft: &f})
		return resp, err
	})
	if err == nil {
		return out, nil
	}
	// Someone (or an earlier run) published another release for the tag meanwhile.
	if found, ferr := r.findRelease(o.Tag); ferr == nil && found != nil && !found.Draft {
		return found, nil
	}
	return nil, err
}

// alreadyExists reports GitHub's 422 `already_exists` for a release's tag.
func alreadyExists(err error) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusUnprocessableEntity {
		return false
	}
	for _, e := range er.Errors {
		if e.Code == "already_exists" {
			return true
		}
	}
	return false
}

// notesText returns the release notes maker: the release's changelog entry (RELEASE.md,
// "Changelog"), or for a plan without one, the pull request's title and description, then the
// package's changed files.
func (r *run) notesText() func(*Outcome) string {
	title := strings.TrimSpace(r.plan.Title)
	body := r.opts.Body
	if !r.opts.BodySet {
		if _, b, err := r.repo.CommitMessage(r.res.Head); err == nil {
			body = b
		}
	}
	return func(o *Outcome) string {
		if c := strings.TrimSpace(o.release.Changelog); c != "" {
			return c + "\n"
		}
		return ReleaseNotes(title, body, o.release.ChangedFiles)
	}
}

// maxNoteFiles bounds the changed files listed in a release's notes.
const maxNoteFiles = 200

// ReleaseNotes is the body of a GitHub release: the pull request's title as a heading, its
// description, and the package's changed files.
func ReleaseNotes(title, description string, changed []string) string {
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "## %s\n\n", title)
	}
	if d := strings.TrimSpace(strings.ReplaceAll(description, "\r\n", "\n")); d != "" {
		b.WriteString(d)
		b.WriteString("\n\n")
	}
	if len(changed) > 0 {
		files := append([]string(nil), changed...)
		sort.Strings(files)
		b.WriteString("### Changed files\n\n")
		for i, f := range files {
			if i == maxNoteFiles {
				fmt.Fprintf(&b, "- … and %d more\n", len(files)-maxNoteFiles)
				break
			}
			fmt.Fprintf(&b, "- `%s`\n", strings.ReplaceAll(f, "`", "'"))
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
