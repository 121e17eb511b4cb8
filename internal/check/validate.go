package check

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/workspace"
)

// Target is one package validate checked.
type Target struct {
	Pack *pack.Pack
	Root string // the workspace root on disk
}

// Result is the outcome of Validate.
type Result struct {
	Targets     []Target
	Diagnostics []Diagnostic
	Summary     Summary
}

// ValidateOptions are Validate's inputs beyond the paths.
type ValidateOptions struct {
	Options
	Runtime pack.Runtime // force one runtime
	WorkDir string       // diagnostics' files are made relative to it
}

// Validate checks the packages at paths: each is a package folder (checked in the context of
// its workspace) or a repository root (every workspace package).
func Validate(paths []string, opts ValidateOptions) (*Result, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	type group struct {
		ws   *workspace.Workspace
		dirs map[string]bool // selected package dirs; nil = all
	}
	groups := map[string]*group{}
	var order []string
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(opts.WorkDir, p)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("%s does not exist; give a package folder or a repository root", p)
		}
		if !st.IsDir() {
			if filepath.Base(abs) != "package.json" {
				return nil, fmt.Errorf("%s is a file; give a package folder or a repository root", p)
			}
			abs = filepath.Dir(abs)
		}
		root := workspace.PackageRoot(abs)
		g := groups[root]
		if g == nil {
			ws, err := workspace.OpenLazy(root)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p, err)
			}
			g = &group{ws: ws, dirs: map[string]bool{}}
			groups[root] = g
			order = append(order, root)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		if rel == "." && (g.ws.Source != "single" || g.ws.Package(".") != nil) {
			g.dirs = nil // the whole workspace
			continue
		}
		if g.dirs == nil {
			continue
		}
		under := g.ws.PackagesUnder(rel)
		for _, pk := range under {
			g.dirs[pk.Dir] = true
		}
		if len(under) == 0 {
			return nil, fmt.Errorf("%s is not a package of the workspace at %s (no package.json there, or no workspace glob names it)", p, root)
		}
	}
	res := &Result{}
	for _, root := range order {
		g := groups[root]
		var selected []*workspace.Package
		for _, pk := range g.ws.Packages {
			if g.dirs == nil || g.dirs[pk.Dir] {
				selected = append(selected, pk)
			}
		}
		g.ws.Load(selected...)
		var packs []*pack.Pack
		for _, pk := range selected {
			packs = append(packs, pack.Load(g.ws, pk, opts.Runtime))
		}
		diags := Run(g.ws, packs, opts.Options)
		if sev := opts.severityOf(packageJSONInvalidRule); sev != Off {
			for _, pr := range g.ws.Problems {
				if pr.Rule == packageJSONInvalidRule.ID {
					diags = append(diags, Diagnostic{Rule: pr.Rule, Severity: sev, File: pr.File, Line: max(pr.Line, 1), Col: max(pr.Col, 1), Message: pr.Message})
				}
			}
		}
		for i := range diags {
			diags[i].File = relTo(opts.WorkDir, filepath.Join(root, filepath.FromSlash(diags[i].File)))
		}
		res.Diagnostics = append(res.Diagnostics, diags...)
		for _, p := range packs {
			res.Targets = append(res.Targets, Target{Pack: p, Root: root})
		}
	}
	Sort(res.Diagnostics)
	sort.SliceStable(res.Targets, func(i, j int) bool {
		a := filepath.Join(res.Targets[i].Root, res.Targets[i].Pack.Dir)
		b := filepath.Join(res.Targets[j].Root, res.Targets[j].Pack.Dir)
		return a < b
	})
	res.Summary = Summarize(len(res.Targets), res.Diagnostics)
	return res, nil
}

// severityOf is r's severity in this run: Off when the run leaves r out, else the override,
// else its default.
func (o Options) severityOf(r *Rule) Severity {
	if o.Rules != nil {
		found := false
		for _, x := range o.Rules {
			found = found || x.ID == r.ID
		}
		if !found {
			return Off
		}
	}
	if sev, ok := o.Severity[r.ID]; ok {
		return sev
	}
	return r.Severity
}

func relTo(base, p string) string {
	if base == "" {
		return filepath.ToSlash(p)
	}
	r, err := filepath.Rel(base, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// DirOf returns a target's folder relative to base, for output.
func DirOf(base string, t Target) string {
	return relTo(base, filepath.Join(t.Root, filepath.FromSlash(t.Pack.Dir)))
}
