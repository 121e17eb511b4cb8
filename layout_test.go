package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// maxFuncLines is the longest a function of the product may be: past it a reader loses the
// thread, so it is split by what a reader looks for.
const maxFuncLines = 150

// TestLayout holds the house's shape (ARCHITECTURE.md, the README's Layout) against the code:
// no package below cmd/ imports cmd/ or knows about cobra, pflag or viper (flags and
// configuration layering live in cmd/), and no function outside tests is longer than
// maxFuncLines lines.
func TestLayout(t *testing.T) {
	fset := token.NewFileSet()
	for _, path := range layoutFiles(t) {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		below := strings.HasPrefix(path, "internal"+string(filepath.Separator)) || strings.HasPrefix(path, "release"+string(filepath.Separator))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if below && (p == "github.com/plaios/plaios/cmd" || strings.HasPrefix(p, "github.com/spf13/")) {
				t.Errorf("%s imports %s: only cmd/ wires commands, flags and configuration layers", path, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			name := "a function literal"
			switch fn := n.(type) {
			case *ast.FuncDecl:
				body, name = fn.Body, fn.Name.Name
			case *ast.FuncLit:
				body = fn.Body
			}
			if body == nil {
				return true
			}
			start, end := fset.Position(n.Pos()), fset.Position(n.End())
			if lines := end.Line - start.Line + 1; lines > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines long (at most %d); split it by what a reader looks for", path, start.Line, name, lines, maxFuncLines)
			}
			return true
		})
	}
}

// layoutFiles lists every Go file of the module's packages other than tests, relative to the
// module's root, as `go list ./...` finds the packages (testdata, node_modules and hidden
// folders aside). Each package folder is read here, so that a file added to one runs the test
// again; the module's root is not: the go command keys a package's cached test result on
// every folder its tests read, with the name, size, mode and time of each entry, and the
// root's entries include .git, whose time every git command that writes the index changes (a
// commit, a status that refreshes it) — each ran this package's tests again, TestFirstRun's
// minutes with them. Nor is the root stat: os/exec stats a command's Dir before it starts it,
// so a test naming the root as a Dir keys the result on the root's own time, which a file
// added to it or removed from it changes (a first `make build`). The root package's own files
// are the ones go list names; go list is a child process, whose reads are not recorded.
func layoutFiles(t *testing.T) []string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// In this folder, the module's root, without naming it as the Dir.
	out := testenv.Run(t, "", nil, testenv.LookPath(t, "go"), "list", "-e", "-f",
		`{{.Dir}}{{range .GoFiles}}{{"\t"}}{{.}}{{end}}{{range .CgoFiles}}{{"\t"}}{{.}}{{end}}{{range .IgnoredGoFiles}}{{"\t"}}{{.}}{{end}}`, "./...")
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		fields := strings.Split(line, "\t")
		dir, err := filepath.Rel(wd, fields[0])
		if err != nil || strings.HasPrefix(dir, "..") {
			t.Fatalf("go list named a package outside the module: %q", line)
		}
		names := fields[1:]
		if dir != "." {
			entries, err := os.ReadDir(fields[0])
			if err != nil {
				t.Fatal(err)
			}
			names = nil
			for _, e := range entries {
				names = append(names, e.Name())
			}
		}
		for _, name := range names {
			if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
				files = append(files, filepath.Join(dir, name))
			}
		}
	}
	if len(files) < 100 || !slices.Contains(files, "main.go") || !slices.Contains(files, filepath.Join("cmd", "root.go")) {
		t.Fatalf("go list found %d Go files, without main.go or cmd/root.go:\n%s", len(files), out)
	}
	return files
}

// TestLayoutLeavesTheRootUnread runs TestLayout alone in this test binary with the go command's
// test log and checks that it read neither the checkout's root (a listing, or the stat os/exec
// makes of a command's Dir) nor anything under .git: either would key the root package's
// cached result on what every git command or a new top-level file changes (layoutFiles).
func TestLayoutLeavesTheRootUnread(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	_, reads := testenv.ReadsOf(t, os.Environ(), "^TestLayout$")
	for _, r := range reads {
		if r.Path == wd || strings.HasPrefix(r.Path, filepath.Join(wd, ".git")) {
			t.Errorf("TestLayout read %s (%s)", r.Path, r.Op)
		}
	}
	if len(reads) < 100 {
		t.Errorf("the test log holds %d reads, not TestLayout's: %v", len(reads), reads)
	}
}
