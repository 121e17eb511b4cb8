package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/npm/npmrc"
	"github.com/plaios/plaios/internal/npm/registry"
	"github.com/plaios/plaios/internal/npm/registry/registrytest"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/release/releaseplan"
	"github.com/plaios/plaios/release/releaseplan/plantest"
)

const (
	planPackages = 200
	planVersions = 20
)

// BenchmarkReleasePlan plans a pull request that touches every package of a 200-package
// monorepo whose packages have 20 published versions each in a local Verdaccio — reading both
// ends from git, computing 400 packlists and fetching 200 packuments — and compares it with
// what a script would do instead: `npm view <name> versions --json` for each package, one
// after the other. Planning must take under 2 s and be at least 10× faster.
func BenchmarkReleasePlan(b *testing.B) {
	reg := testenv.Verdaccio(b)
	ctx := context.Background()

	var releases []registrytest.Release
	var versions []string
	for v := range planVersions {
		versions = append(versions, fmt.Sprintf("1.%d.0", v))
	}
	last := versions[len(versions)-1]
	files := map[string]string{
		"package.json": plantest.PackageJSON("bench", "0.0.0", map[string]any{"private": true, "workspaces": []string{"packages/*"}}),
	}
	var names []string
	for i := range planPackages {
		name := fmt.Sprintf("@bench/pack-%03d", i)
		names = append(names, name)
		releases = append(releases, registrytest.Release{Name: name, Versions: versions})
		dir := fmt.Sprintf("packages/pack-%03d", i)
		files[dir+"/package.json"] = plantest.PackageJSON(name, last, map[string]any{"files": []string{"dist", "README.md"}})
		files[dir+"/tsconfig.json"] = `{"compilerOptions": {"outDir": "dist", "rootDir": "src"}, "include": ["src"]}`
		files[dir+"/src/index.ts"] = fmt.Sprintf("export const n = %d;\n", i)
		files[dir+"/src/tools/search.ts"] = "export const search = () => [];\n"
		files[dir+"/README.md"] = "# " + name + "\n"
		files[dir+"/test/index.test.ts"] = "// tests\n"
	}
	seedStart := time.Now()
	if err := registrytest.PublishAll(ctx, reg.URL, "", releases, 8); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d versions through the publish API in %v", planPackages*planVersions, time.Since(seedStart).Round(time.Millisecond))

	repo := plantest.NewRepo(b)
	repo.Write(files)
	repo.Commit("initial")
	repo.PullRequest("all", "fix: every pack", "", func() {
		changes := map[string]string{}
		for i := range planPackages {
			changes[fmt.Sprintf("packages/pack-%03d/src/tools/search.ts", i)] = "export const search = () => [1];\n"
		}
		repo.Write(changes)
	})
	client := func(root string) (*registry.Client, error) {
		rc, err := npmrc.Load(root, func(string) string { return "" })
		if err != nil {
			return nil, err
		}
		return &registry.Client{NPMRC: rc, Registry: reg.URL, Abbreviated: true}, nil
	}

	b.ResetTimer()
	start := time.Now()
	for range b.N {
		res, err := releaseplan.Run(ctx, releaseplan.Options{Dir: repo.Dir, Client: client, Jobs: 8})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Plan.Releases) != planPackages || res.Plan.Releases[0].Next != "1.19.1" {
			b.Fatalf("the plan has %d releases (first %+v), want %d at 1.19.1", len(res.Plan.Releases), res.Plan.Releases[0], planPackages)
		}
		if err := json.NewEncoder(io.Discard).Encode(res.Plan); err != nil {
			b.Fatal(err)
		}
		res.Close()
	}
	plan := time.Since(start) / time.Duration(b.N)
	b.StopTimer()

	// The alternative, in the same run: npm view for each package, sequentially.
	env := append(reg.NPMEnv(), "npm_config_cache="+b.TempDir())
	viewStart := time.Now()
	for _, name := range names {
		out := testenv.Run(b, repo.Dir, env, "npm", "view", name, "versions", "--json")
		var got []string
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != planVersions {
			b.Fatalf("npm view %s: %v %q", name, err, out)
		}
	}
	view := time.Since(viewStart)

	b.ReportMetric(plan.Seconds(), "plan-s")
	b.ReportMetric(view.Seconds(), "npm-view-s")
	b.ReportMetric(view.Seconds()/plan.Seconds(), "speedup-x")
	b.Logf("release-plan over %d packages: %v; npm view × %d sequentially: %v (%.1f×)", planPackages, plan.Round(time.Millisecond), planPackages, view.Round(time.Millisecond), view.Seconds()/plan.Seconds())
	if plan > 2*time.Second {
		b.Errorf("planning took %v, over the 2 s budget", plan)
	}
	if view < 10*plan {
		b.Errorf("planning (%v) is not 10× faster than npm view (%v)", plan, view)
	}
}
