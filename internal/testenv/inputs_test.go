package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestInputs: the tree a test binary reads for the go command's test cache is the
// repository's testdata and templates, every folder of them, with each node_modules stood
// for by its hidden lockfile.
func TestInputs(t *testing.T) {
	root := RepoRoot(t)
	seen := inputs.seen
	for _, want := range []string{
		filepath.Join(root, "testdata"),
		filepath.Join(root, "testdata", "guard", "fixtures"),
		filepath.Join(root, "testdata", "corpus"),
		filepath.Join(root, "templates"),
	} {
		if !slices.Contains(seen, want) {
			t.Errorf("the test binary did not read %s", want)
		}
	}
	lock := filepath.Join(root, "testdata", "node", "node_modules", ".package-lock.json")
	if _, err := os.Stat(lock); err == nil && !slices.Contains(seen, lock) {
		t.Errorf("the pinned node tools' lockfile %s is not among the inputs", lock)
	}
	for _, p := range seen {
		if strings.Contains(p, string(filepath.Separator)+"node_modules"+string(filepath.Separator)) && filepath.Base(p) != ".package-lock.json" {
			t.Errorf("the inputs read installed packages: %s", p)
			break
		}
	}
}

// TestCacheSeesWhatAChildReads runs the real go command twice on a module of its own whose
// test hands a testdata file to a child process (cat), as the tests hand fixtures to plaios
// and node. The second run is replayed from the test cache; after the file changes, a test
// that used RepoRoot runs again (and fails, since the file now says something else), while a
// test that did not is still replayed — the stale result trackInputs is there to prevent.
func TestCacheSeesWhatAChildReads(t *testing.T) {
	SkipShort(t, "runs the go command")
	probe := func(root string) string {
		return `package probe

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

func TestChildReads(t *testing.T) {
	root := ` + root + `
	out, err := exec.Command("cat", filepath.Join(root, "testdata", "fixture.txt")).Output()
	if err != nil || string(out) != "good\n" {
		t.Fatalf("the fixture says %q (%v)", out, err)
	}
}
`
	}
	mod := cacheProbeModule(t, map[string]string{
		"testdata/fixture.txt":  "good\n",
		"tracked/probe_test.go": probe("testenv.RepoRoot(t)"),
		"untracked/probe_test.go": strings.Replace(probe(`filepath.Join("..")`), `
	"github.com/plaios/plaios/internal/testenv"
`, "", 1),
	})
	fixture := filepath.Join(mod, "testdata", "fixture.txt")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(fixture, old, old); err != nil {
		t.Fatal(err)
	}
	env := goEnv(t)
	goTest := func() string { return goTestIn(t, mod, env, "./tracked", "./untracked") }
	if out := goTest(); !says(out, "tracked", "ok") || says(out, "tracked", "(cached)") || !says(out, "untracked", "ok") {
		t.Fatalf("first run:\n%s", out)
	}
	if out := goTest(); !says(out, "tracked", "(cached)") || !says(out, "untracked", "(cached)") {
		t.Fatalf("the second run was not replayed from the test cache:\n%s", out)
	}
	if err := os.WriteFile(fixture, []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(fixture, old, old); err != nil {
		t.Fatal(err)
	}
	out := goTest()
	if !strings.Contains(out, `the fixture says "changed\n"`) || !says(out, "tracked", "FAIL") {
		t.Errorf("after the fixture changed the test that used RepoRoot did not run again:\n%s", out)
	}
	if !says(out, "untracked", "(cached)") {
		t.Errorf("the control (a test that hands the fixture to a child without RepoRoot) ran again; the go command saw the change some other way and this test proves nothing:\n%s", out)
	}
}

// cacheProbeModule writes a module named github.com/plaios/plaios holding testenv's own
// source and files, for a test that runs the real go command on it, and returns its folder.
func cacheProbeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	mod := t.TempDir()
	src := filepath.Join(RepoRoot(t), "internal", "testenv")
	sources, err := filepath.Glob(filepath.Join(src, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sources {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		WriteFiles(t, mod, map[string]string{"internal/testenv/" + filepath.Base(f): string(data)})
	}
	WriteFiles(t, mod, map[string]string{"go.mod": "module github.com/plaios/plaios\n\ngo 1.26.0\n"})
	WriteFiles(t, mod, files)
	return mod
}

// goEnv is the environment of the go command for goTestIn: the test's own TMPDIR (ChildEnv),
// the same for each run, so that only what a test changes differs between runs.
func goEnv(t *testing.T) []string {
	return append(ChildEnv(t, os.Environ()), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
}

// goTestIn runs `go test -race` on pkgs in mod with the environment env, and returns what it
// printed.
func goTestIn(t *testing.T, mod string, env []string, pkgs ...string) string {
	t.Helper()
	cmd := exec.Command(LookPath(t, "go"), append([]string{"test", "-race"}, pkgs...)...)
	cmd.Dir = mod
	cmd.Env = env
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// says reports whether go test's line for the module's package pkg holds what.
func says(out, pkg, what string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "github.com/plaios/plaios/"+pkg+"\t") || strings.HasSuffix(line, "github.com/plaios/plaios/"+pkg) {
			return strings.Contains(line, what)
		}
	}
	return false
}
