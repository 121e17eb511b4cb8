package guard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/sandbox"
	"github.com/plaios/plaios/internal/scaffold"
	"github.com/plaios/plaios/internal/testenv"
)

// TestGeneratedPacksPass: what `plaios create` writes passes guard once built, for every
// runtime (the PLAIOS package holds all eleven kinds, so every kind's contract is checked).
// The repository installs from the npm registry, as a user's would (npm's cache makes later
// runs fast), and guard installs the candidates' dependencies from there too.
func TestGeneratedPacksPass(t *testing.T) {
	testenv.SkipShort(t, "installs the generated packages' dev dependencies from the npm registry")
	npm := testenv.LookPath(t, "npm")
	ocBin, _ := testenv.OpenClaw(t)
	repo := t.TempDir()
	testenv.WriteFiles(t, repo, map[string]string{
		"package.json": `{"name":"generated","private":true,"workspaces":["packages/*","registry/curated/*/*","types/*"]}` + "\n",
	})
	types := filepath.Join(testenv.RepoRoot(t), "testdata", "plaios-types")
	for _, name := range []string{"core", "microfrontend"} {
		testenv.CopyTree(t, filepath.Join(types, name), filepath.Join(repo, "types", name))
	}
	var made []*scaffold.Scaffold
	for _, o := range []scaffold.Options{
		{Runtime: scaffold.PLAIOS, Kinds: scaffold.Kinds(scaffold.PLAIOS), Name: "every-kind"},
		{Runtime: scaffold.AgentOS, Kinds: []string{"tool"}, Name: "g-tool", Category: "research"},
		{Runtime: scaffold.AgentOS, Kinds: []string{"multi-tool"}, Name: "g-multi"},
		{Runtime: scaffold.AgentOS, Kinds: []string{"guardrail"}, Name: "g-guard"},
		{Runtime: scaffold.OpenClaw, Kinds: []string{"tool"}, Name: "g-weather"},
		{Runtime: scaffold.Pi, Kinds: []string{"tool"}, Name: "g-pi-weather"},
	} {
		o.WorkDir = repo
		s, err := scaffold.Plan(o)
		if err != nil {
			t.Fatalf("%s: %v", o.Name, err)
		}
		if err := s.Write(); err != nil {
			t.Fatalf("%s: %v", o.Name, err)
		}
		made = append(made, s)
	}
	// As the create tests do: no openclaw peer from the registry (the cached pinned install is
	// linked instead, for tsc), no optional local-model stack of @framers/agentos.
	testenv.Run(t, repo, nil, npm, "install", "--no-audit", "--no-fund", "--prefer-offline", "--legacy-peer-deps", "--ignore-scripts", "--omit=optional")
	if err := os.Symlink(filepath.Join(filepath.Dir(filepath.Dir(ocBin)), "openclaw"), filepath.Join(repo, "node_modules", "openclaw")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	var only []string
	for _, s := range made {
		rel, _ := filepath.Rel(repo, s.Dir)
		only = append(only, filepath.ToSlash(rel))
		wg.Add(1)
		sem <- struct{}{}
		go func(dir string) {
			defer wg.Done()
			defer func() { <-sem }()
			if out, err := testenv.RunErr(dir, testenv.ChildEnv(t, nil), npm, "run", "build"); err != nil {
				t.Errorf("build %s: %v\n%s", dir, err, out)
			}
		}(s.Dir)
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	env := map[string]string{}
	for _, kv := range testenv.CleanEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	rep, err := Run(context.Background(), Options{
		Dir: repo, Only: only, Jobs: 2, Timeout: time.Minute, Sandbox: sandbox.Auto,
		Getenv: func(k string) string { return env[k] },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != len(made) {
		t.Fatalf("guarded %d packages, want %d", len(rep.Packages), len(made))
	}
	for _, r := range rep.Packages {
		if !r.OK {
			t.Errorf("%s (%s): %s", r.Name, r.Dir, r.Reason)
			continue
		}
		if len(r.Descriptors) == 0 {
			t.Errorf("%s: nothing was loaded", r.Name)
		}
		for _, d := range r.Diagnostics {
			t.Errorf("%s: %s %s: %s", r.Name, d.Severity, d.Rule, d.Message)
		}
		t.Logf("ok %s@%s (%s)", r.Name, r.Version, r.Noun())
	}
	if r := byDir(rep)["packages/every-kind"]; r != nil && len(r.Descriptors) != 11 {
		t.Errorf("every-kind loaded %d interfaces, want 11", len(r.Descriptors))
	}
}
