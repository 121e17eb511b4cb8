package packlist

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/npm/packlist/internal/minimatch"
)

func emptyObject() *jsonpos.Value { return &jsonpos.Value{Kind: jsonpos.Object} }

// hasWorkspaces reports whether Arborist finds at least one workspace for the package at dir
// (@npmcli/map-workspaces over its `workspaces` globs). npm-packlist then reads package.json as
// an ignore file in every sub-folder it walks, which turns that folder's .npmignore and
// .gitignore off.
func hasWorkspaces(fsys fs.FS, dir string, pkg *jsonpos.Value) (bool, error) {
	ws := pkg.Get("workspaces")
	if ws == nil {
		return false, nil
	}
	decl := ws
	if ws.Kind == jsonpos.Object {
		if p := ws.Get("packages"); p != nil && p.Kind == jsonpos.Array {
			decl = p
		}
	}
	if decl.Kind != jsonpos.Array {
		return false, &ManifestError{Pos: ws.Pos, Msg: `"workspaces" must be an array (npm pack fails on it)`}
	}
	var patterns, negated []*minimatch.Minimatch
	for _, it := range decl.Items {
		if it.Kind != jsonpos.String {
			return false, &ManifestError{Pos: it.Pos, Msg: `"workspaces" entries must be strings (npm pack fails on it)`}
		}
		p := strings.TrimLeft(it.Str, "!")
		n := len(it.Str) - len(p)
		// pattern.replace(/^\.?\/+/, '')
		if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "/") {
			p = strings.TrimLeft(strings.TrimPrefix(p, "."), "/")
		}
		p = strings.ReplaceAll(p, `\`, "/")
		mm, err := minimatch.New(strings.TrimSuffix(p, "/")+"/", minimatch.Options{})
		if err != nil {
			return false, fmt.Errorf("workspace pattern %q: %w", it.Str, err)
		}
		if n%2 == 1 {
			negated = append(negated, mm)
		} else {
			patterns = append(patterns, mm)
		}
	}
	if len(patterns) == 0 {
		return false, nil
	}
	found := false
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		if found || depth > 64 {
			return nil
		}
		entries, err := fs.ReadDir(fsys, path.Join(dir, rel))
		if err != nil {
			return nil
		}
		for _, e := range entries {
			p := path.Join(rel, e.Name())
			isDir := e.IsDir()
			isLink := e.Type()&fs.ModeSymlink != 0
			if isLink {
				if info, err := fs.Stat(fsys, path.Join(dir, p)); err == nil && info.IsDir() {
					isDir = true
				}
			}
			if !isDir {
				continue
			}
			cand := p + "/"
			matched, deeper := false, false
			for _, mm := range patterns {
				if mm.Match(cand, false) {
					matched = true
				}
				if mm.Match(p, true) {
					deeper = true
				}
			}
			for _, mm := range negated {
				if mm.Match(cand, false) {
					matched = false
				}
			}
			if matched {
				data, err := fs.ReadFile(fsys, path.Join(dir, p, "package.json"))
				if err == nil {
					if _, err := jsonpos.Parse(data); err != nil {
						return fmt.Errorf("workspace %s: parse package.json: %w", p, err)
					}
					found = true
					return nil
				}
			}
			if deeper && !isLink && e.Name() != "node_modules" {
				if err := walk(p, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("", 0); err != nil {
		return false, err
	}
	return found, nil
}
