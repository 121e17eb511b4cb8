package pack_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/testenv"
)

// piResolve asks the pinned Pi (1.6.0) what it loads from each package folder: its own
// DefaultPackageManager.collectPackageResources (dist/core/package-manager.js), the code
// `pi install` and every session run on an installed package.
const piResolve = `
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
const [pm, ...dirs] = process.argv.slice(1);
const { DefaultPackageManager } = await import(pathToFileURL(pm).href);
const m = new DefaultPackageManager({ cwd: dirs[0], agentDir: dirs[0], settingsManager: {} });
const out = {};
for (const dir of dirs) {
  const acc = { extensions: new Map(), skills: new Map(), prompts: new Map(), themes: new Map() };
  m.collectPackageResources(dir, acc, undefined, {});
  const rel = (p) => p.slice(dir.length + 1).split('\\').join('/');
  out[dir] = {};
  for (const [k, v] of Object.entries(acc)) out[dir][k] = [...v.entries()].filter(([, r]) => r.enabled).map(([p]) => rel(p)).sort();
}
const version = JSON.parse(readFileSync(new URL('../../package.json', pathToFileURL(pm)))).version;
process.stdout.write(JSON.stringify({ version, packages: out }));
`

// TestPiExtensionsAgreeWithPi resolves Pi packages with pack.PiPackageExtensions and with the
// pinned Pi's own package manager, and requires the same extension files: the packages of the
// validate fixtures testdata/packs/good/pi-resources.txtar (skills only, a folder entry, a glob
// with ! and + patterns) and testdata/packs/bad/pi-extension-missing-resolved.txtar (a missing
// file, a folder without an extension, a glob whose match is excluded, a pi field with no
// resource), and shapes of their own (the extensions/ folder by convention, a folder with its
// own package.json, a - pattern, nested folders). Where plaios says Pi loads nothing, Pi
// loads nothing.
func TestPiExtensionsAgreeWithPi(t *testing.T) {
	testenv.SkipShort(t, "runs the pinned Pi's package manager")
	piBin, _, env := testenv.Pi(t)
	pm := filepath.Join(filepath.Dir(filepath.Dir(piBin)), "@earendil-works", "pi-coding-agent", "dist", "core", "package-manager.js")
	root := t.TempDir()
	var dirs []string
	for _, fixture := range []string{"good/pi-resources.txtar", "bad/pi-extension-missing-resolved.txtar"} {
		ar, err := txtar.ParseFile(filepath.Join(testenv.RepoRoot(t), "testdata", "packs", fixture))
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "packages/") {
				files[f.Name] = string(f.Data)
			}
		}
		testenv.WriteFiles(t, root, files)
	}
	pkg := func(pi string) string { return `{"name":"x","version":"1.0.0","pi":` + pi + `}` }
	testenv.WriteFiles(t, root, map[string]string{
		"packages/convention/package.json":           `{"name":"x","version":"1.0.0","pi":{"image":"shot.png"}}`,
		"packages/convention/extensions/a.ts":        "export default () => {}\n",
		"packages/convention/extensions/b/index.js":  "export default () => {}\n",
		"packages/convention/extensions/c/readme.md": "no index\n",
		"packages/convention/extensions/notes.md":    "not an extension\n",
		"packages/sub/package.json":                  pkg(`{"extensions":["./tools"]}`),
		"packages/sub/tools/package.json":            pkg(`{"extensions":["./main.js","./gone.js"]}`),
		"packages/sub/tools/main.js":                 "export default () => {}\n",
		"packages/sub/tools/index.ts":                "export default () => {}\n",
		"packages/minus/package.json":                pkg(`{"extensions":["./ext","-ext/b.ts","+ext/b.ts"]}`),
		"packages/minus/ext/a.ts":                    "export default () => {}\n",
		"packages/minus/ext/b.ts":                    "export default () => {}\n",
		"packages/nested/package.json":               pkg(`{"extensions":["src/**/*.ts","!**/*.test.ts"]}`),
		"packages/nested/src/a.ts":                   "export default () => {}\n",
		"packages/nested/src/deep/b.ts":              "export default () => {}\n",
		"packages/nested/src/deep/b.test.ts":         "test\n",
		"packages/nested/src/.hidden/c.ts":           "export default () => {}\n",
		"packages/empty-list/package.json":           pkg(`{"extensions":[]}`),
		"packages/empty-list/extensions/a.ts":        "export default () => {}\n",
	})
	entries, err := os.ReadDir(filepath.Join(root, "packages"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		dirs = append(dirs, filepath.Join(root, "packages", e.Name()))
	}
	if len(dirs) != 10 {
		t.Fatalf("only %d packages to resolve", len(dirs))
	}
	out := testenv.Run(t, root, env, filepath.Join(testenv.Node24(t), "node"), append([]string{"--input-type=module", "-e", piResolve, pm}, dirs...)...)
	var got struct {
		Version  string
		Packages map[string]map[string][]string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("Pi's answer: %v\n%s", err, out)
	}
	if got.Version != "1.6.0" {
		t.Errorf("the pinned Pi is %s, want 1.6.0", got.Version)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		pj, err := jsonpos.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		fsys := os.DirFS(dir)
		var ours []string
		for _, e := range pack.PiPackageExtensions(fsys, pj) {
			if e.Problem == pack.PiFound {
				ours = append(ours, e.File)
			}
		}
		sort.Strings(ours)
		pi := got.Packages[dir]
		if strings.Join(ours, " ") != strings.Join(pi["extensions"], " ") {
			t.Errorf("%s: plaios resolves %q, Pi loads %q", name, ours, pi["extensions"])
		}
		if pack.PiLoadsNothing(fsys, pj) {
			for kind, files := range pi {
				if len(files) > 0 {
					t.Errorf("%s: plaios says Pi loads nothing, Pi loads %s %q", name, kind, files)
				}
			}
		}
	}
	// The cases the fixtures stand for, as Pi answered them.
	for name, want := range map[string]string{
		"skills":     "",
		"folder":     "extensions/index.ts",
		"globbed":    "ext/a.js ext/draft-ready.js",
		"broken":     "tools/index.ts",
		"empty":      "",
		"convention": "extensions/a.ts extensions/b/index.js",
		"sub":        "tools/main.js",
		"minus":      "ext/a.ts",
		"nested":     "src/a.ts src/deep/b.ts",
		"empty-list": "",
	} {
		if got := strings.Join(got.Packages[filepath.Join(root, "packages", name)]["extensions"], " "); got != want {
			t.Errorf("%s: Pi loads %q, want %q", name, got, want)
		}
	}
	if n := len(got.Packages[filepath.Join(root, "packages", "skills")]["skills"]); n != 1 {
		t.Errorf("skills: Pi loads %d skills, want 1", n)
	}
}

// TestPiPeerHint: a failed import of a package the Pi package lists only as a peer gets the
// reason why (pi install installs no peer); a Pi core package, a package that is not a peer, a
// relative path and any other reason are left as they are.
func TestPiPeerHint(t *testing.T) {
	pj, err := jsonpos.Parse([]byte(`{"peerDependencies":{"ollama":"^0.5.0","@acme/client":"1","typebox":"*"}}`))
	if err != nil {
		t.Fatal(err)
	}
	const hint = " is only a peer dependency, and pi install installs no peer: list it in dependencies)"
	for reason, want := range map[string]string{
		"Pi cannot load x/dist/index.js: Cannot find module 'ollama'\nRequire stack: - x": "Pi cannot load x/dist/index.js: Cannot find module 'ollama'\nRequire stack: - x (ollama" + hint,
		"Cannot find package '@acme/client' imported from /p/x.js":                        "Cannot find package '@acme/client' imported from /p/x.js (@acme/client" + hint,
		"Cannot find module 'ollama/browser'":                                             "Cannot find module 'ollama/browser' (ollama" + hint,
		"Cannot find module 'typebox'":                                                    "Cannot find module 'typebox'",
		"Cannot find module 'ms'":                                                         "Cannot find module 'ms'",
		"Cannot find module './shared.js'":                                                "Cannot find module './shared.js'",
		"registered nothing":                                                              "registered nothing",
	} {
		if got := pack.PiPeerHint(pj, reason); got != want {
			t.Errorf("PiPeerHint(%q)\n got %q\nwant %q", reason, got, want)
		}
	}
}
