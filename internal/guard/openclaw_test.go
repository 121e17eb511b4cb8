package guard

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/npm/tarball"
	"github.com/plaios/plaios/internal/testenv"
)

// TestOpenClawManyFiles: a plugin that bundles hundreds of files (official plugins ship
// thousands) passes; openclaw sets no limit on a plugin's file count.
func TestOpenClawManyFiles(t *testing.T) {
	t.Parallel() // see baseOptions
	dir := copyTree(t, filepath.Join(testenv.RepoRoot(t), "testdata", "guard", "fixtures"))
	files := map[string]string{}
	for i := 0; i < 600; i++ {
		files[fmt.Sprintf("packages/openclaw-good/dist/chunks/c%03d.js", i)] = fmt.Sprintf("export const c%d = %d;\n", i, i)
	}
	testenv.WriteFiles(t, dir, files)
	opts := baseOptions(t, dir)
	opts.Only = []string{"packages/openclaw-good"}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Packages[0]
	if !r.OK || r.Files < 600 || len(r.Descriptors) != 1 {
		t.Fatalf("ok=%v files=%d descriptors=%v: %s", r.OK, r.Files, r.Descriptors, r.Reason)
	}
}

// writeTarball writes a package tarball holding the given file names (empty files).
func writeTarball(t *testing.T, names []string) *tarball.Tarball {
	t.Helper()
	p := filepath.Join(t.TempDir(), "p.tgz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, n := range append([]string{"package.json"}, names...) {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + n, Mode: 0o644, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, gz, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	tb, err := tarball.Read(p, tarball.Options{Limits: tarball.Limits{Entries: 50_000}})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestOpenClawFolderLimits: the only limits guard holds a plugin to are those of openclaw's
// install scan (64 folders deep, 10 000 folders), counted on the tarball's folders.
func TestOpenClawFolderLimits(t *testing.T) {
	deep := strings.Repeat("d/", 64) + "x.js"
	if why := openClawFolderLimits(writeTarball(t, []string{deep})); why != "" {
		t.Errorf("64 deep: %s", why)
	}
	if why := openClawFolderLimits(writeTarball(t, []string{"dist/" + deep})); !strings.Contains(why, "nests folders 65 deep") || !strings.Contains(why, "deeper than 64") {
		t.Errorf("65 deep: %q", why)
	}
	var many []string
	for i := 0; i < 9_999; i++ {
		many = append(many, fmt.Sprintf("d%d/f.js", i))
	}
	if why := openClawFolderLimits(writeTarball(t, many)); why != "" {
		t.Errorf("10 000 folders with the root: %s", why)
	}
	if why := openClawFolderLimits(writeTarball(t, append(many, "one/more.js"))); !strings.Contains(why, "has 10001 folders") {
		t.Errorf("10 001 folders: %q", why)
	}
}

// TestOpenClawEntries resolves entries as the installed openclaw does.
func TestOpenClawEntries(t *testing.T) {
	cases := []struct {
		pkg     string
		files   []string
		runtime []string
		problem string
	}{
		{`{"openclaw":{"extensions":["./dist/index.js"]}}`, []string{"dist/index.js"}, []string{"dist/index.js"}, ""},
		{`{"openclaw":{"extensions":["./index.ts"],"runtimeExtensions":["./dist/index.js"]}}`, []string{"dist/index.js"}, []string{"dist/index.js"}, ""},
		{`{"openclaw":{"extensions":["./src/a.ts","./src/b.mts"]}}`, []string{"dist/a.js", "dist/b.mjs", "dist/b.js"}, []string{"dist/a.js", "dist/b.mjs"}, ""},
		{`{"openclaw":{"extensions":["./src/a.ts"]}}`, []string{"dist/src/a.cjs"}, []string{"dist/src/a.cjs"}, ""},
		{`{"openclaw":{"extensions":["./a.ts"]}}`, []string{"a.ts"}, []string{""}, "has no compiled runtime file"},
		{`{"openclaw":{"extensions":["./a.js","./b.js"],"runtimeExtensions":["./dist/a.js"]}}`, nil, nil, "openclaw.runtimeExtensions length (1) must match openclaw.extensions length (2)"},
		{`{"openclaw":{"extensions":[]}}`, nil, nil, "openclaw.extensions is empty"},
		{`{"openclaw":{}}`, nil, nil, "has no openclaw.extensions"},
		{`{"openclaw":{"extensions":["../x.js"]}}`, nil, []string{""}, "leaves the package"},
		{`{"openclaw":{"extensions":["./index.ts"],"runtimeExtensions":["./dist/index.js"]}}`, nil, []string{""}, "the tarball lacks dist/index.js, the runtime entry openclaw.runtimeExtensions names for ./index.ts"},
	}
	for _, c := range cases {
		pj := mustParse(t, c.pkg)
		has := map[string]bool{}
		for _, f := range c.files {
			has[f] = true
		}
		entries, _, problem := openClawEntries(pj, func(p string) bool { return has[p] })
		var got []string
		for _, e := range entries {
			got = append(got, e.Runtime)
			if e.Problem != "" {
				problem = e.Problem
			}
		}
		if strings.Join(got, ",") != strings.Join(c.runtime, ",") || (c.problem == "") != (problem == "") || !strings.Contains(problem, c.problem) {
			t.Errorf("%s with %v: runtime %q, problem %q", c.pkg, c.files, got, problem)
		}
	}
}

func mustParse(t *testing.T, s string) *jsonpos.Value {
	t.Helper()
	v, err := jsonpos.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
