package releaseplan

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plaios/plaios/internal/npm/packlist"
	"github.com/plaios/plaios/release"
)

func TestSetJSONVersion(t *testing.T) {
	cases := []struct {
		name, in, want string
		json5, insert  bool
	}{
		{"crlf and four spaces",
			"{\r\n    \"name\": \"a\",\r\n    \"version\":   \"1.0.0\",\r\n    \"x\": [1, 2]\r\n}\r\n",
			"{\r\n    \"name\": \"a\",\r\n    \"version\":   \"1.0.1\",\r\n    \"x\": [1, 2]\r\n}\r\n", false, true},
		{"tabs, no final newline, unicode before",
			"{\t\"description\": \"héllo — ✓\",\t\"version\":\"0.9.0\"}",
			"{\t\"description\": \"héllo — ✓\",\t\"version\":\"1.0.1\"}", false, true},
		{"duplicate keys all follow",
			`{"version":"1.0.0","name":"a","version":"1.0.0"}`,
			`{"version":"1.0.1","name":"a","version":"1.0.1"}`, false, true},
		{"json5 single quotes and comments",
			"{\n  // the plugin\n  id: 'x',\n  version: '1.0.0', /* keep */\n  name: \"n\",\n}\n",
			"{\n  // the plugin\n  id: 'x',\n  version: '1.0.1', /* keep */\n  name: \"n\",\n}\n", true, false},
		{"missing version inserted after name",
			"{\n    \"name\": \"a\",\n    \"private\": false\n}\n",
			"{\n    \"name\": \"a\",\n    \"version\": \"1.0.1\",\n    \"private\": false\n}\n", false, true},
		{"missing version in an empty object",
			`{}`, `{"version": "1.0.1"}`, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			version := "1.0.1"
			got, err := SetJSONVersion([]byte(tc.in), version, tc.json5, tc.insert)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	if _, err := SetJSONVersion([]byte(`{"name":"a"}`), "1.0.0", false, false); !errors.Is(err, errNoVersion) {
		t.Errorf("a manifest without a version is left alone: %v", err)
	}
	if _, err := SetJSONVersion([]byte(`{"name":`), "1.0.0", false, true); err == nil {
		t.Error("broken JSON must fail")
	}
}

func TestSetYAMLVersion(t *testing.T) {
	cases := []struct{ in, want string }{
		{"# PLAIOS pack\nschemaVersion: 1\nid: weather   # the id\nversion: 1.0.0 # bumped by release-plan\ninterfaces:\n  - id: a\n",
			"# PLAIOS pack\nschemaVersion: 1\nid: weather   # the id\nversion: 1.2.0 # bumped by release-plan\ninterfaces:\n  - id: a\n"},
		{"id: x\r\nversion: \"1.0.0\"\r\nname: y\r\n", "id: x\r\nversion: \"1.2.0\"\r\nname: y\r\n"},
		{"version:    '1.0.0'\n", "version:    '1.2.0'\n"},
		{"{id: x, version: 1.0.0, name: y}\n", "{id: x, version: 1.2.0, name: y}\n"},
		{"nested:\n  version: 9.9.9\nversion: 1.0.0\n", "nested:\n  version: 9.9.9\nversion: 1.2.0\n"},
	}
	for _, tc := range cases {
		got, err := SetYAMLVersion([]byte(tc.in), "1.2.0")
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
	if _, err := SetYAMLVersion([]byte("version: |\n  1.0.0\n"), "1.2.0"); err == nil {
		t.Error("a block scalar must not be rewritten")
	}
	if _, err := SetYAMLVersion([]byte("id: x\n"), "1.2.0"); !errors.Is(err, errNoVersion) {
		t.Errorf("no version: %v", err)
	}
}

func TestCommitIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	b := filepath.Join(dir, "b.json")
	if err := os.WriteFile(a, []byte("old a"), 0o640); err != nil {
		t.Fatal(err)
	}
	// b is a non-empty folder: renaming a file over it fails after a was replaced.
	if err := os.MkdirAll(filepath.Join(b, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := commit([]edit{
		{path: a, rel: "a.json", old: []byte("old a"), new: []byte("new a"), existed: true, mode: 0o640},
		{path: b, rel: "b.json", old: nil, new: []byte("new b"), existed: true, mode: 0o644},
	})
	if err == nil || !strings.Contains(err.Error(), "b.json") || !strings.Contains(err.Error(), "nothing changed") {
		t.Fatalf("commit = %v", err)
	}
	if data, _ := os.ReadFile(a); string(data) != "old a" {
		t.Errorf("a was not restored: %q", data)
	}
	if st, _ := os.Stat(a); st.Mode().Perm() != 0o640 {
		t.Errorf("a's mode changed to %v", st.Mode())
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*plaios*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	// A successful commit replaces everything and keeps modes.
	c := filepath.Join(dir, "c.json")
	if err := commit([]edit{{path: a, rel: "a.json", old: []byte("old a"), new: []byte("new a"), existed: true, mode: 0o640},
		{path: c, rel: "c.json", new: []byte("new c"), mode: 0o644}}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(a); string(data) != "new a" {
		t.Errorf("a = %q", data)
	}
	if data, _ := os.ReadFile(c); string(data) != "new c" {
		t.Errorf("c = %q", data)
	}
}

func TestTitleFromCommit(t *testing.T) {
	cases := []struct{ subject, body, title, wantBody string }{
		{"feat!: x (#12)", "BREAKING CHANGE: y", "feat!: x (#12)", "BREAKING CHANGE: y"},
		{"Merge pull request #12 from me/branch", "feat(api)!: rename\n\nDetails.", "feat(api)!: rename", "Details."},
		{"Merge pull request #12 from me/branch", "", "Merge pull request #12 from me/branch", ""},
		{"Merge branch 'main' into x", "fix: y", "Merge branch 'main' into x", "fix: y"},
	}
	for _, tc := range cases {
		title, body := TitleFromCommit(tc.subject, tc.body)
		if title != tc.title || body != tc.wantBody {
			t.Errorf("TitleFromCommit(%q, %q) = %q, %q", tc.subject, tc.body, title, body)
		}
	}
}

func TestBuildInputs(t *testing.T) {
	fsys := fstest.MapFS{
		"tsconfig.base.json": {Data: []byte(`{
			// shared
			"compilerOptions": {"strict": true, "outDir": "ignored-because-the-package-sets-its-own",},
		}`)},
		"packs/a/package.json":    {Data: []byte(`{"name":"a","version":"1.0.0","files":["dist","manifest.json"]}`)},
		"packs/a/tsconfig.json":   {Data: []byte(`{"extends": "../../tsconfig.base", "compilerOptions": {"outDir": "./dist", "rootDir": "./src"}, "include": ["src"]}`)},
		"packs/a/src/index.ts":    {Data: []byte("export {}")},
		"packs/a/src/tools/x.mts": {Data: []byte("export {}")},
		"packs/a/src/types.d.ts":  {Data: []byte("")},
		"packs/a/test/a.test.ts":  {Data: []byte("")},
		"packs/a/manifest.json":   {Data: []byte(`{}`)},
		"packs/b/package.json":    {Data: []byte(`{"name":"b","version":"1.0.0","files":["dist/src"]}`)},
		"packs/b/tsconfig.json":   {Data: []byte(`{"compilerOptions": {"outDir": "dist"}}`)},
		"packs/b/src/index.ts":    {Data: []byte("")},
		"packs/b/web/page.tsx":    {Data: []byte("")},
		"packs/c/package.json":    {Data: []byte(`{"name":"c","version":"1.0.0","files":["dist"]}`)},
		"packs/c/tsconfig.json":   {Data: []byte(`{"compilerOptions": {"noEmit": true}}`)},
		"packs/c/src/index.ts":    {Data: []byte("")},
		"packs/d/package.json":    {Data: []byte(`{"name":"d","version":"1.0.0"}`)},
		"packs/d/index.ts":        {Data: []byte("")},
	}
	cases := map[string]string{
		// rootDir src, outDir dist: sources map to dist/…, tests are not included.
		"packs/a": "packs/a/src/index.ts packs/a/src/tools/x.mts packs/a/tsconfig.json",
		// rootDir is the common folder (the package): only dist/src ships.
		"packs/b": "packs/b/src/index.ts packs/b/tsconfig.json",
		// noEmit: a bundler builds it; not mapped.
		"packs/c": "",
		// No tsconfig up to the root but the base one is not named tsconfig.json: nothing.
		"packs/d": "",
	}
	var all []string
	for f := range fsys {
		all = append(all, f)
	}
	sort.Strings(all)
	for dir, want := range cases {
		list, err := packlist.Load(fsys, dir, packlist.Options{WorkspaceRoot: "."})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(buildInputs(fsys, dir, list, all), " ")
		if got != want {
			t.Errorf("%s: build inputs = %q, want %q", dir, got, want)
		}
	}
	// Only changed sources are considered.
	list, _ := packlist.Load(fsys, "packs/a", packlist.Options{WorkspaceRoot: "."})
	if got := buildInputs(fsys, "packs/a", list, []string{"packs/a/src/index.ts", "packs/a/README.md", "packs/b/src/index.ts"}); strings.Join(got, " ") != "packs/a/src/index.ts packs/a/tsconfig.json" {
		t.Errorf("changed sources only: %v", got)
	}
	if got := buildInputs(fsys, "packs/a", list, []string{"packs/a/test/a.test.ts"}); got != nil {
		t.Errorf("a test source is not compiled into dist: %v", got)
	}
}

// TestChangelogEdit prepends entries as changesets does, never twice for one version, and
// creates a missing file with its heading; the old content is streamed from the file.
func TestChangelogEdit(t *testing.T) {
	entry := func(v string) string { return "## " + v + "\n\n### Patch Changes\n\n- fix: x (#1)\n" }
	rel := func(v string) release.Release {
		return release.Release{Name: "@a/b", Dir: "packages/b", Next: v, Changelog: entry(v)}
	}
	real := "# @framers/agentos-ext-web-search\n\n## 1.1.0\n\n### Minor Changes\n\n- [`e6a2eb6`](https://github.com/framersai/agentos-extensions/commit/e6a2eb6) Thanks [@jddunn](https://github.com/jddunn)! - Initial release.\n\n  - Web Search: Search\n"
	for _, c := range []struct {
		name, before string // "" with missing: no file
		missing      bool
		version      string
		want         string // "" : no edit
	}{
		{name: "missing file", missing: true, version: "0.1.0", want: "# @a/b\n\n" + entry("0.1.0")},
		{name: "empty file", before: "", version: "0.1.0", want: "# @a/b\n\n" + entry("0.1.0")},
		{name: "a changesets file", before: real, version: "1.1.1",
			want: "# @framers/agentos-ext-web-search\n\n" + entry("1.1.1") + "\n## 1.1.0\n\n### Minor Changes\n\n- [`e6a2eb6`](https://github.com/framersai/agentos-extensions/commit/e6a2eb6) Thanks [@jddunn](https://github.com/jddunn)! - Initial release.\n\n  - Web Search: Search\n"},
		{name: "the version is there already", before: real, version: "1.1.0"},
		{name: "heading only", before: "# @a/b\n", version: "0.2.0", want: "# @a/b\n\n" + entry("0.2.0")},
		{name: "crlf", before: "# @a/b\r\n\r\n## 0.1.0\r\n", version: "0.2.0",
			want: "# @a/b\r\n\r\n" + strings.ReplaceAll(entry("0.2.0"), "\n", "\r\n") + "\r\n## 0.1.0\r\n"},
		{name: "no title line", before: "Release notes\n", version: "0.2.0", want: entry("0.2.0") + "\nRelease notes\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			file := filepath.Join(root, "packages", "b", "CHANGELOG.md")
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if !c.missing {
				if err := os.WriteFile(file, []byte(c.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r := &Result{Root: root}
			e, err := r.changelogEdit(rel(c.version))
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if e != nil {
					t.Fatalf("an edit for a version the file has: %q", e.new)
				}
				return
			}
			if e == nil || e.rel != "packages/b/CHANGELOG.md" {
				t.Fatalf("edit = %+v", e)
			}
			if err := commit([]edit{*e}); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(file)
			if string(got) != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
			if st, _ := os.Stat(file); !c.missing && st.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(file), ".*")); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
			// Run again: the version is there now, nothing to add.
			if again, err := r.changelogEdit(rel(c.version)); err != nil || again != nil {
				t.Errorf("a second run would edit again: %v %v", again, err)
			}
		})
	}
}

// TestCommitRestoresAStreamedEdit: when a later rename fails, a prepended changelog gets its
// old content back from its hard link.
func TestCommitRestoresAStreamedEdit(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "CHANGELOG.md")
	if err := os.WriteFile(file, []byte("# a\n\n## 0.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Result{Root: root}
	e, err := r.changelogEdit(release.Release{Name: "a", Dir: ".", Next: "0.2.0", Changelog: "## 0.2.0\n"})
	if err != nil || e == nil {
		t.Fatal(e, err)
	}
	// The second target's folder is a file: its rename fails after the first one happened.
	blocker := filepath.Join(root, "blocker")
	if err := os.Mkdir(blocker, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := edit{path: filepath.Join(blocker, "x"), rel: "blocker/x", new: []byte("x"), mode: 0o644}
	err = commitWith([]edit{*e, bad}, func() { os.RemoveAll(blocker); os.WriteFile(blocker, nil, 0o644) })
	if err == nil {
		t.Fatal("the second rename must fail")
	}
	if got, _ := os.ReadFile(file); string(got) != "# a\n\n## 0.1.0\n" {
		t.Errorf("not restored: %q", got)
	}
}
