package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// `go test` keeps a package's result and replays it while nothing the result depends on has
// changed: the test binary, the environment variables the test process read and the files it
// opened or stat'ed. What a child process reads it cannot see, and the tests hand most of
// their inputs to children — a fixture folder to plaios, testdata/.../oracle.js to node, the
// pinned node_modules to every oracle. So every test binary that uses testenv reads the
// folder tree of its inputs once, while its tests run (the go command records only what
// happens inside m.Run): the repository's testdata (its node_modules by npm ci's hidden
// lockfile, which `make test` rewrites whenever it installs), the package's own testdata and
// the templates. Changing, adding or removing any file there then runs the package's tests
// again. Reading the tree costs a few milliseconds.
var inputs struct {
	once sync.Once
	seen []string // the folders read and the files stat'ed, for TestInputs
}

// trackInputs reads the input tree once per test binary; t is any test of it.
func trackInputs(t testing.TB) {
	if _, ok := t.(*headless); ok {
		return // outside a test (the shared registry's start): the go command would not see it
	}
	inputs.once.Do(func() {
		root := repoRoot()
		roots := []string{filepath.Join(root, "testdata"), filepath.Join(root, "templates")}
		if wd, err := os.Getwd(); err == nil && wd != root {
			roots = append(roots, filepath.Join(wd, "testdata"))
		}
		for _, r := range roots {
			inputs.seen = append(inputs.seen, openFolders(r)...)
		}
	})
}

// openFolders opens every folder under dir (which the go command records with the name, size,
// mode and time of each entry) and stats the hidden lockfile of each node_modules instead of
// reading the installed packages, and returns what it read.
func openFolders(dir string) []string {
	var seen []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a folder that went away or cannot be read: nothing to record
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == "node_modules" {
			lock := filepath.Join(path, ".package-lock.json")
			if _, err := os.Stat(lock); err == nil {
				seen = append(seen, lock)
			}
			return filepath.SkipDir
		}
		seen = append(seen, path)
		return nil
	})
	return seen
}

// A Read is a file or folder a test opened or stat'ed, as the go command's test log records
// it: the inputs its cached result is keyed on.
type Read struct {
	Op   string // "open" or "stat"
	Path string // absolute
}

// ReadsOf runs the tests of this test binary matching run (a -test.run pattern) in a second
// start of it, with env and the go command's test log, and returns their output and what
// they read. It fails t when they fail. Tests use it to show that a test does not read the
// checkout's root, whose time changes whenever a file is added there: the go command would
// run that test's package again for every such file.
func ReadsOf(t testing.TB, env []string, run string) (string, []Read) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "testlog")
	out := Run(t, "", env, os.Args[0], "-test.run="+run, "-test.v", "-test.testlogfile="+log)
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var reads []Read
	for _, line := range strings.Split(string(data), "\n") {
		op, path, _ := strings.Cut(line, " ")
		if op != "open" && op != "stat" {
			continue
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(wd, path)
		}
		reads = append(reads, Read{Op: op, Path: path})
	}
	if !strings.Contains(out, "--- PASS") {
		t.Fatalf("no test matching %s ran:\n%s", run, out)
	}
	return out, reads
}
