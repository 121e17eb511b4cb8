package releaseplan

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/catalog"
	"github.com/plaios/plaios/internal/git"
	"github.com/plaios/plaios/internal/npm/npmrc"
	"github.com/plaios/plaios/internal/npm/registry"
	"github.com/plaios/plaios/internal/npm/registry/registrytest"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/release"
	"github.com/plaios/plaios/release/releaseplan/plantest"
)

func clientFor(url string) func(string) (*registry.Client, error) {
	return func(root string) (*registry.Client, error) {
		rc, err := npmrc.Load(root, func(string) string { return "" })
		if err != nil {
			return nil, err
		}
		return &registry.Client{NPMRC: rc, Registry: url, Abbreviated: true}, nil
	}
}

func releases(p *release.Plan) string {
	var parts []string
	for _, r := range p.Releases {
		last := "new"
		if r.Last != nil {
			last = *r.Last
		}
		parts = append(parts, fmt.Sprintf("%s %s→%s", r.Name, last, r.Next))
	}
	return strings.Join(parts, ", ")
}

// TestRunAndWriteRuntimes plans a pull request over a pnpm monorepo with a PLAIOS pack built by
// tsc, an OpenClaw plugin and a library, then writes the versions and checks that only the
// version text changed in each file.
func TestRunAndWriteRuntimes(t *testing.T) {
	testenv.SkipShort(t, "starts Verdaccio")
	reg := testenv.SharedVerdaccio(t)
	if err := registrytest.PublishAll(context.Background(), reg.URL, "", []registrytest.Release{
		{Name: "@t/weather", Versions: []string{"0.9.0", "1.0.0"}},
		{Name: "@t/claw", Versions: []string{"0.2.0"}},
		{Name: "@t/lib", Versions: []string{"1.0.0"}},
		{Name: "@t/quiet", Versions: []string{"3.0.0"}},
	}, 4); err != nil {
		t.Fatal(err)
	}
	r := plantest.NewRepo(t)
	weatherPJ := "{\r\n    \"name\": \"@t/weather\",\r\n    \"version\": \"1.0.0\",\r\n    \"files\": [\r\n        \"dist\",\r\n        \"agent-os.package.yaml\"\r\n    ],\r\n    \"dependencies\": {\r\n        \"@t/lib\": \"^1.0.0\"\r\n    }\r\n}\r\n"
	yamlManifest := "# The weather pack\r\nschemaVersion: 1\r\nid: weather\r\nversion: \"1.0.0\"   # kept in step with package.json\r\ninterfaces:\r\n  - id: forecast\r\n    kind: action\r\n"
	clawManifest := "{\n  // OpenClaw reads this as JSON5\n  id: 'claw',\n  version: '0.2.0',\n  configSchema: {type: 'object'},\n}\n"
	r.Write(map[string]string{
		"package.json":                           plantest.PackageJSON("mono", "0.0.0", map[string]any{"private": true}),
		"pnpm-workspace.yaml":                    "packages:\n  - packages/*\n",
		"packages/weather/package.json":          weatherPJ,
		"packages/weather/agent-os.package.yaml": yamlManifest,
		"packages/weather/tsconfig.json":         `{"compilerOptions": {"outDir": "dist", "rootDir": "src"}}`,
		"packages/weather/src/index.ts":          "export const forecast = 1;\n",
		"packages/weather/test/index.test.ts":    "test\n",
		"packages/claw/package.json":             plantest.PackageJSON("@t/claw", "0.2.0", map[string]any{"files": []string{"index.js", "openclaw.plugin.json"}}),
		"packages/claw/openclaw.plugin.json":     clawManifest,
		"packages/claw/index.js":                 "export default 1;\n",
		"packages/lib/package.json":              plantest.PackageJSON("@t/lib", "1.0.0", nil),
		"packages/lib/index.js":                  "module.exports = 1;\n",
		"packages/quiet/package.json":            plantest.PackageJSON("@t/quiet", "3.0.0", map[string]any{"files": []string{"index.js"}}),
		"packages/quiet/index.js":                "module.exports = 3;\n",
		"packages/quiet/test/x.test.js":          "x\n",
	})
	r.Commit("initial")
	r.PullRequest("fixes", "fix: forecasts round correctly", "", func() {
		r.Write(map[string]string{
			"packages/weather/src/index.ts": "export const forecast = 2;\n",
			"packages/claw/index.js":        "export default 2;\n",
			"packages/lib/index.js":         "module.exports = 2;\n",
			"packages/quiet/test/x.test.js": "y\n",
		})
	})

	res, err := Run(context.Background(), Options{Dir: r.Dir, Client: clientFor(reg.URL), Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	p := res.Plan
	if got := releases(p); got != "@t/claw 0.2.0→0.2.1, @t/lib 1.0.0→1.0.1, @t/weather 1.0.0→1.0.1" {
		t.Fatalf("releases = %s (refusals %+v)", got, p.Refusals)
	}
	if p.Title != "fix: forecasts round correctly" || p.Breaking {
		t.Errorf("title from the merge commit = %q, breaking %v", p.Title, p.Breaking)
	}
	w := p.Releases[2]
	if strings.Join(w.ChangedFiles, ",") != "packages/weather/src/index.ts" || w.Tag != "@t/weather@1.0.1" || w.Role != "pack" {
		t.Errorf("weather release = %+v", w)
	}

	written, err := res.Write()
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 8 {
		t.Errorf("written = %v, want 3 package.json, 2 manifests and 3 CHANGELOG.md", written)
	}
	want := map[string]string{
		"packages/weather/package.json":          strings.Replace(weatherPJ, `"version": "1.0.0"`, `"version": "1.0.1"`, 1),
		"packages/weather/agent-os.package.yaml": strings.Replace(yamlManifest, `version: "1.0.0"`, `version: "1.0.1"`, 1),
		"packages/claw/openclaw.plugin.json":     strings.Replace(clawManifest, `version: '0.2.0'`, `version: '0.2.1'`, 1),
		"packages/quiet/package.json":            plantest.PackageJSON("@t/quiet", "3.0.0", map[string]any{"files": []string{"index.js"}}),
	}
	for f, content := range want {
		if got := r.Read(f); got != content {
			t.Errorf("%s after --write:\n%q\nwant\n%q", f, got, content)
		}
	}
}

// TestCatalogRootAndIdempotentWrite plans an AgentOS repository whose root ships the catalog:
// a pack's release makes the root publish its next patch, last; writing regenerates the catalog
// with the new version, and writing again changes nothing.
func TestCatalogRootAndIdempotentWrite(t *testing.T) {
	testenv.SkipShort(t, "starts Verdaccio")
	reg := testenv.SharedVerdaccio(t)
	if err := registrytest.PublishAll(context.Background(), reg.URL, "", []registrytest.Release{
		{Name: "@framers/agentos-extensions", Versions: []string{"2.3.0"}},
		{Name: "@framers/agentos-ext-search", Versions: []string{"1.4.2"}},
		{Name: "@framers/agentos-ext-notes", Versions: []string{"0.1.0"}},
	}, 3); err != nil {
		t.Fatal(err)
	}
	r := plantest.NewRepo(t)
	files := plantest.AgentOSRepo(map[string]string{"research/search": "1.4.2", "memory/notes": "0.1.0"}, "2.3.0")
	r.Write(files)
	r.Commit("initial")
	// The tracked catalog is what the repository's build generated.
	fsys := os.DirFS(r.Dir)
	gen, err := catalog.Generate(fsys, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Write(map[string]string{"registry.json": string(gen)})
	r.Commit("catalog")
	r.PullRequest("search-fix", "fix(search): retry on 429", "", func() {
		r.Write(map[string]string{"registry/curated/research/search/src/index.ts": "export const retry = true;\n"})
	})
	res, err := Run(context.Background(), Options{Dir: r.Dir, Client: clientFor(reg.URL), Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if got := releases(res.Plan); got != "@framers/agentos-ext-search 1.4.2→1.4.3, @framers/agentos-extensions 2.3.0→2.3.1" {
		t.Fatalf("releases = %s, refusals %+v", got, res.Plan.Refusals)
	}
	root := res.Plan.Releases[1]
	if root.Role != "root" || root.Reason != "catalog changed: next patch" || strings.Join(root.ChangedFiles, ",") != "registry.json" {
		t.Errorf("root = %+v", root)
	}
	written, err := res.Write()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(written, ",") != "registry/curated/research/search/package.json,registry/curated/research/search/manifest.json,registry/curated/research/search/CHANGELOG.md,package.json,CHANGELOG.md,registry.json" {
		t.Errorf("written = %v", written)
	}
	cat := r.Read("registry.json")
	if !strings.Contains(cat, `"version": "1.4.3"`) || !strings.Contains(cat, `"package": "@framers/agentos-ext-search"`) {
		t.Errorf("the catalog was not regenerated with the new version:\n%s", cat)
	}
	manifest := r.Read("registry/curated/research/search/manifest.json")
	if !strings.Contains(manifest, `"version": "1.4.3"`) {
		t.Errorf("manifest.json = %s", manifest)
	}
	again, err := res.Write()
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 0 || r.Read("registry.json") != cat {
		t.Errorf("writing twice must change nothing, wrote %v", again)
	}
}

// TestDerivedBaseFilesMatchAFullPacklist: when a package's packing rules did not change, the
// base's shipped files are derived from the head's packlist; they must be exactly what a
// packlist of the base computes.
func TestDerivedBaseFilesMatchAFullPacklist(t *testing.T) {
	r := plantest.NewRepo(t)
	pj := plantest.PackageJSON("@t/p", "1.0.0", map[string]any{"files": []string{"lib", "dist", "README.md"}})
	r.Write(map[string]string{
		"package.json":             plantest.PackageJSON("mono", "0.0.0", map[string]any{"private": true, "workspaces": []string{"packages/*"}}),
		"packages/p/package.json":  pj,
		"packages/p/tsconfig.json": `{"compilerOptions": {"outDir": "dist", "rootDir": "src"}}`,
		"packages/p/lib/a.js":      "a\n",
		"packages/p/lib/b.js":      "b\n",
		"packages/p/lib/deep/e.js": "e\n",
		"packages/p/src/x.ts":      "x\n",
		"packages/p/src/y.ts":      strings.Repeat("y content\n", 30),
		"packages/p/docs/d.md":     "d\n",
		"packages/p/README.md":     "# p\n",
	})
	base := r.Commit("initial")
	r.Git("mv", "packages/p/src/y.ts", "packages/p/src/z.ts")
	r.Remove("packages/p/lib/b.js", "packages/p/docs/d.md", "packages/p/lib/deep")
	r.Write(map[string]string{"packages/p/lib/c.js": "c\n", "packages/p/lib/a.js": "a2\n", "packages/p/src/x.ts": "x2\n"})
	head := r.Commit("change")

	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	headFS, _ := repo.TreeFS(head)
	baseFS, _ := repo.TreeFS(base)
	changes, err := repo.Changed(base, head)
	if err != nil {
		t.Fatal(err)
	}
	changed, status := flatten(changes, ".")
	g := &gather{changed: changed, status: status}
	h := release.Package{Dir: "packages/p", Name: "@t/p", PackageJSON: []byte(pj)}
	list, err := g.files(headFS, &h, true)
	if err != nil {
		t.Fatal(err)
	}
	derived := release.Package{Dir: "packages/p", Name: "@t/p", PackageJSON: []byte(pj)}
	if !g.sameRules(&h, &derived) {
		t.Fatal("the rules did not change")
	}
	g.deriveBase(headFS, list, &h, &derived, baseFS)
	full := release.Package{Dir: "packages/p", Name: "@t/p", PackageJSON: []byte(pj)}
	if _, err := g.files(baseFS, &full, false); err != nil {
		t.Fatal(err)
	}
	if strings.Join(derived.Files, " ") != strings.Join(full.Files, " ") {
		t.Errorf("derived base files\n%v\nfull base packlist\n%v", derived.Files, full.Files)
	}
	if !strings.Contains(strings.Join(full.Files, " "), "packages/p/src/y.ts") || !strings.Contains(strings.Join(full.Files, " "), "packages/p/lib/b.js") {
		t.Errorf("the base must ship the deleted lib/b.js and the renamed source src/y.ts: %v", full.Files)
	}
	// A changed ignore file or package.json changes the rules.
	g2 := &gather{changed: []string{"packages/p/.npmignore"}, status: map[string]string{"packages/p/.npmignore": "A"}}
	if g2.sameRules(&h, &derived) {
		t.Error("an added .npmignore changes the rules")
	}
	g3 := &gather{changed: []string{".gitignore"}, status: map[string]string{".gitignore": "M"}}
	if g3.sameRules(&h, &derived) {
		t.Error("the root .gitignore applies to every package")
	}
}
