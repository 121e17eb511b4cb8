package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/catalog"
	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/npm/registry/registrytest"
	"github.com/plaios/plaios/internal/semver"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/release"
	"github.com/plaios/plaios/release/releaseplan/plantest"
)

// planRun holds one run of the command through its Options.
type planRun struct {
	opts     *ReleasePlanOptions
	out, err *bytes.Buffer
}

// newPlanRun prepares release-plan in dir against registryURL, with env as the whole
// environment (no HOME: no user .npmrc).
func newPlanRun(dir, registryURL string, env map[string]string) *planRun {
	out, errb := &bytes.Buffer{}, &bytes.Buffer{}
	if env == nil {
		env = map[string]string{}
	}
	return &planRun{out: out, err: errb, opts: &ReleasePlanOptions{
		IO:         &IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errb},
		Dir:        func() (string, error) { return dir, nil },
		Config:     func() (*config.Config, error) { return &config.Config{Jobs: 4, Registry: registryURL}, nil },
		HTTPClient: func() (*http.Client, error) { return &http.Client{Timeout: 10 * time.Second}, nil },
		Getenv:     func(k string) string { return env[k] },
		Format:     "json",
	}}
}

// run executes the command and decodes the plan it printed (nil when it printed none).
func (r *planRun) run(t *testing.T) (*release.Plan, error) {
	t.Helper()
	err := RunReleasePlan(context.Background(), r.opts)
	if r.opts.Format != "json" || r.out.Len() == 0 {
		return nil, err
	}
	var p release.Plan
	if jerr := json.Unmarshal(r.out.Bytes(), &p); jerr != nil {
		t.Fatalf("stdout is not a plan: %v\n%s", jerr, r.out)
	}
	return &p, err
}

// row is one line of RELEASE.md's worked examples.
type row struct {
	name    string
	last    string   // the version published before the pull request ("" none)
	tags    []string // versions tagged <name>@<version> at the base
	title   string
	body    string
	change  string // "yes": a shipped file; "no": nothing but the version; "test": only test/
	written string // the version the pull request writes into package.json
	private bool
	want    string // the next version; "" when nothing is released or it is refused
	refused string // a text the refusal must hold
	warning string // a text the warning must hold
	// again is how the first run of the same merge left want behind: "tag" (published, and
	// tagged at the head) or "gitHead" (published by npm from the head's checkout, no tag).
	again string
}

var worked = []row{
	{name: "0.3.1 fix", last: "0.3.1", title: "fix: retry on 429", change: "yes", want: "0.3.2"},
	{name: "0.3.1 feat! title", last: "0.3.1", title: "feat!: drop v1 api", change: "yes", want: "0.4.0"},
	{name: "0.3.1 BREAKING CHANGE line", last: "0.3.1", title: "feat: x", body: "Some words.\n\nBREAKING CHANGE: y", change: "yes", want: "0.4.0"},
	{name: "0.3.1 BREAKING CHANGE in a comment", last: "0.3.1", title: "feat: x", body: "<!-- BREAKING CHANGE: describe -->", change: "yes", want: "0.3.2"},
	{name: "0.3.1 feat! writes 1.0.0", last: "0.3.1", title: "feat!: x", change: "yes", written: "1.0.0", want: "1.0.0"},
	{name: "1.4.2 breaking without a major", last: "1.4.2", title: "feat(api)!: rename", change: "yes", refused: "write 2.0.0"},
	{name: "1.4.2 breaking writes 2.0.0", last: "1.4.2", title: "feat!: x", change: "yes", written: "2.0.0", want: "2.0.0"},
	{name: "1.4.2 breaking writes 1.5.0", last: "1.4.2", title: "feat!: x", change: "yes", written: "1.5.0", refused: "needs at least 2.0.0"},
	{name: "1.4.2 chore", last: "1.4.2", title: "chore: tidy", change: "yes", want: "1.4.3"},
	{name: "1.4.2 release writes 1.6.0", last: "1.4.2", title: "chore: release", change: "no", written: "1.6.0", want: "1.6.0"},
	{name: "1.4.2 writes 1.4.1", last: "1.4.2", title: "fix: x", change: "no", written: "1.4.1", refused: "package.json says 1.4.1 but 1.4.2 is already published"},
	{name: "new pack", title: "feat: new pack", change: "yes", written: "0.1.0", want: "0.1.0"},
	{name: "1.4.2 only test/", last: "1.4.2", title: "fix: x", change: "test"},
	{name: "1.4.2 private", last: "1.4.2", private: true, title: "fix: x", change: "yes"},
	{name: "1.0.0 with unpublished tag 1.0.1", last: "1.0.0", tags: []string{"1.0.0", "1.0.1"}, title: "fix: x", change: "yes", want: "1.0.2", warning: "@1.0.1 is tagged but not published"},
	{name: "bang after the prefix colon", last: "1.4.2", title: "fix: handle a!: b", change: "yes", want: "1.4.3"},
	{name: "0.1.1 tagged at the head, run again", last: "0.1.0", title: "fix: x", change: "yes", want: "0.1.1", again: "tag"},
	{name: "0.1.1 published from the head, no tag, run again", last: "0.1.0", title: "fix: x", change: "yes", want: "0.1.1", again: "gitHead"},
	{name: "new pack 0.1.0 published from the head, run again", title: "feat: new pack", change: "yes", written: "0.1.0", want: "0.1.0", again: "gitHead"},
}

// publishWithNPM publishes name@version to the registry with the real npm CLI.
func publishWithNPM(t *testing.T, reg *testenv.Registry, name, version string) {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json": plantest.PackageJSON(name, version, map[string]any{"license": "MIT"}),
		"index.js":     "module.exports = " + fmt.Sprintf("%q", version) + ";\n",
	})
	reg.Publish(t, dir)
}

// TestWorkedExamples runs every row of RELEASE.md's worked examples end to end: a real git
// repository, "last" published to a real Verdaccio with npm, tags, a pull request merged with
// --no-ff whose merge commit carries the title and description, and the command's Options.
func TestWorkedExamples(t *testing.T) {
	testenv.SkipShort(t, "publishes with npm to Verdaccio")
	reg := testenv.SharedVerdaccio(t)
	for i, ex := range worked {
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel() // a repository and a package name each; most of the time is npm and git
			name := fmt.Sprintf("@rows/row%02d", i)
			dir := "packages/pkg"
			repo := plantest.NewRepo(t)
			repo.Write(map[string]string{
				"package.json": plantest.PackageJSON("rows", "0.0.0", map[string]any{"private": true, "workspaces": []string{"packages/*"}}),
				"README.md":    "# rows\n",
			})
			pkgJSON := func(version string) string {
				fields := map[string]any{"files": []string{"index.js"}, "license": "MIT"}
				if ex.private {
					fields["private"] = true
				}
				return plantest.PackageJSON(name, version, fields)
			}
			if ex.last != "" {
				publishWithNPM(t, reg, name, ex.last)
				repo.Write(map[string]string{
					dir + "/package.json":       pkgJSON(ex.last),
					dir + "/index.js":           "module.exports = 1;\n",
					dir + "/test/index.test.js": "// test\n",
				})
			}
			base := repo.Commit("initial")
			for _, v := range ex.tags {
				repo.Tag(name+"@"+v, base)
			}
			repo.PullRequest("pr", ex.title, ex.body, func() {
				files := map[string]string{}
				switch ex.change {
				case "yes":
					files[dir+"/index.js"] = "module.exports = 2;\n"
				case "test":
					files[dir+"/test/index.test.js"] = "// more tests\n"
				}
				if ex.written != "" {
					files[dir+"/package.json"] = pkgJSON(ex.written)
				}
				repo.Write(files)
			})
			head := repo.Git("rev-parse", "HEAD")
			switch ex.again {
			case "tag":
				publishWithNPM(t, reg, name, ex.want)
				repo.Tag(name+"@"+ex.want, head)
			case "gitHead":
				// npm publishing from the head's checkout, the version written (not committed).
				repo.Write(map[string]string{dir + "/package.json": pkgJSON(ex.want)})
				reg.Publish(t, filepath.Join(repo.Dir, dir))
				repo.Git("checkout", "--", ".")
				if got := gitHeadOf(t, reg, name, ex.want); got != head {
					t.Fatalf("npm recorded gitHead %q, want the head %s", got, head)
				}
			}

			before := repo.Read("README.md")
			pr := newPlanRun(repo.Dir, reg.URL, nil)
			pr.opts.Write = true
			plan, err := pr.run(t)
			if plan == nil {
				t.Fatalf("no plan printed: %v\n%s", err, pr.err)
			}
			if plan.Title != ex.title {
				t.Errorf("title from the merge commit = %q, want %q", plan.Title, ex.title)
			}
			switch {
			case ex.refused != "":
				if exit.Code(err) != exit.Fail {
					t.Fatalf("a refusal must exit 1, got %v", err)
				}
				if len(plan.Refusals) != 1 || !strings.Contains(plan.Refusals[0].Message, ex.refused) || plan.Refusals[0].Name != name {
					t.Fatalf("refusals = %+v, want one holding %q", plan.Refusals, ex.refused)
				}
				if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), ex.refused) {
					t.Errorf("the error sentence must name the package and the version: %v", err)
				}
				if got := repo.Read(dir + "/package.json"); got != pkgJSON(ex.written+map[bool]string{true: ex.last}[ex.written == ""]) {
					t.Errorf("a refused plan wrote package.json:\n%s", got)
				}
				if st := repo.Git("status", "--porcelain"); st != "" {
					t.Errorf("a refused plan changed the working tree:\n%s", st)
				}
			case ex.want == "":
				if err != nil || len(plan.Releases) != 0 || len(plan.Refusals) != 0 {
					t.Fatalf("want nothing released: %v %+v %+v", err, plan.Releases, plan.Refusals)
				}
			default:
				if err != nil {
					t.Fatalf("run: %v\n%s", err, pr.err)
				}
				if len(plan.Releases) != 1 || plan.Releases[0].Next != ex.want || plan.Releases[0].Name != name {
					t.Fatalf("releases = %+v, want %s", plan.Releases, ex.want)
				}
				r := plan.Releases[0]
				if r.Tag != name+"@"+ex.want || r.Dir != dir {
					t.Errorf("release = %+v", r)
				}
				if (ex.last == "") != (r.Last == nil) || (r.Last != nil && *r.Last != highest(ex.last, ex.tags)) {
					t.Errorf("last = %v, want %q", r.Last, ex.last)
				}
				if got := repo.Read(dir + "/package.json"); got != pkgJSON(ex.want) {
					t.Errorf("--write must change only the version:\n%s\nwant\n%s", got, pkgJSON(ex.want))
				}
				if r.Released != (ex.again != "") {
					t.Errorf("released = %v, want %v", r.Released, ex.again != "")
				}
				if got, want := repo.Read(dir+"/CHANGELOG.md"), "# "+name+"\n\n"+r.Changelog; got != want || !strings.HasPrefix(r.Changelog, "## "+ex.want+"\n\n### ") || !strings.Contains(r.Changelog, "- "+ex.title+"\n") {
					t.Errorf("CHANGELOG.md:\n%s\nwant\n%s", got, want)
				}
			}
			if ex.warning != "" {
				if len(plan.Warnings) != 1 || !strings.Contains(plan.Warnings[0].Message, ex.warning) {
					t.Errorf("warnings = %+v, want one holding %q", plan.Warnings, ex.warning)
				}
			} else if len(plan.Warnings) != 0 {
				t.Errorf("unexpected warnings %+v", plan.Warnings)
			}
			if repo.Read("README.md") != before {
				t.Error("the root README changed")
			}
		})
	}
}

// gitHeadOf reads the gitHead the registry's full packument records for name@version.
func gitHeadOf(t *testing.T, reg *testenv.Registry, name, version string) string {
	t.Helper()
	return gitHeads(t, reg, name)[version]
}

// gitHeads reads the registry's full packument of name: version → the gitHead it records.
func gitHeads(t *testing.T, reg *testenv.Registry, name string) map[string]string {
	t.Helper()
	resp, err := http.Get(reg.URL + strings.Replace(name, "/", "%2f", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Versions map[string]struct {
			GitHead string `json:"gitHead"`
		} `json:"versions"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for v, d := range doc.Versions {
		out[v] = d.GitHead
	}
	return out
}

func highest(last string, tags []string) string {
	h := last
	for _, v := range tags {
		if v > h {
			h = v
		}
	}
	return h
}

// TestWorkedExampleRootCatalog is the table's "root 2.3.0 | any | a pack releases" row: the
// AgentOS root publishes its next patch after the pack, and --write regenerates the catalog.
func TestWorkedExampleRootCatalog(t *testing.T) {
	testenv.SkipShort(t, "publishes with npm to Verdaccio")
	reg := testenv.Verdaccio(t)
	publishWithNPM(t, reg, "@framers/agentos-extensions", "2.3.0")
	publishWithNPM(t, reg, "@framers/agentos-ext-weather", "1.0.0")
	repo := plantest.NewRepo(t)
	repo.Write(plantest.AgentOSRepo(map[string]string{"research/weather": "1.0.0", "media/giphy": "0.1.0"}, "2.3.0"))
	repo.Commit("initial")
	gen, err := catalog.Generate(os.DirFS(repo.Dir), catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	repo.Write(map[string]string{"registry.json": string(gen)})
	repo.Commit("catalog")
	repo.PullRequest("docs", "docs: anything at all", "", func() {
		repo.Write(map[string]string{"registry/curated/research/weather/src/index.ts": "export const v = 2;\n"})
	})
	pr := newPlanRun(repo.Dir, reg.URL, nil)
	pr.opts.Write = true
	plan, err := pr.run(t)
	if err != nil {
		t.Fatalf("%v\n%s", err, pr.err)
	}
	if len(plan.Releases) != 2 {
		t.Fatalf("releases = %+v", plan.Releases)
	}
	root := plan.Releases[1]
	if root.Name != "@framers/agentos-extensions" || *root.Last != "2.3.0" || root.Next != "2.3.1" || root.Role != "root" {
		t.Errorf("the root must publish 2.3.1 last: %+v", root)
	}
	if cat := repo.Read("registry.json"); !strings.Contains(cat, `"package": "@framers/agentos-ext-weather",`+"\n"+`        "version": "1.0.1"`) {
		t.Errorf("registry.json was not regenerated with 1.0.1:\n%s", cat)
	}
}

// TestMonorepoOnlyTouchedPackages: in a repository of 120 packs, a pull request that changes
// three plans those three and the root (whose catalog lists them), and nothing else.
func TestMonorepoOnlyTouchedPackages(t *testing.T) {
	testenv.SkipShort(t, "starts Verdaccio")
	reg := testenv.Verdaccio(t)
	packs := map[string]string{}
	var pubs []registrytest.Release
	for i := range 120 {
		name := fmt.Sprintf("p%03d", i)
		packs[fmt.Sprintf("cat%d/%s", i%7, name)] = "1.2.0"
		pubs = append(pubs, registrytest.Release{Name: "@framers/agentos-ext-" + name, Versions: []string{"1.0.0", "1.1.0", "1.2.0"}})
	}
	pubs = append(pubs, registrytest.Release{Name: "@framers/agentos-extensions", Versions: []string{"4.0.0"}})
	if err := registrytest.PublishAll(context.Background(), reg.URL, "", pubs, 6); err != nil {
		t.Fatal(err)
	}
	repo := plantest.NewRepo(t)
	repo.Write(plantest.AgentOSRepo(packs, "4.0.0"))
	repo.Commit("initial")
	touched := []string{"cat3/p010", "cat1/p050", "cat6/p097"}
	repo.PullRequest("three", "fix: three packs", "", func() {
		files := map[string]string{
			"registry/curated/cat2/p002/test/index.test.ts": "// a test only\n",
			"docs/notes.md": "notes\n",
		}
		for _, d := range touched {
			files["registry/curated/"+d+"/src/index.ts"] = "export const fixed = true;\n"
		}
		repo.Write(files)
	})
	pr := newPlanRun(repo.Dir, reg.URL, nil)
	plan, err := pr.run(t)
	if err != nil {
		t.Fatalf("%v\n%s", err, pr.err)
	}
	var got []string
	for _, r := range plan.Releases {
		got = append(got, r.Dir+"@"+r.Next)
	}
	want := "registry/curated/cat1/p050@1.2.1 registry/curated/cat3/p010@1.2.1 registry/curated/cat6/p097@1.2.1 .@4.0.1"
	if strings.Join(got, " ") != want {
		t.Errorf("releases = %v\nwant %s", got, want)
	}
}

// TestRegistryFaults: a registry that fails is never "not published". Each fault exits 3 with
// one sentence naming the registry and the package, and --write writes nothing.
func TestRegistryFaults(t *testing.T) {
	repo := plantest.NewRepo(t)
	repo.Write(map[string]string{
		"package.json":            plantest.PackageJSON("faults", "0.0.0", map[string]any{"private": true, "workspaces": []string{"packages/*"}}),
		"packages/a/package.json": plantest.PackageJSON("@faults/a", "1.0.0", nil),
		"packages/a/index.js":     "1\n",
	})
	repo.Commit("initial")
	repo.PullRequest("fix", "fix: a", "", func() { repo.Write(map[string]string{"packages/a/index.js": "2\n"}) })
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"500", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }, "HTTP 500"},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
		}, "timed out"},
		{"malformed JSON", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"versions": {"1.0.0": `) }, "malformed JSON"},
		{"401", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) }, "HTTP 401"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			pr := newPlanRun(repo.Dir, srv.URL, nil)
			pr.opts.HTTPClient = func() (*http.Client, error) { return &http.Client{Timeout: 200 * time.Millisecond}, nil }
			pr.opts.Write = true
			pr.opts.Out = "plan.json"
			_, err := pr.run(t)
			if exit.Code(err) != exit.Env {
				t.Fatalf("exit code %d (%v), want 3", exit.Code(err), err)
			}
			msg := err.Error()
			for _, w := range []string{tc.want, "@faults/a", srv.URL} {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("not one sentence: %q", msg)
			}
			if pr.out.Len() != 0 {
				t.Errorf("a failed run printed a plan:\n%s", pr.out)
			}
			if st := repo.Git("status", "--porcelain", "--untracked-files=all"); st != "" {
				t.Errorf("a failed run wrote files:\n%s", st)
			}
		})
	}
}

// TestNPMRCScopedRegistryAndToken: the project .npmrc sends a scoped package to its own
// registry with its token (from the environment), and everything else to the default one.
func TestNPMRCScopedRegistryAndToken(t *testing.T) {
	type hit struct{ path, auth, accept string }
	var mu sync.Mutex
	hits := map[string][]hit{}
	serve := func(label string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			accept := "full"
			if strings.Contains(r.Header.Get("Accept"), "install-v1") {
				accept = "abbreviated"
			}
			hits[label] = append(hits[label], hit{r.URL.EscapedPath(), r.Header.Get("Authorization"), accept})
			mu.Unlock()
			fmt.Fprint(w, `{"name":"x","versions":{"1.0.0":{"version":"1.0.0"}},"dist-tags":{"latest":"1.0.0"}}`)
		}))
	}
	public, private := serve("public"), serve("private")
	defer public.Close()
	defer private.Close()
	repo := plantest.NewRepo(t)
	repo.Write(map[string]string{
		"package.json":            plantest.PackageJSON("npmrc", "0.0.0", map[string]any{"private": true, "workspaces": []string{"packages/*"}}),
		".npmrc":                  "registry=" + public.URL + "/\n@corp:registry=" + private.URL + "/npm/\n" + strings.TrimPrefix(private.URL, "http:") + "/npm/:_authToken=${CORP_TOKEN}\n",
		"packages/a/package.json": plantest.PackageJSON("@corp/a", "1.0.0", nil),
		"packages/a/index.js":     "1\n",
		"packages/b/package.json": plantest.PackageJSON("plain-b", "1.0.0", nil),
		"packages/b/index.js":     "1\n",
	})
	repo.Commit("initial")
	repo.PullRequest("fix", "fix: both", "", func() {
		repo.Write(map[string]string{"packages/a/index.js": "2\n", "packages/b/index.js": "2\n"})
	})
	pr := newPlanRun(repo.Dir, "", map[string]string{"CORP_TOKEN": "s3cr3t-corp-token"})
	plan, err := pr.run(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Releases) != 2 {
		t.Fatalf("releases = %+v", plan.Releases)
	}
	// The abbreviated document first; 1.0.0 has no tag, so the full one too (for its gitHead).
	if fmt.Sprint(hits["private"]) != fmt.Sprint([]hit{{"/npm/@corp%2fa", "Bearer s3cr3t-corp-token", "abbreviated"}, {"/npm/@corp%2fa", "Bearer s3cr3t-corp-token", "full"}}) {
		t.Errorf("scoped registry got %v", hits["private"])
	}
	if fmt.Sprint(hits["public"]) != fmt.Sprint([]hit{{"/plain-b", "", "abbreviated"}, {"/plain-b", "", "full"}}) {
		t.Errorf("default registry got %v", hits["public"])
	}
	if strings.Contains(pr.out.String()+pr.err.String(), "s3cr3t") {
		t.Error("the token was printed")
	}
}

// TestReleasePlanFlags checks the command line: flags reach the Options, --json is
// --format json, --registry is bound to the registry configuration key, and mistakes exit 2.
func TestReleasePlanFlags(t *testing.T) {
	parse := func(args ...string) (*ReleasePlanOptions, *Factory, error) {
		io := &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
		f := NewFactory(io)
		dir := t.TempDir()
		f.Getenv = func(string) string { return "" }
		f.Dir = func() (string, error) { return dir, nil }
		var got *ReleasePlanOptions
		root := NewRootCmd(f)
		for _, c := range root.Commands() {
			if c.Name() == "release-plan" {
				root.RemoveCommand(c)
			}
		}
		root.AddCommand(NewCmdReleasePlan(f, func(o *ReleasePlanOptions) error { got = o; return nil }))
		root.SetArgs(append([]string{"release-plan"}, args...))
		_, err := root.ExecuteC()
		return got, f, err
	}
	o, f, err := parse("--base", "main~1", "--head", "v2", "--title", "feat!: t", "--body", "b", "--out", "plan.json", "--write", "--registry", "http://r.example/")
	if err != nil {
		t.Fatal(err)
	}
	if o.Base != "main~1" || o.Head != "v2" || o.Title != "feat!: t" || !o.TitleSet || o.Body != "b" || !o.BodySet || o.Out != "plan.json" || !o.Write || o.Format != "text" {
		t.Errorf("options = %+v", o)
	}
	cfg, err := f.Config()
	if err != nil || cfg.Registry != "http://r.example/" {
		t.Errorf("--registry must set the registry configuration key: %+v, %v", cfg, err)
	}
	if o, _, err := parse("--json"); err != nil || o.Format != "json" {
		t.Errorf("--json: %+v, %v", o, err)
	}
	if o, _, err := parse("--format", "json"); err != nil || o.Format != "json" {
		t.Errorf("--format json: %+v, %v", o, err)
	}
	for _, bad := range [][]string{
		{"--format", "yaml"},
		{"--body", "x", "--body-file", "f"},
		{"--base", ""},
		{"--no-such-flag"},
		{"positional"},
	} {
		_, _, err := parse(bad...)
		if code := exit.Code(err); code != exit.Usage && !isUsageError(err) {
			t.Errorf("%v: exit %d (%v), want 2", bad, code, err)
		}
	}
}

// TestRefusedTextOutput checks the human output of a refused plan and that --out still
// records it for people to read, while nothing else is written.
func TestRefusedTextOutput(t *testing.T) {
	testenv.SkipShort(t, "publishes to Verdaccio")
	reg := testenv.SharedVerdaccio(t)
	if err := registrytest.PublishAll(context.Background(), reg.URL, "", []registrytest.Release{{Name: "@t/api", Versions: []string{"1.4.2"}}}, 1); err != nil {
		t.Fatal(err)
	}
	repo := plantest.NewRepo(t)
	repo.Write(map[string]string{
		"package.json":              plantest.PackageJSON("text", "0.0.0", map[string]any{"private": true, "workspaces": []string{"packages/*"}}),
		"packages/api/package.json": plantest.PackageJSON("@t/api", "1.4.2", nil),
		"packages/api/index.js":     "1\n",
	})
	repo.Commit("initial")
	repo.PullRequest("x", "feat(api)!: rename", "", func() {
		repo.Write(map[string]string{
			"packages/api/index.js":    "2\n",
			"packages/ok/package.json": plantest.PackageJSON("@t/ok", "0.1.0", nil),
			"packages/ok/index.js":     "1\n",
		})
	})
	pr := newPlanRun(repo.Dir, reg.URL, nil)
	pr.opts.Format = "text"
	pr.opts.Out = "plan.json"
	pr.opts.Write = true
	_, err := pr.run(t)
	if exit.Code(err) != exit.Fail {
		t.Fatalf("exit %d: %v", exit.Code(err), err)
	}
	want := "@t/ok  packages/ok  new → 0.1.0  (new package)\n" +
		"refused: @t/api (packages/api): a breaking change needs a new major version after 1.4.2; write 2.0.0 into packages/api/package.json.\n"
	if pr.out.String() != want {
		t.Errorf("text output:\n%s\nwant\n%s", pr.out, want)
	}
	if !strings.Contains(err.Error(), "@t/api (packages/api) is refused") || !strings.Contains(err.Error(), "write 2.0.0") {
		t.Errorf("error sentence: %v", err)
	}
	data, rerr := os.ReadFile(filepath.Join(repo.Dir, "plan.json"))
	if rerr != nil || !bytes.Contains(data, []byte(`"refusals": [`)) {
		t.Errorf("plan.json: %v %s", rerr, data)
	}
	if st := repo.Git("status", "--porcelain"); st != "?? plan.json" {
		t.Errorf("only plan.json may be written:\n%s", st)
	}
}

// TestPlanPropertiesOverRandomHistories makes random histories — published versions,
// tags (some unfinished), titles, descriptions, written versions, shipped or unshipped changes
// — in real repositories and checks, with --write, that every planned version is above every
// published and tagged one, that the working tree then holds exactly the planned versions, and
// that a refused plan writes nothing.
func TestPlanPropertiesOverRandomHistories(t *testing.T) {
	testenv.SkipShort(t, "publishes random histories to Verdaccio")
	reg := testenv.SharedVerdaccio(t)
	rng := rand.New(rand.NewSource(7))
	published := map[string][]string{}
	version := func() string {
		v := fmt.Sprintf("%d.%d.%d", rng.Intn(3), rng.Intn(3), rng.Intn(3))
		if rng.Intn(8) == 0 {
			v += "-rc.1"
		}
		return v
	}
	titles := []string{"fix: a", "feat: b", "feat!: c", "refactor(core)!: d", "chore: e"}
	bodies := []string{"", "BREAKING CHANGE: gone", "<!--\nBREAKING CHANGE: template\n-->"}
	iterations := 20
	// What the registry holds is drawn first and published in one go (its own random source,
	// so that the histories below stay what they were).
	pubRNG := rand.New(rand.NewSource(8))
	var releases []registrytest.Release
	for i := range iterations {
		for j := range 2 {
			var pubs []string
			for range pubRNG.Intn(4) {
				v := fmt.Sprintf("%d.%d.%d", pubRNG.Intn(3), pubRNG.Intn(3), pubRNG.Intn(3))
				if pubRNG.Intn(8) == 0 {
					v += "-rc.1"
				}
				if !slices.Contains(pubs, v) { // a registry takes a version once
					pubs = append(pubs, v)
				}
			}
			if len(pubs) > 0 {
				name := fmt.Sprintf("@prop/i%d-p%d", i, j)
				published[name] = pubs
				releases = append(releases, registrytest.Release{Name: name, Versions: pubs})
			}
		}
	}
	if err := registrytest.PublishAll(context.Background(), reg.URL, "", releases, 6); err != nil {
		t.Fatal(err)
	}
	refused, released := 0, 0
	defer func() { t.Logf("%d refused plans, %d releases", refused, released) }()
	for i := range iterations {
		repo := plantest.NewRepo(t)
		files := map[string]string{"package.json": plantest.PackageJSON("prop", "0.0.0", map[string]any{"private": true, "workspaces": []string{"packages/*"}})}
		type pkg struct{ name, base, written string }
		var pkgs []pkg
		for j := range 2 {
			p := pkg{name: fmt.Sprintf("@prop/i%d-p%d", i, j), base: version()}
			files[fmt.Sprintf("packages/p%d/package.json", j)] = plantest.PackageJSON(p.name, p.base, map[string]any{"files": []string{"index.js"}})
			files[fmt.Sprintf("packages/p%d/index.js", j)] = "1\n"
			files[fmt.Sprintf("packages/p%d/test/t.js", j)] = "1\n"
			if rng.Intn(3) == 0 {
				p.written = version()
			}
			pkgs = append(pkgs, p)
		}
		repo.Write(files)
		base := repo.Commit("initial")
		for _, p := range pkgs {
			for range rng.Intn(3) {
				repo.Git("tag", "-f", p.name+"@"+version(), base)
			}
		}
		repo.PullRequest("pr", titles[rng.Intn(len(titles))], bodies[rng.Intn(len(bodies))], func() {
			change := map[string]string{}
			for j, p := range pkgs {
				switch rng.Intn(3) {
				case 0:
					change[fmt.Sprintf("packages/p%d/index.js", j)] = "2\n"
				case 1:
					change[fmt.Sprintf("packages/p%d/test/t.js", j)] = "2\n"
				}
				if p.written != "" {
					change[fmt.Sprintf("packages/p%d/package.json", j)] = plantest.PackageJSON(p.name, p.written, map[string]any{"files": []string{"index.js"}})
				}
			}
			repo.Write(change)
		})
		tags := repo.Git("tag", "--list")
		pr := newPlanRun(repo.Dir, reg.URL, nil)
		pr.opts.Write = true
		plan, err := pr.run(t)
		if plan == nil {
			t.Fatalf("#%d: no plan: %v", i, err)
		}
		if (err != nil) != !plan.OK() || (err != nil && exit.Code(err) != exit.Fail) {
			t.Fatalf("#%d: err %v with %d refusals", i, err, len(plan.Refusals))
		}
		released += len(plan.Releases)
		if !plan.OK() {
			refused++
			if st := repo.Git("status", "--porcelain"); st != "" {
				t.Fatalf("#%d: a refused plan wrote:\n%s", i, st)
			}
			continue
		}
		for _, r := range plan.Releases {
			next := semver.MustParse(r.Next)
			prior := append([]string{}, published[r.Name]...)
			for _, line := range strings.Split(tags, "\n") {
				if v, ok := strings.CutPrefix(line, r.Name+"@"); ok {
					prior = append(prior, v)
				}
			}
			for _, v := range prior {
				if !next.GreaterThan(semver.MustParse(v)) {
					t.Fatalf("#%d: %s planned %s, not above %s", i, r.Name, r.Next, v)
				}
			}
			if got := repo.Read(r.Dir + "/package.json"); !strings.Contains(got, `"version": "`+r.Next+`"`) {
				t.Fatalf("#%d: %s/package.json does not hold %s:\n%s", i, r.Dir, r.Next, got)
			}
		}
	}
}
