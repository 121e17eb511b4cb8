package bridge

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/workspace"
)

// Pack is the package a bridge works on: its folder on disk and plaios's model of it.
type Pack struct {
	Dir  string // absolute
	Pack *pack.Pack
	// Fixture is the package's inert input: the role map's fixture with the configuration's
	// laid over it (workspace.FixtureOf).
	Fixture workspace.Fixture
}

// Name is the npm name.
func (p *Pack) Name() string { return p.Pack.Name() }

// Runtime is the runtime the pack is written for.
func (p *Pack) Runtime() pack.Runtime { return p.Pack.Runtime }

// Open reads the package in dir: its workspace (the nearest repository root above it, so that
// the role map and the repository layout count, as for validate and guard), its package.json
// and its runtime manifest. force, when not None, decides the runtime. fixtures are the
// configuration's `fixtures:` (nil: none), laid over the role map's for the package.
func Open(dir string, force pack.Runtime, fixtures map[string]workspace.Fixture) (*Pack, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder; give the folder of a built package", dir)
	}
	if _, err := os.Stat(filepath.Join(abs, "package.json")); err != nil {
		return nil, fmt.Errorf("%s has no package.json; give the folder of a built package", dir)
	}
	var ws *workspace.Workspace
	var pkg *workspace.Package
	if root := workspace.PackageRoot(abs); root != abs {
		if w, err := workspace.Open(root); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil {
				if p := w.Package(filepath.ToSlash(rel)); p != nil {
					ws, pkg = w, p
				}
			}
		}
	}
	if pkg == nil {
		w, err := workspace.Open(abs)
		if err != nil {
			return nil, err
		}
		ws, pkg = w, w.Package(".")
		if pkg == nil {
			return nil, fmt.Errorf("%s is a workspace root, not a package; give one package's folder", dir)
		}
	}
	if pkg.JSON.Err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "package.json"), pkg.JSON.Err)
	}
	if pkg.JSON.Name == "" {
		return nil, fmt.Errorf("%s has no name; a pack is loaded under its npm name", filepath.Join(dir, "package.json"))
	}
	return &Pack{Dir: abs, Pack: pack.Load(ws, pkg, force), Fixture: workspace.FixtureOf(ws, pkg.Dir, fixtures)}, nil
}
