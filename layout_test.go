package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
