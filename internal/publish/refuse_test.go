package publish_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/publish"
	"github.com/plaios/plaios/internal/publish/publishtest"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/release"
)

// emptyRegistry is a registry that knows none of these tests' packages: the package's shared
// Verdaccio, to which nothing here publishes.
func emptyRegistry(t *testing.T) string { return testenv.SharedVerdaccio(t).URL }

// refuseOptions are options whose registry knows none of the packages and whose GitHub is a fake.
func refuseOptions(t *testing.T, f *publishtest.Fixture, gh *testenv.FakeGitHub, env map[string]string) publish.Options {
	t.Helper()
	vars := map[string]string{"HOME": t.TempDir(), "PATH": os.Getenv("PATH"), "GITHUB_TOKEN": gh.Token, "GITHUB_API_URL": gh.URL}
	for k, v := range env {
		vars[k] = v
	}
	var list []string
	for k, v := range vars {
		list = append(list, k+"="+v)
	}
	return publish.Options{Dir: f.Dir, Plan: "plan.json", Packs: f.Packs, Registry: emptyRegistry(t), GitHubRepo: repo,
		Getenv: func(k string) string { return vars[k] }, Env: list, Backoff: 10 * time.Millisecond, Attempts: 2}
}

func editPlan(t *testing.T, f *publishtest.Fixture, edit func(*release.Plan)) {
	t.Helper()
	data, err := os.ReadFile(f.PlanFile)
	if err != nil {
		t.Fatal(err)
	}
	var p release.Plan
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	edit(&p)
	data, _ = json.Marshal(p)
	if err := os.WriteFile(f.PlanFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func editReport(t *testing.T, f *publishtest.Fixture, edit func(*guard.Report)) {
	t.Helper()
	file := filepath.Join(f.Packs, guard.ReportFile)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var r guard.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	edit(&r)
	data, _ = json.Marshal(r)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPublishRefuses checks every reason to refuse the whole run: each exits with its code
// and one sentence, and leaves the remote, the local tags and GitHub untouched.
func TestPublishRefuses(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, f *publishtest.Fixture, gh *testenv.FakeGitHub, o *publish.Options)
		code  int
		want  string
	}{
		{"a plan with refusals", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, _ *publish.Options) {
			editPlan(t, f, func(p *release.Plan) {
				p.Refusals = []release.Refusal{{Name: "@refuse/pack-9", Dir: "packages/pack-9", Message: "write 2.0.0"}}
			})
		}, exit.Fail, "the plan plan.json refuses @refuse/pack-9; fix what release-plan says"},
		{"a plan for another commit", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, _ *publish.Options) {
			testenv.Git(t, f.Dir, "commit", "-q", "--allow-empty", "-m", "later")
		}, exit.Fail, "was made for the commit " + "HEAD" + " but"},
		{"no plan", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, o *publish.Options) {
			o.Plan = "missing.json"
		}, exit.Usage, "cannot read the plan missing.json"},
		{"a plan of another schema", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, _ *publish.Options) {
			editPlan(t, f, func(p *release.Plan) { p.SchemaVersion = 2 })
		}, exit.Usage, "has schemaVersion 2"},
		{"no guard report", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, _ *publish.Options) {
			if err := os.Remove(filepath.Join(f.Packs, guard.ReportFile)); err != nil {
				t.Fatal(err)
			}
		}, exit.Usage, "has no guard-report.json; give --packs the folder plaios guard --out wrote"},
		{"a release the guard failed", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, _ *publish.Options) {
			editReport(t, f, func(r *guard.Report) { r.Packages[1].OK, r.Packages[1].Reason = false, "reached for the network" })
		}, exit.Fail, "@refuse/pack-2@1.0.0 failed the guard (reached for the network)"},
		{"a release the guard did not test", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, _ *publish.Options) {
			editReport(t, f, func(r *guard.Report) { r.Packages = r.Packages[:1] })
		}, exit.Fail, "@refuse/pack-2@1.0.0 has no result in"},
		{"a missing tarball", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, _ *publish.Options) {
			if err := os.Remove(f.Packages[0].Tarball); err != nil {
				t.Fatal(err)
			}
		}, exit.Fail, "the tarball of @refuse/pack-1@1.0.0 ("},
		{"a tarball of another package", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, _ *publish.Options) {
			data, err := os.ReadFile(f.Packages[1].Tarball)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.Packages[0].Tarball, data, 0o644); err != nil {
				t.Fatal(err)
			}
			integrity := publishtest.Integrity(t, f.Packages[0].Tarball)
			editReport(t, f, func(r *guard.Report) { r.Packages[0].Integrity = integrity })
		}, exit.Fail, "the tarball for @refuse/pack-1@1.0.0 holds @refuse/pack-2@1.0.0"},
		{"an unknown remote", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, o *publish.Options) {
			o.Remote = "upstream"
		}, exit.Usage, `"upstream" is not a remote of this repository`},
		{"a remote that is not a GitHub URL", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, o *publish.Options) {
			o.GitHubRepo = ""
		}, exit.Usage, "cannot tell which GitHub repository the releases go to"},
		{"no GITHUB_TOKEN", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, o *publish.Options) {
			get := o.Getenv
			o.Getenv = func(k string) string {
				if k == "GITHUB_TOKEN" {
					return ""
				}
				return get(k)
			}
		}, exit.Env, "publish needs GITHUB_TOKEN to write the GitHub releases of acme/packs"},
		{"a token GitHub refuses", func(t *testing.T, f *publishtest.Fixture, gh *testenv.FakeGitHub, o *publish.Options) {
			gh.Token = "ghs_another"
		}, exit.Env, "refused GITHUB_TOKEN when asked to read the releases of acme/packs (HTTP 401 Bad credentials); give a valid token"},
		{"a repository GitHub does not have", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, o *publish.Options) {
			o.GitHubRepo = "acme/nothing"
		}, exit.Env, "has no repository acme/nothing that GITHUB_TOKEN can see"},
		{"GitHub unreachable", func(t *testing.T, f *publishtest.Fixture, gh *testenv.FakeGitHub, o *publish.Options) {
			gh.Inject(testenv.Fault{Status: 503, Times: 5})
		}, exit.Env, "could not be reached to read the releases of acme/packs after 2 attempts (HTTP 503 Server Error)"},
		{"GitHub's rate limit exhausted", func(t *testing.T, f *publishtest.Fixture, gh *testenv.FakeGitHub, o *publish.Options) {
			gh.Inject(testenv.Fault{Status: 403, Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "5000", "X-RateLimit-Reset": "4102444800"}})
		}, exit.Env, "API rate limit for GITHUB_TOKEN is exhausted until 2100-01-01T00:00:00Z, so it could not read the releases of acme/packs; run plaios publish again then"},
		{"an unreachable registry", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, o *publish.Options) {
			o.Registry = "http://127.0.0.1:9/"
		}, exit.Env, "from the registry http://127.0.0.1:9/: the connection was refused (after 2 attempts); check that the registry is reachable and try again — nothing was published"},
		{"an unreachable remote", func(t *testing.T, f *publishtest.Fixture, _ *testenv.FakeGitHub, o *publish.Options) {
			testenv.Git(t, f.Dir, "remote", "set-url", "origin", filepath.Join(t.TempDir(), "gone.git"))
		}, exit.Env, "cannot read the tags of the remote origin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := publishtest.New(t, publishtest.Options{Scope: "refuse", Count: 2})
			gh := testenv.GitHub(t, repo)
			opts := refuseOptions(t, f, gh, nil)
			c.setup(t, f, gh, &opts)
			_, err := publish.Run(context.Background(), opts)
			want := strings.ReplaceAll(c.want, "HEAD", f.Head[:12])
			if err == nil || exit.Code(err) != c.code || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v (exit %d), want exit %d with %q", err, exit.Code(err), c.code, want)
			}
			if len(f.LocalTags()) != 0 || gh.Count("POST", "") != 0 || gh.Count("PATCH", "") != 0 {
				t.Errorf("a refused run wrote something: tags %v, GitHub %v", f.LocalTags(), gh.Requests())
			}
		})
	}
}

// TestPublishRepositoryFromEnvironment reads OWNER/NAME from GITHUB_REPOSITORY when the remote
// is a local path, and works without a token in a dry run.
func TestPublishRepositoryFromEnvironment(t *testing.T) {
	f := publishtest.New(t, publishtest.Options{Scope: "envrepo", Count: 1})
	gh := testenv.GitHub(t, repo)
	opts := refuseOptions(t, f, gh, map[string]string{"GITHUB_REPOSITORY": repo, "GITHUB_TOKEN": ""})
	opts.GitHubRepo, opts.DryRun = "", true
	var warnings []string
	opts.Events = func(ev publish.Event) {
		if ev.Event == "warning" {
			warnings = append(warnings, ev.Message)
		}
	}
	res, err := publish.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Repo != repo || len(warnings) != 1 || !strings.Contains(warnings[0], "GITHUB_TOKEN is not set") {
		t.Errorf("repo %q, warnings %q", res.Repo, warnings)
	}
	if res.Releases[0].GitHub != publish.StatusWouldCreate || len(gh.Requests()) != 0 {
		t.Errorf("GitHub %q, requests %v", res.Releases[0].GitHub, gh.Requests())
	}
}

// TestPublishEmptyPlan finishes at once.
func TestPublishEmptyPlan(t *testing.T) {
	f := publishtest.New(t, publishtest.Options{Scope: "empty", Count: 1})
	editPlan(t, f, func(p *release.Plan) { p.Releases = nil })
	gh := testenv.GitHub(t, repo)
	res, err := publish.Run(context.Background(), refuseOptions(t, f, gh, nil))
	if err != nil {
		t.Fatal(err)
	}
	if p, s, fl := res.Counts(); p+s+fl != 0 || res.Err() != nil || len(gh.Requests()) != 0 {
		t.Errorf("counts %d %d %d, requests %v", p, s, fl, gh.Requests())
	}
}

// TestPublishConfig refuses a package whose publishConfig would be overridden: a registry
// other than the one plaios publishes to, or restricted access.
func TestPublishConfig(t *testing.T) {
	for _, c := range []struct {
		config map[string]any
		want   string
	}{
		{map[string]any{"registry": "https://npm.pkg.github.com/"}, "@config/pack-1@1.0.0 sets publishConfig.registry https://npm.pkg.github.com/ but publishes to http://127.0.0.1:"},
		{map[string]any{"access": "restricted"}, `@config/pack-1@1.0.0 sets publishConfig.access "restricted" but plaios publishes with --access public`},
	} {
		f := publishtest.New(t, publishtest.Options{Scope: "config", Count: 1, Extra: map[string]any{"publishConfig": c.config}})
		gh := testenv.GitHub(t, repo)
		_, err := publish.Run(context.Background(), refuseOptions(t, f, gh, nil))
		if exit.Code(err) != exit.Fail || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing was published") {
			t.Errorf("publishConfig %v: %v", c.config, err)
		}
	}
	// The registry the package names, given with --registry: it goes there.
	f := publishtest.New(t, publishtest.Options{Scope: "config", Count: 1, Extra: map[string]any{"publishConfig": map[string]any{"registry": "http://127.0.0.1:9/", "tag": "next"}}})
	gh := testenv.GitHub(t, repo)
	opts := refuseOptions(t, f, gh, nil)
	opts.Registry = "http://127.0.0.1:9"
	_, err := publish.Run(context.Background(), opts)
	if exit.Code(err) != exit.Env || !strings.Contains(err.Error(), "from the registry http://127.0.0.1:9/") {
		t.Errorf("agreeing registries: %v", err)
	}
}
