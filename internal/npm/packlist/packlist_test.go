package packlist

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for name, data := range files {
		m[name] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
	}
	return m
}

func mustLoad(t *testing.T, fsys fs.FS, dir string, opts Options) *List {
	t.Helper()
	l, err := Load(fsys, dir, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

func TestWhyPhrases(t *testing.T) {
	fsys := mapFS(map[string]string{
		"package.json":         `{"name":"p","version":"1.0.0","files":["dist","!dist/*.map","src/index.js"]}`,
		"dist/index.js":        "x",
		"dist/index.js.map":    "x",
		"dist/.npmignore":      "# generated\n\nlegacy/\n",
		"dist/legacy/old.js":   "x",
		"src/index.js":         "x",
		"src/other.js":         "x",
		"test/a.test.js":       "x",
		".npmrc":               "x",
		"dist/.git/HEAD":       "x",
		"node_modules/x/a.js":  "x",
		"package-lock.json":    "{}",
		"README.md":            "x",
		"dist/.DS_Store":       "x",
		"dist/sub/build.orig":  "x",
		"dist/star*name.js":    "x",
		"dist/keep/.gitignore": "*.tmp\n",
		"dist/keep/a.tmp":      "x",
		"dist/keep/a.js":       "x",
	})
	l := mustLoad(t, fsys, ".", Options{})
	want := []string{"README.md", "dist/index.js", "dist/keep/a.js", "package.json", "src/index.js"}
	if got := l.Files(); !slices.Equal(got, want) {
		t.Fatalf("Files() = %q, want %q", got, want)
	}
	for path, why := range map[string]string{
		"dist/index.js.map":   `excluded by the "files" entry "!dist/*.map"`,
		"dist/legacy/old.js":  `excluded by dist/.npmignore line 3 ("legacy/")`,
		"src/other.js":        `not listed in "files"`,
		"test/a.test.js":      `not listed in "files"`,
		".npmrc":              "npm never packs .npmrc",
		"dist/.git/HEAD":      "npm never packs .git",
		"node_modules/x/a.js": "npm never packs node_modules (only bundled dependencies)",
		"package-lock.json":   "npm never packs package-lock.json",
		"dist/.DS_Store":      "npm never packs .DS_Store",
		"dist/sub/build.orig": "npm never packs *.orig files",
		"dist/star*name.js":   `npm does not pack names containing "*"`,
		"dist/keep/a.tmp":     `excluded by dist/keep/.gitignore line 1 ("*.tmp")`,
		"dist/missing.js":     "it does not exist",
		"../outside.js":       "it is not inside the package",
		"dist":                "it is a folder",
		"dist/index.js":       "",
		"./README.md":         "",
	} {
		if got := l.Why(path); got != why {
			t.Errorf("Why(%q) = %q, want %q", path, got, why)
		}
	}
}

func TestCoversBeforeBuild(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		yes   []string
		no    []string
	}{
		{
			name:  "files names a folder that does not exist yet",
			files: map[string]string{"package.json": `{"name":"p","version":"1.0.0","files":["dist"]}`, "src/a.ts": "x"},
			yes:   []string{"dist/index.js", "dist/deep/x.js", "README.md", "package.json"},
			no:    []string{"src/b.ts", "index.js", "dist/.npmrc"},
		},
		{
			name:  "files names the file itself",
			files: map[string]string{"package.json": `{"name":"p","version":"1.0.0","files":["dist/index.js"]}`},
			yes:   []string{"dist/index.js"},
			no:    []string{"dist/other.js"},
		},
		{
			name:  "a .gitignore excludes the build output when there is no files field",
			files: map[string]string{"package.json": `{"name":"p","version":"1.0.0"}`, ".gitignore": "dist\n", "src/a.js": "x"},
			yes:   []string{"src/b.js", "lib/c.js"},
			no:    []string{"dist/index.js", "src/a.js/x"},
		},
		{
			name:  "an .npmignore inside files leaves maps out",
			files: map[string]string{"package.json": `{"name":"p","version":"1.0.0","files":["dist"]}`, "dist/.npmignore": "*.map\n"},
			yes:   []string{"dist/index.js"},
			no:    []string{"dist/index.js.map", "dist/.npmignore"},
		},
		{
			name:  "an existing file that is left out is not covered",
			files: map[string]string{"package.json": `{"name":"p","version":"1.0.0","files":["lib"]}`, "src/a.js": "x", "lib/a.js": "x"},
			yes:   []string{"lib/a.js", "lib/b.js"},
			no:    []string{"src/a.js", "lib", "", "../x.js", "/etc/passwd"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := mustLoad(t, mapFS(c.files), ".", Options{})
			for _, p := range c.yes {
				if !l.Covers(p) {
					t.Errorf("Covers(%q) = false, want true", p)
				}
			}
			for _, p := range c.no {
				if l.Covers(p) {
					t.Errorf("Covers(%q) = true, want false", p)
				}
			}
			// Covers must not change the list.
			for _, p := range c.yes {
				if l.Has(p) && !slices.Contains(l.Files(), p) {
					t.Errorf("Has(%q) changed after Covers", p)
				}
			}
		})
	}
}

func TestSymlinksInMapFS(t *testing.T) {
	fsys := mapFS(map[string]string{
		"package.json":   `{"name":"p","version":"1.0.0","main":"link.js"}`,
		"real/a.js":      "x",
		"target.js":      "x",
		"shared.ignore":  "*.log\n",
		"a.log":          "x",
		"sub/.npmignore": "b.js\n",
		"sub/b.js":       "x",
	})
	fsys["link.js"] = &fstest.MapFile{Data: []byte("target.js"), Mode: fs.ModeSymlink}
	fsys["linkdir"] = &fstest.MapFile{Data: []byte("real"), Mode: fs.ModeSymlink}
	fsys[".npmignore"] = &fstest.MapFile{Data: []byte("shared.ignore"), Mode: fs.ModeSymlink}
	l := mustLoad(t, fsys, ".", Options{})
	want := []string{"package.json", "real/a.js", "shared.ignore", "target.js"}
	if got := l.Files(); !slices.Equal(got, want) {
		t.Errorf("Files() = %q, want %q (links are never packed; a linked .npmignore is read)", got, want)
	}
	if got := l.Why("link.js"); got != "npm does not pack symbolic links" {
		t.Errorf("Why(link.js) = %q", got)
	}
	if got := l.Why("a.log"); got != `excluded by .npmignore line 1 ("*.log")` {
		t.Errorf("Why(a.log) = %q", got)
	}
}

func TestWorkspacePackageInGitTreeLikeFS(t *testing.T) {
	fsys := mapFS(map[string]string{
		"package.json":                  `{"name":"root","private":true,"workspaces":["packs/*"]}`,
		".gitignore":                    "dist\n*.log\n",
		"packs/.npmignore":              "*.test.js\n",
		"packs/web/package.json":        `{"name":"@x/web","version":"1.0.0"}`,
		"packs/web/index.js":            "x",
		"packs/web/index.test.js":       "x",
		"packs/web/dist/out.js":         "x",
		"packs/web/debug.log":           "x",
		"packs/web/sub/.npmignore":      "",
		"packs/web/sub/packs/web/x.txt": "x",
	})
	l := mustLoad(t, fsys, "packs/web", Options{WorkspaceRoot: "."})
	want := []string{"index.js", "package.json", "sub/packs/web/x.txt"}
	if got := l.Files(); !slices.Equal(got, want) {
		t.Errorf("Files() = %q, want %q", got, want)
	}
	if got := l.Why("dist/out.js"); got != `excluded by ../../.gitignore line 1 ("dist")` {
		t.Errorf("Why(dist/out.js) = %q", got)
	}
	if got := l.Why("index.test.js"); got != `excluded by ../.npmignore line 1 ("*.test.js")` {
		t.Errorf("Why(index.test.js) = %q", got)
	}
	if _, err := Load(fsys, "packs/web", Options{WorkspaceRoot: "packs/web/sub"}); err == nil {
		t.Error("Load accepted a workspace root inside the package")
	}
}

func TestLoadErrors(t *testing.T) {
	for name, c := range map[string]struct {
		files map[string]string
		want  string
	}{
		"no package.json":         {map[string]string{"a.js": "x"}, "read package.json"},
		"invalid json":            {map[string]string{"package.json": `{"name":`}, "parse package.json"},
		"files object":            {map[string]string{"package.json": `{"files":{"a":1}}`}, `"files" must be an array of strings, not object`},
		"files number":            {map[string]string{"package.json": `{"files":["a",1]}`}, `"files" entries must be strings, not number`},
		"rule npm rejects":        {map[string]string{"package.json": `{}`, ".npmignore": "ok\n[[:alpha:]]-x\n"}, `npm cannot use the ignore rule "[[:alpha:]]-x" (.npmignore line 2`},
		"ignore file is a folder": {map[string]string{"package.json": `{}`, ".npmignore/x": "x"}, "read .npmignore"},
		"workspaces not an array": {map[string]string{"package.json": `{"workspaces":"packages/*"}`}, `"workspaces" must be an array`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(mapFS(c.files), ".", Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load error = %v, want one containing %q", err, c.want)
			}
		})
	}
	var me *ManifestError
	_, err := Load(mapFS(map[string]string{"package.json": "{\n  \"files\": 3\n}"}), ".", Options{})
	if !errors.As(err, &me) || me.Pos.Line != 2 {
		t.Errorf("want a ManifestError at line 2, got %v", err)
	}
}

func TestFilesSortedAndPackageInSubfolder(t *testing.T) {
	fsys := mapFS(map[string]string{
		"repo/pkg/package.json": `{"name":"p","version":"1.0.0"}`,
		"repo/pkg/b.js":         "x",
		"repo/pkg/B.js":         "x",
		"repo/pkg/a/z.js":       "x",
		"repo/pkg/_x.js":        "x",
		"repo/other.js":         "x",
	})
	l := mustLoad(t, fsys, "./repo/pkg/", Options{})
	want := []string{"B.js", "_x.js", "a/z.js", "b.js", "package.json"}
	if got := l.Files(); !slices.Equal(got, want) {
		t.Errorf("Files() = %q, want byte order %q", got, want)
	}
}
