package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plaios/plaios/internal/testenv"
)

func dirs(ws *Workspace) string {
	var d []string
	for _, p := range ws.Packages {
		d = append(d, p.Dir)
	}
	return strings.Join(d, " ")
}

func TestDiscoverPnpm(t *testing.T) {
	fsys := fstest.MapFS{
		"pnpm-workspace.yaml":                         {Data: []byte("packages:\n  - \".\"\n  - \"registry/curated/*\"\n  - \"registry/curated/*/*\"\n  - \"templates/*\"\n  - \"!templates/old\"\n")},
		"package.json":                                {Data: []byte(`{"name":"root","version":"1.0.0"}`)},
		"registry/curated/auth/package.json":          {Data: []byte(`{"name":"auth","version":"1.0.0"}`)},
		"registry/curated/tools/zip/package.json":     {Data: []byte(`{"name":"zip","version":"1.0.0","private":true}`)},
		"registry/curated/tools/README.md":            {Data: []byte("not a package")},
		"templates/basic/package.json":                {Data: []byte(`{"name":"basic","version":"1.0.0"}`)},
		"templates/old/package.json":                  {Data: []byte(`{"name":"old","version":"1.0.0"}`)},
		"templates/basic/node_modules/x/package.json": {Data: []byte(`{"name":"x"}`)},
		"scripts/package-roles.json":                  {Data: []byte(`{"roles":{".":"root","registry/curated/auth":"library","./registry/curated/tools/zip":"pack"},"libraryExports":{"registry/curated/auth":["a","b"]},"fixtures":{"registry/curated/auth":{"secrets":{"k":"v"},"options":{"n":1},"installScripts":["bcrypt"]}}}`)},
	}
	ws, err := Discover(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Source != "pnpm" || ws.PackManager != "pnpm" {
		t.Errorf("source %s, pack manager %s", ws.Source, ws.PackManager)
	}
	if got := dirs(ws); got != ". registry/curated/auth registry/curated/tools/zip templates/basic" {
		t.Errorf("packages = %s", got)
	}
	auth := ws.Package("registry/curated/auth")
	if auth.Role != RoleLibrary || strings.Join(ws.Roles.LibraryExports[auth.Dir], ",") != "a,b" {
		t.Errorf("auth = %+v", auth)
	}
	fx := ws.Roles.Fixtures[auth.Dir]
	if fx.Secrets["k"] != "v" || fx.Options["n"].(float64) != 1 || fx.InstallScripts[0] != "bcrypt" {
		t.Errorf("fixture = %+v", fx)
	}
	if ws.Package("registry/curated/tools/zip").Role != RolePack {
		t.Error("a ./-prefixed role key must be cleaned")
	}
	if ws.Publishable(ws.Package("registry/curated/tools/zip")) || ws.Publishable(ws.Package("templates/basic")) || !ws.Publishable(auth) {
		t.Error("publishable: private packages and packages without a role are not")
	}
}

func TestDiscoverNpmAndSingle(t *testing.T) {
	ws, err := Discover(fstest.MapFS{
		"package.json":              {Data: []byte(`{"name":"r","private":true,"workspaces":{"packages":["packages/**"]}}`)},
		"packages/a/package.json":   {Data: []byte(`{"name":"a"}`)},
		"packages/x/b/package.json": {Data: []byte(`{"name":"b"}`)},
	})
	if err != nil || ws.Source != "npm" || dirs(ws) != "packages/a packages/x/b" {
		t.Fatalf("npm workspaces: %v %+v", err, ws)
	}
	ws, err = Discover(fstest.MapFS{"package.json": {Data: []byte(`{"name":"solo","version":"1.0.0"}`)}})
	if err != nil || ws.Source != "single" || dirs(ws) != "." || !ws.Publishable(ws.Packages[0]) {
		t.Fatalf("single: %v %+v", err, ws)
	}
	if _, err := Discover(fstest.MapFS{"README.md": {Data: []byte("x")}}); err == nil {
		t.Fatal("a folder without package.json must be refused")
	}
	ws, _ = Discover(fstest.MapFS{"package.json": {Data: []byte(`{"name": }`)}})
	if ws.Packages[0].JSON.Err == nil {
		t.Fatal("a broken package.json is kept with its error")
	}
	ws, _ = Discover(fstest.MapFS{"pnpm-workspace.yaml": {Data: []byte("packages: [\n")}, "package.json": {Data: []byte(`{}`)}})
	if len(ws.Problems) != 1 || ws.Problems[0].Line == 0 {
		t.Fatalf("a broken pnpm-workspace.yaml is a problem with a line: %+v", ws.Problems)
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		glob, name string
		want       bool
	}{
		{"packages/*", "packages/a", true},
		{"packages/*", "packages/a/b", false},
		{"packages/**", "packages/a/b", true},
		{"{apps,libs}/*", "libs/x", true},
		{"registry/curated/*/*", "registry/curated/auth", false},
		{"p/[ab]*", "p/bx", true},
	} {
		if got := Match(c.glob, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v", c.glob, c.name, got)
		}
	}
}

func TestFindRoot(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{
		"package.json":            `{"private":true,"workspaces":["packages/*"]}`,
		"packages/a/package.json": `{"name":"a"}`,
	} {
		p := filepath.Join(root, name)
		_ = mkdirWrite(p, content)
	}
	if got := FindRoot(filepath.Join(root, "packages", "a")); got != root {
		t.Errorf("FindRoot = %s, want %s", got, root)
	}
}

// TestPackageRoot holds PackageRoot to npm: for each package folder of an npm workspace, the
// root it names is the folder the pinned npm's `npm prefix` prints there — the root that lists
// it, or the folder itself when no workspace above it lists it. The folders npm names
// differently on purpose are checked apart: a root is its own (npm names an outer root that
// lists it), a folder that holds packages belongs to the root that lists them, and a
// pnpm-workspace.yaml (which npm does not read) is a root like a package.json's workspaces.
func TestPackageRoot(t *testing.T) {
	root := t.TempDir()
	testenv.WriteFiles(t, root, map[string]string{
		"package.json":                       `{"private":true,"workspaces":["packages/*","inner"]}`,
		"packages/a/package.json":            `{"name":"a"}`,
		"packages/a/examples/e/package.json": `{"name":"e"}`,
		"examples/b/package.json":            `{"name":"b"}`,
		"inner/package.json":                 `{"name":"inner","workspaces":["packages/*"]}`,
		"inner/packages/d/package.json":      `{"name":"d"}`,
		"inner/other/f/package.json":         `{"name":"f"}`,
		"libs/pnpm-workspace.yaml":           "packages:\n  - \"lib/*\"\n",
		"libs/package.json":                  `{"name":"libs","private":true}`,
		"libs/lib/g/package.json":            `{"name":"g"}`,
		"libs/tools/h/package.json":          `{"name":"h"}`,
	})
	npm, env := testenv.OracleNPM(t)
	env = testenv.WithHome(env, t.TempDir())
	for dir, want := range map[string]string{
		"packages/a":            ".",
		"packages/a/examples/e": "packages/a/examples/e",
		"examples/b":            "examples/b",
		"inner/packages/d":      "inner",
		"inner/other/f":         "inner/other/f",
	} {
		abs := filepath.Join(root, filepath.FromSlash(dir))
		wantAbs := filepath.Join(root, filepath.FromSlash(want))
		if got := strings.TrimSpace(testenv.Run(t, abs, env, npm[0], append(npm[1:], "prefix")...)); got != wantAbs {
			t.Fatalf("npm prefix in %s is %s, want %s: the oracle no longer says what this test expects", dir, got, wantAbs)
		}
		if got := PackageRoot(abs); got != wantAbs {
			t.Errorf("PackageRoot(%s) = %s, want %s (npm prefix)", dir, got, wantAbs)
		}
	}
	for dir, want := range map[string]string{
		"inner":        "inner",    // a root is its own
		"packages":     ".",        // a folder of the root's packages
		"examples":     "examples", // a folder of no workspace's packages
		"libs/lib/g":   "libs",     // pnpm's workspace lists it
		"libs/tools/h": "libs/tools/h",
	} {
		if got, wantAbs := PackageRoot(filepath.Join(root, filepath.FromSlash(dir))), filepath.Join(root, filepath.FromSlash(want)); got != wantAbs {
			t.Errorf("PackageRoot(%s) = %s, want %s", dir, got, wantAbs)
		}
	}
	// FindRoot, for a working folder (where create puts a new package), stops at the nearest root.
	if got, want := FindRoot(filepath.Join(root, "examples", "b")), root; got != want {
		t.Errorf("FindRoot(examples/b) = %s, want %s", got, want)
	}
}

func mkdirWrite(p, content string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

func TestOpenLazyReadsOnlyWhatIsLoaded(t *testing.T) {
	root := t.TempDir()
	for name, data := range map[string]string{
		"pnpm-workspace.yaml":       "packages:\n  - \"packages/*\"\n",
		"package.json":              `{"name":"root","private":true}`,
		"packages/a/package.json":   `{"name":"a","version":"1.0.0"}`,
		"packages/b/package.json":   `{"name":"b","version":"2.0.0"}`,
		"packages/c/package.json":   `{"name": broken`,
		"packages/notpkg/README.md": "no package.json",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lazy, err := OpenLazy(root)
	if err != nil {
		t.Fatal(err)
	}
	eager, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if dirs(lazy) != dirs(eager) || dirs(lazy) != "packages/a packages/b packages/c" {
		t.Fatalf("lazy packages %q, eager %q", dirs(lazy), dirs(eager))
	}
	for _, p := range lazy.Packages {
		if p.JSON != nil {
			t.Errorf("%s: package.json read before Load", p.Dir)
		}
	}
	b := lazy.Package("packages/b")
	lazy.Load(b, b)
	if b.JSON == nil || b.JSON.Version != "2.0.0" || lazy.Package("packages/a").JSON != nil {
		t.Errorf("after Load(b): b = %+v, a read = %v", b.JSON, lazy.Package("packages/a").JSON != nil)
	}
	lazy.Load(lazy.Packages...)
	for i, p := range lazy.Packages {
		e := eager.Packages[i].JSON
		if p.JSON.Name != e.Name || (p.JSON.Err == nil) != (e.Err == nil) {
			t.Errorf("%s: lazy %+v, eager %+v", p.Dir, p.JSON, e)
		}
	}
}
