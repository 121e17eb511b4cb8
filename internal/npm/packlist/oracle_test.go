package packlist

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// The oracle: every shape below is written to a folder of its own and packed by `npm pack
// --dry-run --json` of the pinned npm (testenv.OracleNPM, npm 11.19.1 on the pinned Node);
// Load must list exactly the files npm lists (or fail where npm fails). The shapes packed
// from outside their folder go to npm together, in one `npm pack --dry-run --json <folder>…`,
// the way guard packs (one npm start instead of fifty; packing each in its folder lists the
// same files for every one of them, which was checked when they were put together); a
// workspace package and a shape npm fails on are packed in their folder, one at a time.

type shape struct {
	name   string
	files  map[string]string
	links  map[string]string // link → target (as written in the link)
	dirs   []string          // empty folders
	pkg    string            // the folder to pack ("" is the root)
	wsRoot bool              // the package is a workspace of the root folder
	fails  bool              // npm pack fails on it
}

func pj(extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"name":"shape","version":"1.0.0"` + extra + "}"
}

var alwaysExcluded = map[string]string{
	".git/config": "x", ".git/HEAD": "x", "sub/.git": "gitfile", ".svn/entries": "x", "sub/.hg/x": "x",
	"CVS/Root": "x", "sub/CVS": "file", ".DS_Store": "x", "sub/.DS_Store": "x", "._resource": "x",
	"a.orig": "x", "sub/b.orig": "x", ".main.js.swp": "x", "sub/.x.swp": "x", "npm-debug.log": "x",
	"sub/npm-debug.log": "x", ".npmrc": "x", "sub/.npmrc": "x", "package-lock.json": "{}",
	"sub/package-lock.json": "{}", "yarn.lock": "x", "sub/yarn.lock": "x", "pnpm-lock.yaml": "x",
	"bun.lockb": "x", "bun.lock": "x", "npm-shrinkwrap.json": "{}", "config.gypi": "x",
	"build/config.gypi": "x", "build/out.node": "x", ".lock-wscript": "x", "sub/.lock-wscript": "x",
	".wafpickle-7": "x", "sub/.wafpickle-1": "x", "archived-packages/old.tgz": "x",
	"sub/archived-packages/x": "x", "node_modules/dep/index.js": "x", "lib/node_modules/x.js": "x",
	".env": "SECRET=1", ".github/workflows/ci.yml": "x", "index.js": "x", "sub/ok.js": "x",
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

var shapes = []shape{
	{name: "plain", files: map[string]string{"package.json": pj(""), "index.js": "x", "lib/a.js": "x", "lib/b/c.js": "x", "test/t.js": "x"}},
	{name: "always-excluded", files: merge(alwaysExcluded, map[string]string{"package.json": pj("")})},
	{name: "always-excluded-listed", files: merge(alwaysExcluded, map[string]string{"package.json": pj(`"files":[".npmrc","package-lock.json","node_modules",".git","yarn.lock","sub/.npmrc","build","config.gypi",".DS_Store","a.orig","bun.lockb"]`)})},
	{name: "gitignore-only", files: map[string]string{"package.json": pj(""), ".gitignore": "dist\n*.log\n", "dist/x.js": "x", "a.log": "x", "src/a.js": "x"}},
	{name: "npmignore-beats-gitignore", files: map[string]string{"package.json": pj(""), ".gitignore": "dist\n", ".npmignore": "src\n", "dist/x.js": "x", "src/a.js": "x", "README.md": "x"}},
	{name: "empty-npmignore", files: map[string]string{"package.json": pj(""), ".gitignore": "dist\n", ".npmignore": "", "dist/x.js": "x"}},
	{name: "npmignore-comments-crlf", files: map[string]string{"package.json": pj(""), ".npmignore": "# comment\r\n\r\n  *.log  \r\n\t# indented comment\r\n!keep.log\r\n\\#hash\r\n", "a.log": "x", "keep.log": "x", "#hash": "x", "b.js": "x"}},
	{name: "npmignore-case-insensitive", files: map[string]string{"package.json": pj(""), ".npmignore": "*.LOG\nDOCS/\n", "a.log": "x", "docs/x.md": "x", "Docs2/y.md": "x"}},
	{name: "npmignore-dir-and-anchors", files: map[string]string{"package.json": pj(""), ".npmignore": "/build\ncache/\n**/fixtures/**\ntmp\n", "build/a.js": "x", "src/build/b.js": "x", "cache/c": "x", "src/cache": "file", "test/fixtures/f.json": "x", "fixtures/g.json": "x", "src/tmp/x": "x", "tmp": "x"}},
	{name: "npmignore-negation-dir", files: map[string]string{"package.json": pj(""), ".npmignore": "lib/*\n!lib/keep/\n", "lib/a.js": "x", "lib/keep/b.js": "x", "lib/keep/c/d.js": "x"}},
	{name: "nested-npmignore", files: map[string]string{"package.json": pj(""), "src/.npmignore": "*.test.js\n", "src/a.js": "x", "src/a.test.js": "x", "b.test.js": "x", "src/deep/c.test.js": "x"}},
	{name: "nested-gitignore", files: map[string]string{"package.json": pj(""), "src/.gitignore": "gen/\n", "src/gen/x.js": "x", "src/a.js": "x", "gen/y.js": "x"}},
	{name: "nested-both", files: map[string]string{"package.json": pj(""), "src/.gitignore": "a.js\n", "src/.npmignore": "b.js\n", "src/a.js": "x", "src/b.js": "x"}},
	{name: "nested-negation-reincludes", files: map[string]string{"package.json": pj(""), ".npmignore": "*.map\n", "dist/.npmignore": "!keep.map\n", "dist/keep.map": "x", "dist/drop.map": "x", "top.map": "x"}},
	{name: "files-dir", files: map[string]string{"package.json": pj(`"files":["lib"]`), "lib/a.js": "x", "lib/sub/b.js": "x", "src/c.js": "x", "index.js": "x"}},
	{name: "files-globs-negations", files: map[string]string{"package.json": pj(`"files":["lib/**/*.js","!lib/**/*.test.js","*.md"]`), "lib/a.js": "x", "lib/a.test.js": "x", "lib/x/b.js": "x", "lib/x/b.test.js": "x", "lib/c.json": "x", "CHANGES.md": "x", "docs/guide.md": "x"}},
	{name: "files-dot-slash-trailing", files: map[string]string{"package.json": pj(`"files":["./dist/","./bin/cli.js","./types/*"]`), "dist/a.js": "x", "dist/b/c.js": "x", "bin/cli.js": "x", "bin/other.js": "x", "types/t.d.ts": "x", "types/deep/u.d.ts": "x"}},
	{name: "files-missing-paths", files: map[string]string{"package.json": pj(`"files":["dist","missing.js","nothere/","src/*.ts"]`), "src/a.ts": "x", "src/b.js": "x"}},
	{name: "files-empty", files: map[string]string{"package.json": pj(`"files":[]`), "index.js": "x", "README.md": "x", "LICENSE": "x"}},
	{name: "files-string", files: map[string]string{"package.json": pj(`"files":"lib"`), "lib/a.js": "x", "l": "x", "b": "x", "index.js": "x"}},
	{name: "files-object-fails", files: map[string]string{"package.json": pj(`"files":{"lib":true}`), "lib/a.js": "x"}, fails: true},
	{name: "files-number-entry-fails", files: map[string]string{"package.json": pj(`"files":["lib",5]`), "lib/a.js": "x"}, fails: true},
	{name: "files-null-is-none", files: map[string]string{"package.json": pj(`"files":null`), "lib/a.js": "x", "b.js": "x"}},
	{name: "files-braces-extglob", files: map[string]string{"package.json": pj(`"files":["{lib,bin}/**","+(src|tools)/*.js","[abc].txt"]`), "lib/a.js": "x", "bin/b": "x", "src/c.js": "x", "tools/d.js": "x", "other/e.js": "x", "a.txt": "x", "d.txt": "x"}},
	{name: "files-negated-dir", files: map[string]string{"package.json": pj(`"files":["lib","!lib/internal"]`), "lib/a.js": "x", "lib/internal/b.js": "x", "lib/internal2/c.js": "x"}},
	{name: "files-with-nested-npmignore", files: map[string]string{"package.json": pj(`"files":["lib","lib/sub/keep.js"]`), ".npmignore": "lib\n", "lib/.npmignore": "*.map\nsub/\n", "lib/a.js": "x", "lib/a.js.map": "x", "lib/sub/keep.js": "x", "lib/sub/drop.js": "x"}},
	{name: "files-root-npmignore-ignored", files: map[string]string{"package.json": pj(`"files":["lib","index.js"]`), ".npmignore": "index.js\nlib/a.js\n", ".gitignore": "lib\n", "lib/a.js": "x", "index.js": "x"}},
	{name: "readme-license-variants", files: map[string]string{"package.json": pj(`"files":["lib"]`), "lib/a.js": "x", "README.md": "x", "readme.markdown": "x", "Readme": "x", "README.md~": "x", "readme.": "x", "README-dev.md": "x", "LICENSE": "x", "licence.txt": "x", "License-MIT": "x", "LICENSE.md$": "x", "COPYING": "x", "copying.txt": "x", "CHANGELOG.md": "x", "docs/README.md": "x", "docs/LICENSE": "x", "NOTICE": "x", "AUTHORS": "x"}},
	{name: "readme-folder", files: map[string]string{"package.json": pj(`"files":["lib"]`), "lib/a.js": "x", "readme/index.md": "x", "license/x": "x"}},
	{name: "main-bin-browser-outside-files", files: map[string]string{"package.json": pj(`"files":["lib"],"main":"./dist/index.js","browser":"browser.js","bin":{"x":"./bin/x.js","y":"bin\\y.js","z":"../escape.js"}`), "lib/a.js": "x", "dist/index.js": "x", "dist/other.js": "x", "browser.js": "x", "bin/x.js": "x", "bin/y.js": "x", "escape.js": "x", "bin/w.js": "x"}},
	{name: "main-excluded-by-npmignore", files: map[string]string{"package.json": pj(`"main":"dist/index.js","bin":"cli.js"`), ".npmignore": "dist\ncli.js\n*.orig\n", "dist/index.js": "x", "dist/extra.js": "x", "cli.js": "x"}},
	{name: "main-odd-values", files: map[string]string{"package.json": pj(`"files":[],"main":5,"browser":{"./a.js":"./b.js"}`), "5": "x", "[object Object]": "x", "a.js": "x"}},
	{name: "main-into-node-modules", files: map[string]string{"package.json": pj(`"main":"node_modules/dep/index.js"`), "node_modules/dep/index.js": "x", "node_modules/dep/other.js": "x", "node_modules/dep/package.json": `{"name":"dep","version":"1.0.0"}`}},
	{name: "main-lockfile", files: map[string]string{"package.json": pj(`"main":"package-lock.json","files":[]`), "package-lock.json": "{}"}},
	{name: "bin-array-and-dir", files: map[string]string{"package.json": pj(`"files":[],"bin":["tools/a.js","./tools/b.js"]`), "tools/a.js": "x", "tools/b.js": "x", "tools/c.js": "x"}},
	{name: "directories-bin", files: map[string]string{"package.json": pj(`"files":["lib"],"directories":{"bin":"./scripts"}`), "lib/a.js": "x", "scripts/run.js": "x", "scripts/sub/deep.js": "x", "scripts/.hidden": "x", "other.js": "x"}},
	{name: "dotfiles-included", files: map[string]string{"package.json": pj(""), ".eslintrc.json": "x", ".github/workflows/ci.yml": "x", ".env.example": "x", ".vscode/settings.json": "x", "src/.hidden": "x"}},
	{name: "symlinks", files: map[string]string{"package.json": pj(`"main":"link.js"`), "real/a.js": "x", "target.js": "x"}, links: map[string]string{"link.js": "target.js", "linkdir": "real", "broken.js": "nowhere.js"}},
	{name: "symlinks-in-files", files: map[string]string{"package.json": pj(`"files":["linkdir","link.js","real"]`), "real/a.js": "x", "target.js": "x"}, links: map[string]string{"link.js": "target.js", "linkdir": "real"}},
	{name: "symlinked-npmignore", files: map[string]string{"package.json": pj(""), "shared-ignore": "*.log\n", "a.log": "x", "b.js": "x"}, links: map[string]string{".npmignore": "shared-ignore"}},
	{name: "star-and-at-names", files: map[string]string{"package.json": pj(""), "a*b.js": "x", "dir*/c.js": "x", "@types.d.ts": "x", "@scope/x.js": "x", "ok.js": "x"}},
	{name: "unicode-and-spaces", files: map[string]string{"package.json": pj(""), ".npmignore": "ÜBER*\nhello world.txt\n", "über.md": "x", "hello world.txt": "x", "naïve file.js": "x", "日本語.txt": "x"}},
	{name: "regexp-quirks", files: map[string]string{"package.json": pj(""), ".npmignore": "a\\|b\n+()\n@()\n", "ab": "x", "zzb": "x", "+()": "x", "@()": "x", "@": "x", "keep": "x"}},
	{name: "bad-rule-fails", files: map[string]string{"package.json": pj(""), ".npmignore": "[[:alpha:]]-x\n", "a-x": "x"}, fails: true},
	{name: "empty-dirs", files: map[string]string{"package.json": pj(""), "a.js": "x"}, dirs: []string{"empty", "nested/empty"}},
	{name: "matchbase-in-files", files: map[string]string{"package.json": pj(`"files":["*.json","lib/"]`), "a.json": "x", "deep/b.json": "x", "lib/c.js": "x", "x.js": "x"}},
	{name: "files-lib-slash-star", files: map[string]string{"package.json": pj(`"files":["lib/*","!lib/*.map"]`), "lib/a.js": "x", "lib/a.js.map": "x", "lib/sub/b.js": "x", "lib/sub/b.js.map": "x"}},
	{name: "files-double-negation", files: map[string]string{"package.json": pj(`"files":["!!lib","src"]`), "lib/a.js": "x", "src/b.js": "x"}},
	{name: "bundle-deps", files: map[string]string{
		"package.json":                         pj(`"bundleDependencies":["dep","devdep","missing"],"dependencies":{"dep":"1","missing":"1"},"devDependencies":{"devdep":"1"}`),
		"index.js":                             "x",
		"node_modules/dep/package.json":        `{"name":"dep","version":"1.0.0","files":["lib"],"dependencies":{"sub":"1"}}`,
		"node_modules/dep/lib/a.js":            "x",
		"node_modules/dep/test.js":             "x",
		"node_modules/dep/.npmignore":          "lib\n",
		"node_modules/dep/lib/.npmignore":      "*.map\n",
		"node_modules/dep/lib/a.js.map":        "x",
		"node_modules/sub/package.json":        `{"name":"sub","version":"1.0.0"}`,
		"node_modules/sub/index.js":            "x",
		"node_modules/sub/.DS_Store":           "x",
		"node_modules/devdep/package.json":     `{"name":"devdep","version":"1.0.0"}`,
		"node_modules/devdep/index.js":         "x",
		"node_modules/other/package.json":      `{"name":"other","version":"1.0.0"}`,
		"node_modules/dep/node_modules/n/x.js": "x",
	}},
	{name: "bundle-true-nested", files: map[string]string{
		"package.json":                                  pj(`"bundleDependencies":true,"dependencies":{"@s/a":"1"}`),
		"node_modules/@s/a/package.json":                `{"name":"@s/a","version":"1.0.0","dependencies":{"b":"1"},"main":"m.js"}`,
		"node_modules/@s/a/m.js":                        "x",
		"node_modules/@s/a/node_modules/b/package.json": `{"name":"b","version":"1.0.0"}`,
		"node_modules/@s/a/node_modules/b/i.js":         "x",
	}},
	{name: "workspace-package", pkg: "packages/a", wsRoot: true, files: map[string]string{
		"package.json":              `{"name":"root","version":"1.0.0","private":true,"workspaces":["packages/*"]}`,
		".gitignore":                "*.log\n/dist\npackages/a/secret.txt\nsrc\n",
		"packages/.gitignore":       "tmp*\n",
		"packages/a/package.json":   `{"name":"a","version":"1.0.0"}`,
		"packages/a/x.log":          "x",
		"packages/a/dist/i.js":      "x",
		"packages/a/secret.txt":     "x",
		"packages/a/src/s.js":       "x",
		"packages/a/tmp1":           "x",
		"packages/a/keep.js":        "x",
		"packages/b/package.json":   `{"name":"b","version":"1.0.0"}`,
		"packages/a/lib/.gitignore": "gen\n",
		"packages/a/lib/gen/g.js":   "x",
		"packages/a/lib/ok.js":      "x",
	}},
	{name: "workspace-package-npmignores", pkg: "packages/a", wsRoot: true, files: map[string]string{
		"package.json":            `{"name":"root","version":"1.0.0","private":true,"workspaces":["packages/*"]}`,
		".gitignore":              "*.js\n",
		".npmignore":              "*.md\n",
		"packages/a/package.json": `{"name":"a","version":"1.0.0","files":["lib","docs"]}`,
		"packages/a/.npmignore":   "lib/b.js\n",
		"packages/a/lib/a.js":     "x",
		"packages/a/lib/b.js":     "x",
		"packages/a/docs/x.md":    "x",
		"packages/a/README.md":    "x",
	}},
	{name: "workspace-root-itself", files: map[string]string{
		"package.json":            `{"name":"root","version":"1.0.0","workspaces":["packages/*"]}`,
		".gitignore":              "*.log\n",
		"packages/.gitignore":     "tmp*\n",
		"packages/.ignore":        "*.md\n",
		"packages/a/package.json": `{"name":"a","version":"1.0.0"}`,
		"packages/a/.npmignore":   "zz.txt\n",
		"packages/a/zz.txt":       "x",
		"packages/a/tmp1":         "x",
		"packages/a/x.md":         "x",
		"packages/a/b.log":        "x",
		"packages/tmp3":           "x",
		"tools/.npmignore":        "*.sh\n",
		"tools/a.sh":              "x",
		"r.js":                    "x",
	}},
	{name: "nested-workspace-glob", pkg: "apps/web/pkg", wsRoot: true, files: map[string]string{
		"package.json":                 `{"name":"root","version":"1.0.0","private":true,"workspaces":["apps/**/pkg"]}`,
		".npmignore":                   "*.snap\n",
		"apps/.gitignore":              "coverage\n",
		"apps/web/.npmignore":          "*.tmp\n",
		"apps/web/pkg/package.json":    `{"name":"pkg","version":"1.0.0"}`,
		"apps/web/pkg/a.snap":          "x",
		"apps/web/pkg/coverage/c.json": "x",
		"apps/web/pkg/b.tmp":           "x",
		"apps/web/pkg/index.js":        "x",
	}},
	{name: "nested-node-modules-and-git", files: map[string]string{"package.json": pj(`"files":["lib"]`), "lib/node_modules/x/i.js": "x", "lib/.git/config": "x", "lib/.gitignore": "*.tmp\n", "lib/a.tmp": "x", "lib/a.js": "x"}},
	{name: "files-parent-paths", files: map[string]string{"package.json": pj(`"files":["lib/../index.js","../outside.js","lib/./a.js"]`), "index.js": "x", "lib/index.js": "x", "lib/a.js": "x", "lib/b.js": "x"}},
	{name: "gitignore-negation-and-globstar", files: map[string]string{"package.json": pj(""), ".gitignore": "**/*.gen.ts\n!src/keep.gen.ts\n/out/\n", "src/a.gen.ts": "x", "src/keep.gen.ts": "x", "lib/b.gen.ts": "x", "out/o.js": "x", "src/out/p.js": "x"}},
}

type npmPack []struct {
	Files []struct {
		Path string `json:"path"`
	} `json:"files"`
}

func writeShape(t *testing.T, root string, s shape) {
	t.Helper()
	testenv.WriteFiles(t, root, s.files)
	for _, d := range s.dirs {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range s.links {
		p := filepath.Join(root, filepath.FromSlash(link))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
}

// npmPackFiles lists what the pinned npm (testenv.OracleNPM) packs from dir, run in dir.
func npmPackFiles(t *testing.T, dir string) ([]string, error) {
	t.Helper()
	lists, err := npmPackLists(t, dir)
	if err != nil {
		return nil, err
	}
	return lists[0], nil
}

// npmPackLists runs one `npm pack --dry-run --json` of the pinned npm in dir with the folders
// given (none: dir itself) and returns the files of each package, in order.
func npmPackLists(t *testing.T, dir string, folders ...string) ([][]string, error) {
	t.Helper()
	argv, env := testenv.OracleNPM(t)
	args := append(argv[1:], "pack", "--dry-run", "--json", "--foreground-scripts=false", "--ignore-scripts", "--loglevel=silent")
	out, err := testenv.RunErr(dir, testenv.ChildEnv(t, env), argv[0], append(args, folders...)...)
	if err != nil {
		return nil, err
	}
	var res npmPack
	if jerr := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &res); jerr != nil || len(res) != max(1, len(folders)) {
		t.Fatalf("npm pack output is not what npm 11 prints for %d folders (%v):\n%s", max(1, len(folders)), jerr, out)
	}
	lists := make([][]string, len(res))
	for i, r := range res {
		for _, f := range r.Files {
			lists[i] = append(lists[i], f.Path)
		}
		slices.Sort(lists[i])
	}
	return lists, nil
}

func TestPacklistMatchesNpmPack(t *testing.T) {
	testenv.SkipShort(t, "runs npm pack on every shape")
	argv, env := testenv.OracleNPM(t)
	if v := strings.TrimSpace(testenv.Run(t, "", env, argv[0], append(argv[1:], "--version")...)); v != testenv.OracleNPMVersion {
		t.Fatalf("the oracle is npm %s, want the pinned %s", v, testenv.OracleNPMVersion)
	}
	if len(shapes) < 40 {
		t.Fatalf("the oracle needs at least 40 shapes, has %d", len(shapes))
	}
	all := t.TempDir()
	var together []string
	for _, s := range shapes {
		writeShape(t, filepath.Join(all, s.name), s)
		if s.pkg == "" && !s.wsRoot && !s.fails {
			together = append(together, s.name)
		}
	}
	var folders []string
	for _, name := range together {
		folders = append(folders, filepath.Join(all, name))
	}
	lists, err := npmPackLists(t, all, folders...)
	if err != nil {
		t.Fatalf("npm pack of %d shapes together: %v", len(folders), err)
	}
	packed := map[string][]string{}
	for i, name := range together {
		packed[name] = lists[i]
	}
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(all, s.name)
			want, npmErr := packed[s.name], error(nil)
			if _, ok := packed[s.name]; !ok {
				want, npmErr = npmPackFiles(t, filepath.Join(root, filepath.FromSlash(s.pkg)))
			}
			var opts Options
			if s.wsRoot {
				opts.WorkspaceRoot = "."
			}
			pkg := s.pkg
			if pkg == "" {
				pkg = "."
			}
			list, err := Load(os.DirFS(root), pkg, opts)
			if s.fails != (npmErr != nil) {
				t.Fatalf("shape says fails=%v but npm pack error is %v", s.fails, npmErr)
			}
			if npmErr != nil {
				if err == nil {
					t.Fatalf("npm pack fails (%v) but Load succeeds with %q", npmErr, list.Files())
				}
				t.Logf("both fail; Load says: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("Load: %v (npm packs %q)", err, want)
			}
			got := list.Files()
			if !slices.Equal(got, want) {
				t.Errorf("files differ from npm pack\n  go:  %q\n  npm: %q\n  only go:  %q\n  only npm: %q",
					got, want, minus(got, want), minus(want, got))
			}
			checkConsistency(t, root, pkg, list)
		})
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// checkConsistency checks Has, Covers and Why against the list for every file on disk.
func checkConsistency(t *testing.T, root, pkg string, list *List) {
	t.Helper()
	base := filepath.Join(root, filepath.FromSlash(pkg))
	err := filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		has := list.Has(rel)
		if has != slices.Contains(list.Files(), rel) {
			t.Errorf("Has(%q) = %v disagrees with Files", rel, has)
		}
		why := list.Why(rel)
		if has && why != "" {
			t.Errorf("Why(%q) = %q for a packed file", rel, why)
		}
		if !has && why == "" {
			t.Errorf("Why(%q) is empty for a file npm leaves out", rel)
		}
		if list.Covers(rel) != has {
			t.Errorf("Covers(%q) = %v for an existing file, Has = %v", rel, !has, has)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
