package catalog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/plaios/plaios/internal/jsonpos"
)

func corpus(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus", "agentos-extensions"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// entryTexts maps each catalog entry's path to its exact bytes in the file.
func entryTexts(t *testing.T, data []byte) (map[string]string, *jsonpos.Value) {
	t.Helper()
	v, err := jsonpos.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, section := range []string{"curated", "community", "templates"} {
		for _, e := range v.Path("extensions", section).Items {
			out[e.Get("path").Text()] = string(data[e.Pos.Offset:e.End])
		}
	}
	return out, v
}

// TestMatchesTheRealCatalog regenerates the catalog from the AgentOS corpus and compares each
// entry, byte for byte, with the entry the repository's own script wrote.
func TestMatchesTheRealCatalog(t *testing.T) {
	dir := corpus(t)
	real, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		t.Fatal(err)
	}
	realEntries, realDoc := entryTexts(t, real)
	updated, err := time.Parse(time.RFC3339, realDoc.Get("updated").Text())
	if err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	if !Present(fsys) {
		t.Fatal("the corpus has a catalog")
	}
	got, err := Generate(fsys, Options{Updated: updated})
	if err != nil {
		t.Fatal(err)
	}
	gotEntries, gotDoc := entryTexts(t, got)
	if len(gotEntries) != 11 {
		t.Errorf("%d entries, want the corpus's 10 curated packs and 1 template", len(gotEntries))
	}
	for p, text := range gotEntries {
		want, ok := realEntries[p]
		if !ok {
			t.Errorf("%s: not in the real catalog", p)
			continue
		}
		if text != want {
			t.Errorf("%s differs from the real catalog:\n--- got\n%s\n--- want\n%s", p, text, want)
		}
	}
	if _, ok := gotEntries["registry/curated/auth"]; ok {
		t.Error("the flat registry/curated/auth package is not a <category>/<name> pack and has no entry")
	}
	if gotDoc.Get("updated").Text() != realDoc.Get("updated").Text() {
		t.Errorf("updated = %s", gotDoc.Get("updated").Text())
	}
	if !bytes.HasSuffix(got, []byte("\n  }\n}")) {
		t.Error("JSON.stringify writes no final newline")
	}
	cats := gotDoc.Path("categories", "curated").Strings()
	if strings.Join(cats, ",") != "auth,channels,communications,media,memory,provenance,research,safety,tools,voice" {
		t.Errorf("curated categories = %v", cats)
	}
	if s := gotDoc.Path("stats", "totalExtensions"); s.Raw != "11" {
		t.Errorf("stats.totalExtensions = %s", s.Raw)
	}
}

func TestStableAndVersioned(t *testing.T) {
	fsys := os.DirFS(corpus(t))
	when := time.Date(2026, 1, 2, 3, 4, 5, 600e6, time.UTC)
	a, err := Generate(fsys, Options{Updated: when})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(fsys, Options{Updated: when})
	if !bytes.Equal(a, b) {
		t.Fatal("two generations from the same tree differ")
	}
	if !bytes.Contains(a, []byte(`"updated": "2026-01-02T03:04:05.600Z"`)) {
		t.Error("updated must be the given time as toISOString writes it")
	}
	later, _ := Generate(fsys, Options{Updated: when.Add(time.Hour)})
	if bytes.Equal(a, later) || !Equal(a, later) {
		t.Error("catalogs differing only by time must be Equal, and differ in bytes")
	}
	bumped, _ := Generate(fsys, Options{Updated: when, Versions: map[string]string{"@framers/agentos-ext-web-search": "1.1.2"}})
	if Equal(a, bumped) {
		t.Error("a new version must make the catalog differ")
	}
	entries, _ := entryTexts(t, bumped)
	if !strings.Contains(entries["registry/curated/research/web-search"], `"version": "1.1.2"`) {
		t.Error("the version override is not written")
	}
	if Equal(a, []byte("{not json")) {
		t.Error("an unparsable catalog equals nothing")
	}
}

func TestScriptSemantics(t *testing.T) {
	fsys := fstest.MapFS{
		"package.json":                        {Data: []byte(`{"name":"@framers/agentos-extensions","repository":{"url":"git+https://github.com/acme/exts.git"}}`)},
		"registry/curated/x/.keep":            {Data: []byte("")},
		"registry/curated/x/a/package.json":   {Data: []byte(`{"name":"@acme/a","version":"1.0.0","keywords":["from-package"],"author":"Pkg Author","description":"A <b>&</b> pack"}`)},
		"registry/curated/x/a/manifest.json":  {Data: []byte(`{"id":"","name":"","extensions":[{"id":"t1"},{"kind":"tool"}],"features":["f\u2028","tab\there"],"author":{"n":1e-7,"m":1.50,"2":"int key first","k":"dup","k":"last wins"}}`)},
		"registry/curated/x/b/package.json":   {Data: []byte(`{"name":"@acme/b"}`)},
		"registry/community/c/d/package.json": {Data: []byte(`{"name":"@other/d","version":"0.0.1","description":"community"}`)},
		"templates/t/package.json":            {Data: []byte(`{"name":"@acme/template-t","version":"2.0.0"}`)},
		"templates/notapackage.md":            {Data: []byte("x")},
	}
	got, err := Generate(fsys, Options{Updated: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, want := range []string{
		`"id": "com.framers.x.a"`,                                // an empty manifest id falls back
		`"name": "A <b>&</b> pack"`,                              // no HTML escaping, and description as the name
		`"author": {` + "\n" + `          "2": "int key first",`, // integer-like keys first
		`"n": 1e-7`, `"m": 1.5`, `"k": "last wins"`,
		"\"f\u2028\"", `"tab\there"`,
		`"tools": [` + "\n" + `          "t1",` + "\n" + `          null` + "\n" + `        ]`,
		`"keywords": [` + "\n" + `          "from-package"`,
		`"repository": "https://github.com/acme/exts/tree/master/registry/curated/x/a"`,
		`"id": "com.community.c.d"`,
		`"id": "com.framers.template.t"`,
		`"name": "t"`,
		`"communityCount": 1`,
		`"npm": "https://www.npmjs.com/package/@acme/b"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("catalog lacks %q:\n%s", want, s)
		}
	}
	// An entry without a version or description leaves those keys out, as undefined.
	entries, _ := entryTexts(t, got)
	if b := entries["registry/curated/x/b"]; strings.Contains(b, `"version"`) || strings.Contains(b, `"description"`) || strings.Contains(b, `"name"`) {
		t.Errorf("undefined values must be left out:\n%s", b)
	}
	if strings.Contains(entries["registry/community/c/d"], "verified") || strings.Contains(entries["registry/community/c/d"], "features") {
		t.Errorf("community entries carry no verification or features:\n%s", entries["registry/community/c/d"])
	}
	if _, err := Generate(fstest.MapFS{"registry/curated/x/a/package.json": {Data: []byte("{broken")}}, Options{}); err == nil || !strings.Contains(err.Error(), "registry/curated/x/a/package.json") {
		t.Errorf("a broken package.json must be named: %v", err)
	}
	if Present(fstest.MapFS{"package.json": {Data: []byte(`{}`)}}) {
		t.Error("no registry/curated: no catalog")
	}
	if !Present(fstest.MapFS{"package.json": {Data: []byte(`{"files":["./registry.json"]}`)}, "registry/curated/a/b/package.json": {Data: []byte(`{}`)}}) {
		t.Error("a root that ships registry.json has a catalog even when it is not tracked")
	}
}

func TestFormatNumber(t *testing.T) {
	cases := map[float64]string{0: "0", 1: "1", -2.5: "-2.5", 1e21: "1e+21", 1e20: "100000000000000000000", 1e-6: "0.000001", 1e-7: "1e-7", 123.456: "123.456"}
	for f, want := range cases {
		if got := formatNumber(f); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", f, got, want)
		}
	}
}
