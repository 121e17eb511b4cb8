package publish_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/publish"
	"github.com/plaios/plaios/internal/publish/publishtest"
	"github.com/plaios/plaios/internal/testenv"
)

const repo = "acme/packs"

// events collects a run's events.
type events struct {
	mu  sync.Mutex
	all []publish.Event
}

func (e *events) add(ev publish.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

// count returns how many events of a kind had a status.
func (e *events) count(kind, status string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.all {
		if ev.Event == kind && ev.Status == status {
			n++
		}
	}
	return n
}

func (e *events) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, ev := range e.all {
		b.WriteString(ev.Event + " " + ev.Tag + " " + ev.Status + " " + ev.Reason + ev.Message + "\n")
	}
	return b.String()
}

// options are a run's options against the test registry and the fake GitHub.
func options(f *publishtest.Fixture, reg *testenv.Registry, gh *testenv.FakeGitHub, ev *events) publish.Options {
	env := append(reg.NPMEnv(), "GITHUB_TOKEN="+gh.Token, "GITHUB_API_URL="+gh.URL)
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return publish.Options{
		Dir: f.Dir, Plan: "plan.json", Packs: f.Packs, Registry: reg.URL, GitHubRepo: repo,
		Getenv: func(k string) string { return vars[k] }, Env: env,
		Backoff: 20 * time.Millisecond, ConfirmTimeout: 5 * time.Second,
		Events: ev.add,
	}
}

func run(t *testing.T, opts publish.Options) *publish.Result {
	t.Helper()
	res, err := publish.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	return res
}

func counts(t *testing.T, res *publish.Result, published, skipped, failed int) {
	t.Helper()
	p, s, f := res.Counts()
	if p != published || s != skipped || f != failed {
		var reasons []string
		for _, o := range res.Failures() {
			reasons = append(reasons, o.Tag+": "+o.Reason)
		}
		t.Fatalf("published %d, skipped %d, failed %d; want %d, %d, %d\n%s", p, s, f, published, skipped, failed, strings.Join(reasons, "\n"))
	}
}

// assertDone checks the end state of a finished job: every version on the registry with the
// tarball's integrity and no other version, every tag on the remote at the head, and exactly
// one published GitHub release per tag with the pull request's notes.
func assertDone(t *testing.T, f *publishtest.Fixture, reg *testenv.Registry, gh *testenv.FakeGitHub) {
	t.Helper()
	for _, p := range f.Packages {
		versions := publishtest.Versions(t, reg.URL, p.Name)
		if len(versions) != 1 || versions[p.Version] != publishtest.Integrity(t, p.Tarball) {
			t.Errorf("%s on the registry: %v, want only %s with the tarball's integrity", p.Name, versions, p.Version)
		}
	}
	tags := f.RemoteTags()
	for _, tag := range f.Tags() {
		if tags[tag] != f.Head {
			t.Errorf("remote tag %s at %q, want the head %s", tag, tags[tag], f.Head)
		}
	}
	if len(tags) != len(f.Packages) {
		t.Errorf("remote tags %v, want exactly the %d release tags", tags, len(f.Packages))
	}
	byTag := map[string][]testenv.GitHubRelease{}
	for _, rel := range gh.Releases(repo) {
		byTag[rel.TagName] = append(byTag[rel.TagName], rel)
	}
	for i, tag := range f.Tags() {
		rels := byTag[tag]
		if len(rels) != 1 {
			t.Errorf("%d GitHub releases for %s, want 1", len(rels), tag)
			continue
		}
		rel := rels[0]
		if rel.Draft || rel.PublishedAt == nil {
			t.Errorf("the GitHub release %s is still a draft", tag)
		}
		if rel.Name == nil || *rel.Name != tag || rel.TargetCommitish != f.Head {
			t.Errorf("the GitHub release %s: name %v, target %s", tag, rel.Name, rel.TargetCommitish)
		}
		if rel.Body == nil || !strings.Contains(*rel.Body, "## "+publishtest.Title) || !strings.Contains(*rel.Body, "Closes #42.") ||
			!strings.Contains(*rel.Body, "`"+f.Packages[i].Dir+"/index.js`") {
			t.Errorf("the GitHub release %s has the notes %q", tag, deref(rel.Body))
		}
	}
}

// publishTarball publishes a tarball with npm, as someone else would have.
func publishTarball(t *testing.T, reg *testenv.Registry, file string) {
	t.Helper()
	testenv.Run(t, filepath.Dir(file), reg.NPMEnv(), "npm", "publish", file, "--registry", reg.URL, "--access", "public")
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestPublish runs the whole job against a real Verdaccio, real npm, real git with a bare
// remote, and the fake GitHub, with the faults the issue names, each followed by a plain
// re-run that must finish the job with no duplicate version, tag or release.
func TestPublish(t *testing.T) {
	testenv.SkipShort(t, "publishes to a Verdaccio with npm")
	reg := testenv.SharedVerdaccio(t)
	// The cases are independent (a scope each, a fake GitHub each): they run side by side.

	t.Run("five releases, then a re-run that repeats nothing", func(t *testing.T) {
		t.Parallel()
		f := publishtest.New(t, publishtest.Options{Scope: "five", Chain: true})
		gh := testenv.GitHub(t, repo)
		gh.PerPageMax = 2 // the releases are found across pages
		for i := range 3 {
			gh.AddRelease(repo, fmt.Sprintf("@other/thing@1.0.%d", i), "main", "other", "", false)
		}
		// A draft an earlier attempt left for the third release: published, not duplicated.
		draft := gh.AddRelease(repo, f.Tags()[2], f.Head, f.Tags()[2], "## "+publishtest.Title+"\n\nCloses #42.\n\n- `"+f.Packages[2].Dir+"/index.js`\n", true)
		ev := &events{}
		res := run(t, options(f, reg, gh, ev))
		counts(t, res, 5, 0, 0)
		if err := res.Err(); err != nil {
			t.Fatalf("Err: %v", err)
		}
		assertDone(t, f, reg, gh)
		if n := gh.Count("POST", "/releases"); n != 4 {
			t.Errorf("%d releases created, want 4 (the fifth was a draft already)", n)
		}
		for _, rel := range gh.Releases(repo) {
			if rel.TagName == f.Tags()[2] && rel.ID != draft.ID {
				t.Errorf("the draft %d was not the release published for %s (%d)", draft.ID, rel.TagName, rel.ID)
			}
		}
		if ev.count("registry", publish.StatusPublished) != 5 || ev.count("tag", publish.StatusPushed) != 5 || ev.count("push", publish.StatusPushed) != 1 ||
			ev.count("release", publish.StatusCreated) != 4 || ev.count("release", publish.StatusPublished) != 1 {
			t.Errorf("events:\n%s", ev)
		}
		for _, o := range res.Releases {
			if !strings.HasPrefix(o.URL, "https://github.com/"+repo+"/releases/tag/") {
				t.Errorf("%s: release URL %q", o.Tag, o.URL)
			}
		}

		writes := gh.Count("POST", "") + gh.Count("PATCH", "")
		ev = &events{}
		res = run(t, options(f, reg, gh, ev))
		counts(t, res, 0, 5, 0)
		if got := gh.Count("POST", "") + gh.Count("PATCH", ""); got != writes {
			t.Errorf("the re-run wrote to GitHub %d times", got-writes)
		}
		if ev.count("tag", publish.StatusExists) != 5 || ev.count("release", publish.StatusExists) != 5 || ev.count("push", publish.StatusPushed) != 0 {
			t.Errorf("re-run events:\n%s", ev)
		}
		assertDone(t, f, reg, gh)
	})

	t.Run("the git push is rejected once", func(t *testing.T) {
		t.Parallel()
		f := publishtest.New(t, publishtest.Options{Scope: "push"})
		f.RejectPushesOnce()
		gh := testenv.GitHub(t, repo)
		ev := &events{}
		res := run(t, options(f, reg, gh, ev))
		counts(t, res, 0, 0, 5)
		if code := exit.Code(res.Err()); code != exit.Fail {
			t.Errorf("exit %d, want 1 (a rejection is not the network)", code)
		}
		for _, o := range res.Failures() {
			if o.Registry != publish.StatusPublished || !strings.Contains(o.Reason, "tags are frozen for a moment") {
				t.Errorf("%s: registry %s, reason %q", o.Tag, o.Registry, o.Reason)
			}
		}
		if len(f.RemoteTags()) != 0 || len(gh.Releases(repo)) != 0 {
			t.Fatalf("after a rejected push: tags %v, %d releases", f.RemoteTags(), len(gh.Releases(repo)))
		}
		res = run(t, options(f, reg, gh, &events{}))
		counts(t, res, 0, 5, 0)
		assertDone(t, f, reg, gh)
	})

	t.Run("GitHub answers 502 twice, loses an answer, then succeeds", func(t *testing.T) {
		t.Parallel()
		f := publishtest.New(t, publishtest.Options{Scope: "gh502"})
		gh := testenv.GitHub(t, repo)
		gh.Inject(testenv.Fault{Method: "POST", Path: "/releases", Status: 502, Times: 2})
		// The third create is carried out, and its answer lost: listing again finds it.
		gh.Inject(testenv.Fault{Method: "POST", Path: "/releases", Status: 502, After: true})
		gh.Inject(testenv.Fault{Method: "PATCH", Path: "/releases/", Reset: true})
		ev := &events{}
		res := run(t, options(f, reg, gh, ev))
		counts(t, res, 5, 0, 0)
		if gh.PendingFaults() != 0 {
			t.Errorf("%d faults never happened", gh.PendingFaults())
		}
		assertDone(t, f, reg, gh)
		res = run(t, options(f, reg, gh, &events{}))
		counts(t, res, 0, 5, 0)
		assertDone(t, f, reg, gh)
	})

	t.Run("a tarball changed after guard is refused", func(t *testing.T) {
		t.Parallel()
		f := publishtest.New(t, publishtest.Options{Scope: "changed", Count: 3})
		f.ChangeTarball(1)
		gh := testenv.GitHub(t, repo)
		_, err := publish.Run(context.Background(), options(f, reg, gh, &events{}))
		if err == nil || exit.Code(err) != exit.Fail || !strings.Contains(err.Error(), "the tarball of @changed/pack-2@1.0.0 changed after guard tested it") {
			t.Fatalf("err = %v (exit %d)", err, exit.Code(err))
		}
		for _, p := range f.Packages {
			if v := publishtest.Versions(t, reg.URL, p.Name); len(v) != 0 {
				t.Errorf("%s was published: %v", p.Name, v)
			}
		}
		if len(f.RemoteTags()) != 0 || len(f.LocalTags()) != 0 || len(gh.Requests()) != 0 {
			t.Errorf("a refused run touched git or GitHub: %v %v %v", f.RemoteTags(), f.LocalTags(), gh.Requests())
		}
	})

	t.Run("a version already published with other content fails loudly", func(t *testing.T) {
		t.Parallel()
		f := publishtest.New(t, publishtest.Options{Scope: "other", Count: 3, Chain: true})
		reg.Publish(t, f.OtherContent(0))
		before := publishtest.Versions(t, reg.URL, f.Packages[0].Name)
		gh := testenv.GitHub(t, repo)
		res := run(t, options(f, reg, gh, &events{}))
		counts(t, res, 0, 0, 3)
		first, second := res.Releases[0], res.Releases[1]
		if !strings.Contains(first.Reason, "the registry already has @other/pack-1@1.0.0 with other content") || !strings.Contains(first.Reason, "never replaced") {
			t.Errorf("first: %q", first.Reason)
		}
		if !strings.Contains(second.Reason, "not published: it depends on @other/pack-1@1.0.0, which failed") {
			t.Errorf("second: %q", second.Reason)
		}
		if code := exit.Code(res.Err()); code != exit.Fail {
			t.Errorf("exit %d, want 1", code)
		}
		if after := publishtest.Versions(t, reg.URL, f.Packages[0].Name); after["1.0.0"] != before["1.0.0"] {
			t.Errorf("the registry's version changed: %v → %v", before, after)
		}
		for _, p := range f.Packages[1:] {
			if v := publishtest.Versions(t, reg.URL, p.Name); len(v) != 0 {
				t.Errorf("%s was published though it depends on a failed release: %v", p.Name, v)
			}
		}
		if len(f.RemoteTags()) != 0 || len(gh.Releases(repo)) != 0 {
			t.Errorf("failed releases were tagged or released")
		}
	})

	t.Run("a version already published with the same content is skipped", func(t *testing.T) {
		t.Parallel()
		f := publishtest.New(t, publishtest.Options{Scope: "same", Count: 2})
		publishTarball(t, reg, f.Packages[0].Tarball)
		gh := testenv.GitHub(t, repo)
		res := run(t, options(f, reg, gh, &events{}))
		counts(t, res, 1, 1, 0)
		assertDone(t, f, reg, gh)
	})

	t.Run("someone else publishes meanwhile: cannot publish over counts once the integrity matches", func(t *testing.T) {
		t.Parallel()
		f := publishtest.New(t, publishtest.Options{Scope: "race", Count: 3})
		gh := testenv.GitHub(t, repo)
		opts := options(f, reg, gh, &events{})
		// After the first release, another job publishes the second with the same tarball and
		// the third with other content: plaios read the registry before either.
		opts.AfterRegistry = func(i int) {
			if i == 0 {
				publishTarball(t, reg, f.Packages[1].Tarball)
				reg.Publish(t, f.OtherContent(2))
			}
		}
		res := run(t, opts)
		counts(t, res, 1, 1, 1)
		if o := res.Releases[1]; o.Registry != publish.StatusSkipped {
			t.Errorf("%s: %s %q", o.Tag, o.Registry, o.Reason)
		}
		if o := res.Releases[2]; !strings.Contains(o.Reason, "the registry already has @race/pack-3@1.0.0 with other content") {
			t.Errorf("%s: %q", o.Tag, o.Reason)
		}
		if tags := f.RemoteTags(); len(tags) != 2 || tags[f.Tags()[2]] != "" {
			t.Errorf("tags %v", tags)
		}
	})

	t.Run("an npm publish that failed but reached the registry is not repeated", func(t *testing.T) {
		t.Parallel()
		f := publishtest.New(t, publishtest.Options{Scope: "lost", Count: 2})
		gh := testenv.GitHub(t, repo)
		opts := options(f, reg, gh, &events{})
		// npm publishes, then reports a timeout, once: the next try reads the registry first.
		marker := filepath.Join(t.TempDir(), "failed-once")
		npm := filepath.Join(t.TempDir(), "npm")
		calls := filepath.Join(t.TempDir(), "calls")
		script := "#!/bin/sh\necho call >> " + calls + "\nif [ ! -e " + marker + " ]; then\n  touch " + marker + "\n  " + testenv.LookPath(t, "npm") +
			" \"$@\" >/dev/null 2>&1\n  echo '{\"error\":{\"code\":\"ETIMEDOUT\",\"summary\":\"network timeout at: " + reg.URL + "\"}}'\n  exit 1\nfi\nexec " +
			testenv.LookPath(t, "npm") + " \"$@\"\n"
		if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		opts.NPM = npm
		res := run(t, opts)
		counts(t, res, 2, 0, 0)
		assertDone(t, f, reg, gh)
		if data, err := os.ReadFile(calls); err != nil || strings.Count(string(data), "call") != 2 {
			t.Errorf("npm ran %d times, want 2 (no second publish of the first release): %v", strings.Count(string(data), "call"), err)
		}
	})

	t.Run("a tag at another commit is an error, found before publishing", func(t *testing.T) {
		t.Parallel()
		f := publishtest.New(t, publishtest.Options{Scope: "tagged", Count: 3})
		testenv.Git(t, f.Dir, "tag", f.Tags()[1], f.Initial)
		testenv.Git(t, f.Dir, "push", "-q", "origin", "refs/tags/"+f.Tags()[1])
		gh := testenv.GitHub(t, repo)
		res := run(t, options(f, reg, gh, &events{}))
		counts(t, res, 2, 0, 1)
		o := res.Releases[1]
		if !strings.Contains(o.Reason, "already exists on origin at "+f.Initial[:12]) || o.Registry != "" {
			t.Errorf("%s: registry %q, reason %q", o.Tag, o.Registry, o.Reason)
		}
		if v := publishtest.Versions(t, reg.URL, f.Packages[1].Name); len(v) != 0 {
			t.Errorf("the release with a misplaced tag was published: %v", v)
		}
		if tags := f.RemoteTags(); tags[f.Tags()[1]] != f.Initial || tags[f.Tags()[0]] != f.Head || tags[f.Tags()[2]] != f.Head {
			t.Errorf("remote tags %v", tags)
		}
	})

	t.Run("--dry-run reads everything and changes nothing", func(t *testing.T) {
		t.Parallel()
		f := publishtest.New(t, publishtest.Options{Scope: "dry", Count: 3})
		publishTarball(t, reg, f.Packages[0].Tarball)
		gh := testenv.GitHub(t, repo)
		opts := options(f, reg, gh, &events{})
		ev := &events{}
		opts.Events, opts.DryRun = ev.add, true
		res := run(t, opts)
		counts(t, res, 2, 1, 0)
		if ev.count("registry", publish.StatusWouldPublish) != 2 || ev.count("registry", publish.StatusSkipped) != 1 ||
			ev.count("tag", publish.StatusWouldPush) != 3 || ev.count("push", publish.StatusWouldPush) != 1 || ev.count("release", publish.StatusWouldCreate) != 3 {
			t.Errorf("dry-run events:\n%s", ev)
		}
		for _, p := range f.Packages[1:] {
			if v := publishtest.Versions(t, reg.URL, p.Name); len(v) != 0 {
				t.Errorf("--dry-run published %s: %v", p.Name, v)
			}
		}
		if len(f.RemoteTags()) != 0 || len(f.LocalTags()) != 0 {
			t.Errorf("--dry-run tagged: remote %v, local %v", f.RemoteTags(), f.LocalTags())
		}
		if gh.Count("POST", "") != 0 || gh.Count("PATCH", "") != 0 || len(gh.Releases(repo)) != 0 {
			t.Errorf("--dry-run wrote to GitHub: %v", gh.Requests())
		}
		if gh.Count("GET", "/releases") == 0 {
			t.Errorf("--dry-run did not read the GitHub releases")
		}
	})
}

// TestPublishRegistryKilled kills the registry after the second publish: the run stops
// publishing, exits 3, still tags and releases the two versions that are out, and a re-run
// against the registry back on its feet finishes the rest.
func TestPublishRegistryKilled(t *testing.T) {
	testenv.SkipShort(t, "publishes to a Verdaccio with npm")
	reg := testenv.Verdaccio(t)
	f := publishtest.New(t, publishtest.Options{Scope: "killed"})
	gh := testenv.GitHub(t, repo)
	opts := options(f, reg, gh, &events{})
	opts.AfterRegistry = func(i int) {
		if i == 1 {
			reg.Stop()
		}
	}
	res := run(t, opts)
	counts(t, res, 2, 0, 3)
	if code := exit.Code(res.Err()); code != exit.Env {
		t.Errorf("exit %d, want 3 (the registry is unreachable)", code)
	}
	for _, o := range res.Failures() {
		if !strings.Contains(o.Reason, "could not") && !strings.Contains(o.Reason, "stopped") {
			t.Errorf("%s: %q", o.Tag, o.Reason)
		}
	}
	tags := f.RemoteTags()
	if len(tags) != 2 || tags[f.Tags()[0]] != f.Head || tags[f.Tags()[1]] != f.Head {
		t.Errorf("after the registry died: tags %v, want the two published", tags)
	}
	if n := len(gh.Releases(repo)); n != 2 {
		t.Errorf("%d GitHub releases, want the two published", n)
	}

	publishtest.RestartVerdaccio(t, reg)
	opts = options(f, reg, gh, &events{})
	res = run(t, opts)
	counts(t, res, 3, 2, 0)
	assertDone(t, f, reg, gh)
}
