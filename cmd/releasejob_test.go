package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/release"
)

// The pack every release job test releases: an AgentOS tool pack with its built entry
// committed, so that guard can load it without a build step.
const (
	jobPack    = "@demo/agentos-ext-hello"
	jobPackDir = "registry/curated/tools/hello"
	jobTitle   = "fix: greet politely (#7)"
)

func jobPackFiles(version, greeting string) map[string]string {
	return map[string]string{
		jobPackDir + "/package.json": `{"name": "` + jobPack + `", "version": "` + version + `", "type": "module", "main": "./dist/index.js",
 "exports": {".": {"import": "./dist/index.js"}, "./manifest.json": "./manifest.json"},
 "files": ["dist", "manifest.json", "CHANGELOG.md"], "license": "Apache-2.0", "publishConfig": {"access": "public"}}
`,
		jobPackDir + "/manifest.json": `{"id": "com.demo.hello", "name": "hello", "version": "` + version + `",
 "extensions": [{"kind": "tool", "id": "hello", "entry": "./dist/index.js"}]}
`,
		jobPackDir + "/dist/index.js": `const hello = {
  id: 'hello', name: 'hello', displayName: 'Hello', description: 'Says hello.',
  inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
  async execute(args) { return { success: true, output: '` + greeting + ` ' + args.who }; },
};
export function createExtensionPack() {
  return { name: '` + jobPack + `', descriptors: [{ id: 'hello', kind: 'tool', payload: hello }] };
}
`,
	}
}

// releaseJob is a repository whose last merge releases the pack: a bare remote (origin), a
// real Verdaccio holding the pack's earlier version 0.1.0 (tagged at the merge's parent), and a
// fake GitHub (the only fake: GitHub's API cannot be run here).
type releaseJob struct {
	reg    *testenv.Registry
	gh     *testenv.FakeGitHub
	remote string
	head   string // the merge commit the job releases
	base   string
	env    []string // the job's environment: npm to Verdaccio, GitHub's token and API
	runs   int
}

// newReleaseJob makes the repository; beforeMerge, when set, changes the working tree of the
// base before the merge (its changes are committed with the base).
func newReleaseJob(t *testing.T, beforeMerge func(j *releaseJob, work string)) *releaseJob {
	t.Helper()
	j := &releaseJob{reg: testenv.Verdaccio(t), gh: testenv.GitHub(t, "acme/packs")}
	j.env = append(j.reg.NPMEnv(),
		"GITHUB_TOKEN="+j.gh.Token, "GITHUB_API_URL="+j.gh.URL, "GITHUB_REPOSITORY=acme/packs",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	root := t.TempDir()
	j.remote = filepath.Join(root, "remote.git")
	testenv.Git(t, root, "init", "-q", "--bare", "-b", "main", j.remote)
	work := filepath.Join(root, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.GitInit(t, work)
	files := jobPackFiles("0.1.0", "hello")
	files["package.json"] = `{"name": "demo-extensions", "private": true, "workspaces": ["registry/curated/*/*"]}` + "\n"
	files[".gitignore"] = "node_modules/\n.plaios/\n"
	testenv.WriteFiles(t, work, files)
	if beforeMerge != nil {
		beforeMerge(j, work)
	}
	testenv.Git(t, work, "add", "-A")
	testenv.Git(t, work, "commit", "-q", "-m", "feat: hello pack (#6)")
	j.base = testenv.Git(t, work, "rev-parse", "HEAD")
	j.reg.Publish(t, filepath.Join(work, jobPackDir))
	testenv.Git(t, work, "tag", release.Tag(jobPack, "0.1.0"))
	// The merged pull request, squashed as GitHub writes it.
	testenv.WriteFiles(t, work, jobPackFiles("0.1.0", "good day"))
	testenv.Git(t, work, "add", "-A")
	testenv.Git(t, work, "commit", "-q", "-m", jobTitle, "-m", "Says good day instead.")
	j.head = testenv.Git(t, work, "rev-parse", "HEAD")
	testenv.Git(t, work, "push", "-q", "--tags", j.remote, "main")
	return j
}

// step is one command of a job run.
type step struct {
	code           int
	stdout, stderr string
}

// run is one run of the release job as the workflow runs it, in a fresh clone of the remote
// (a CI checkout with the tags): release-plan --write, guard --plan --out, publish. It stops
// at the first step that fails, and returns every step's result.
func (j *releaseJob) run(t *testing.T, env []string, files map[string]string, publishArgs ...string) []step {
	t.Helper()
	j.runs++
	dir := filepath.Join(t.TempDir(), fmt.Sprintf("job%d", j.runs))
	testenv.Git(t, filepath.Dir(dir), "clone", "-q", j.remote, dir)
	testenv.WriteFiles(t, dir, files)
	if env == nil {
		env = j.env
	}
	env = append(append([]string{}, env...), "TMPDIR="+t.TempDir())
	cmds := [][]string{
		{"release-plan", "--out", "plan.json", "--write"},
		{"guard", "--plan", "plan.json", "--out", ".plaios/packs", "--registry", j.reg.URL},
		append([]string{"publish", "--plan", "plan.json", "--packs", ".plaios/packs", "--registry", j.reg.URL}, publishArgs...),
	}
	var out []step
	for _, args := range cmds {
		c := startPlaios(t, dir, env, args...)
		s := step{code: c.wait(t), stdout: c.stdout.String(), stderr: c.stderr.String()}
		out = append(out, s)
		if s.code != 0 {
			break
		}
	}
	return out
}

// packument reads the pack's full document: version → gitHead.
func (j *releaseJob) packument(t *testing.T) map[string]string {
	t.Helper()
	return gitHeads(t, j.reg, jobPack)
}

// remoteTags lists the remote's tags with their commits.
func (j *releaseJob) remoteTags(t *testing.T) map[string]string {
	t.Helper()
	tags := map[string]string{}
	for _, line := range strings.Split(testenv.Git(t, j.remote, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/tags"), "\n") {
		if name, id, ok := strings.Cut(line, " "); ok {
			tags[name] = id
		}
	}
	return tags
}

// checkReleasedOnce checks the end state every test wants: 0.1.1 published once from the head,
// its tag at the head, and one published GitHub release whose notes are its changelog entry.
func (j *releaseJob) checkReleasedOnce(t *testing.T) {
	t.Helper()
	if got := j.packument(t); len(got) != 2 || got["0.1.1"] != j.head {
		t.Errorf("registry versions (→ gitHead) = %v, want 0.1.0 and 0.1.1 published from %s", got, j.head)
	}
	want := map[string]string{release.Tag(jobPack, "0.1.0"): j.base, release.Tag(jobPack, "0.1.1"): j.head}
	if got := j.remoteTags(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("remote tags = %v, want %v", got, want)
	}
	rels := j.gh.Releases("acme/packs")
	if len(rels) != 1 || rels[0].TagName != release.Tag(jobPack, "0.1.1") || rels[0].Draft || rels[0].Body == nil {
		t.Fatalf("GitHub releases = %+v, want one published release of 0.1.1", rels)
	}
	wantNotes := "## 0.1.1\n\n### Patch Changes\n\n- " + jobTitle + "\n"
	if *rels[0].Body != wantNotes {
		t.Errorf("release notes = %q, want the changelog entry %q", *rels[0].Body, wantNotes)
	}
}

func (s step) String() string { return fmt.Sprintf("exit %d\n%s%s", s.code, s.stdout, s.stderr) }

func planOf(t *testing.T, s step) *release.Plan {
	t.Helper()
	// release-plan's text output is the first step's stdout; read plan.json's releases from
	// its first line instead of the file (the clone is gone with its job).
	var p release.Plan
	lines := strings.Split(s.stdout, "\n")
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 5 && f[0] == jobPack {
			p.Releases = append(p.Releases, release.Release{Name: f[0], Next: f[4], Released: strings.Contains(l, "released from this commit")})
		}
	}
	return &p
}

// TestReleaseJobTwiceOnOneMerge runs the whole job twice on the same merge: the first releases
// 0.1.1 (registry, tag, GitHub release, CHANGELOG entry); the second exits 0 and adds nothing —
// release-plan plans 0.1.1 again as released, publish skips it everywhere.
func TestReleaseJobTwiceOnOneMerge(t *testing.T) {
	testenv.SkipShort(t, "runs the release job against Verdaccio")
	j := newReleaseJob(t, nil)
	first := j.run(t, nil, nil)
	if len(first) != 3 || first[2].code != 0 {
		t.Fatalf("first run: %v", first)
	}
	if p := planOf(t, first[0]); len(p.Releases) != 1 || p.Releases[0].Next != "0.1.1" || p.Releases[0].Released {
		t.Fatalf("first plan: %s", first[0])
	}
	if !strings.Contains(first[0].stdout, "wrote "+jobPackDir+"/CHANGELOG.md") || !strings.Contains(first[0].stdout, "    - "+jobTitle) {
		t.Errorf("release-plan --write must write and show the changelog entry:\n%s", first[0])
	}
	j.checkReleasedOnce(t)
	posts := j.gh.Count("POST", "/repos/acme/packs/releases")
	t.Logf("first run:\n%s\n%s\n%s", first[0], first[1], first[2])

	second := j.run(t, nil, nil)
	if len(second) != 3 || second[2].code != 0 {
		t.Fatalf("second run: %v", second)
	}
	if p := planOf(t, second[0]); len(p.Releases) != 1 || p.Releases[0].Next != "0.1.1" || !p.Releases[0].Released {
		t.Fatalf("the second plan must plan 0.1.1 again, released:\n%s", second[0])
	}
	if !strings.Contains(second[2].stdout, "skipped "+jobPack+"@0.1.1: already on the registry with the same integrity") ||
		!strings.Contains(second[2].stdout, "published 0, skipped 1, failed 0") || strings.Contains(second[2].stdout, "tagged ") || strings.Contains(second[2].stdout, "released ") {
		t.Errorf("the second publish must add nothing:\n%s", second[2])
	}
	t.Logf("second run:\n%s\n%s\n%s", second[0], second[1], second[2])
	if j.gh.Count("POST", "/repos/acme/packs/releases") != posts {
		t.Error("the second run created a GitHub release")
	}
	j.checkReleasedOnce(t)
}

// TestReleaseJobAfterARefusedTagPush: the remote's pre-receive hook refuses the tag push of the
// first run (npm publish has happened); the run fails, and running the job again finishes it
// with the same version — found through the packument's gitHead, since there is no tag.
func TestReleaseJobAfterARefusedTagPush(t *testing.T) {
	testenv.SkipShort(t, "runs the release job against Verdaccio")
	j := newReleaseJob(t, nil)
	marker := filepath.Join(t.TempDir(), "refused")
	hook := fmt.Sprintf("#!/bin/sh\nif [ ! -e %q ]; then\n  touch %q\n  echo 'tags are frozen during the audit' >&2\n  exit 1\nfi\n", marker, marker)
	if err := os.WriteFile(filepath.Join(j.remote, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	first := j.run(t, nil, nil)
	if len(first) != 3 || first[2].code != 1 || !strings.Contains(first[2].stdout, "tags are frozen during the audit") {
		t.Fatalf("the first publish must fail on the push with exit 1: %v", first)
	}
	if got := j.packument(t); got["0.1.1"] != j.head {
		t.Fatalf("0.1.1 must be on the registry from the head: %v", got)
	}
	if _, ok := j.remoteTags(t)[release.Tag(jobPack, "0.1.1")]; ok || len(j.gh.Releases("acme/packs")) != 0 {
		t.Fatal("the refused run left a tag or a release")
	}

	second := j.run(t, nil, nil)
	if len(second) != 3 || second[2].code != 0 {
		t.Fatalf("second run: %v", second)
	}
	if p := planOf(t, second[0]); len(p.Releases) != 1 || p.Releases[0].Next != "0.1.1" || !p.Releases[0].Released {
		t.Fatalf("the second plan must finish 0.1.1, not plan 0.1.2:\n%s", second[0])
	}
	if !strings.Contains(second[2].stdout, "tagged "+jobPack+"@0.1.1") || !strings.Contains(second[2].stdout, "released "+jobPack+"@0.1.1") {
		t.Errorf("the second publish must tag and release:\n%s", second[2])
	}
	j.checkReleasedOnce(t)
}

// TestReleaseJobAfterGitHub502: GitHub answers 502 to every try of the release step of the
// first run (registry and tag done, exit 3); running the job again creates only the release.
func TestReleaseJobAfterGitHub502(t *testing.T) {
	testenv.SkipShort(t, "runs the release job against Verdaccio")
	j := newReleaseJob(t, nil)
	j.gh.Inject(testenv.Fault{Method: "POST", Path: "/releases", Status: 502, Times: 4})
	first := j.run(t, nil, nil)
	if len(first) != 3 || first[2].code != 3 || !strings.Contains(first[2].stdout, "502") {
		t.Fatalf("the first publish must fail on GitHub with exit 3: %v", first)
	}
	if j.remoteTags(t)[release.Tag(jobPack, "0.1.1")] != j.head || len(j.gh.Releases("acme/packs")) != 0 {
		t.Fatalf("want the tag pushed and no release: %v %+v", j.remoteTags(t), j.gh.Releases("acme/packs"))
	}
	second := j.run(t, nil, nil)
	if len(second) != 3 || second[2].code != 0 {
		t.Fatalf("second run: %v", second)
	}
	if p := planOf(t, second[0]); len(p.Releases) != 1 || p.Releases[0].Next != "0.1.1" || !p.Releases[0].Released {
		t.Fatalf("the second plan must plan 0.1.1 again:\n%s", second[0])
	}
	if strings.Contains(second[2].stdout, "tagged ") || !strings.Contains(second[2].stdout, "released "+jobPack+"@0.1.1") {
		t.Errorf("the second publish must only release:\n%s", second[2])
	}
	j.checkReleasedOnce(t)
}

// TestReleaseJobWithoutGitHub publishes and tags with no GitHub remote and no token, with
// --github-releases=false and with github.releases: false in .plaios.yaml; with releases on,
// GitHub unusable stops publish before anything is published, naming both ways out.
func TestReleaseJobWithoutGitHub(t *testing.T) {
	testenv.SkipShort(t, "runs the release job against Verdaccio")
	j := newReleaseJob(t, nil)
	var env []string
	for _, kv := range j.env {
		if !strings.HasPrefix(kv, "GITHUB_") {
			env = append(env, kv)
		}
	}
	// Releases on, no GitHub repository to be found: exit 2, nothing published.
	noRepo := j.run(t, env, nil)
	if len(noRepo) != 3 || noRepo[2].code != 2 || !strings.Contains(noRepo[2].stderr, "give --github-repo OWNER/NAME (or github.repo in .plaios.yaml), or publish and tag without GitHub releases with --github-releases=false (github.releases: false)") {
		t.Fatalf("want exit 2 naming both ways out: %v", noRepo)
	}
	// A repository, but no token: exit 3.
	noToken := j.run(t, append(env, "GITHUB_REPOSITORY=acme/packs"), nil)
	if len(noToken) != 3 || noToken[2].code != 3 || !strings.Contains(noToken[2].stderr, "publish needs GITHUB_TOKEN") || !strings.Contains(noToken[2].stderr, "--github-releases=false") {
		t.Fatalf("want exit 3 naming both ways out: %v", noToken)
	}
	if got := j.packument(t); len(got) != 1 {
		t.Fatalf("nothing may be published before GitHub is usable: %v", got)
	}

	// github.releases: false in the checkout's .plaios.yaml: published and tagged.
	cfg := j.run(t, env, map[string]string{".plaios.yaml": "github:\n  releases: false\n"})
	if len(cfg) != 3 || cfg[2].code != 0 || !strings.Contains(cfg[2].stdout, "published "+jobPack+"@0.1.1") || !strings.Contains(cfg[2].stdout, "tagged "+jobPack+"@0.1.1") {
		t.Fatalf("github.releases: false: %v", cfg)
	}
	if j.remoteTags(t)[release.Tag(jobPack, "0.1.1")] != j.head || len(j.gh.Requests()) != 0 {
		t.Errorf("want the tag and no GitHub request: %v %v", j.remoteTags(t), j.gh.Requests())
	}
	// --github-releases=false: the same merge again finds everything done.
	off := j.run(t, env, nil, "--github-releases=false")
	if len(off) != 3 || off[2].code != 0 || !strings.Contains(off[2].stdout, "published 0, skipped 1, failed 0") || strings.Contains(off[2].stdout, "tagged ") {
		t.Fatalf("--github-releases=false: %v", off)
	}
	if got := j.packument(t); len(got) != 2 || len(j.gh.Requests()) != 0 {
		t.Errorf("versions %v, GitHub requests %v", got, j.gh.Requests())
	}
}
