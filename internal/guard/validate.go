package guard

import (
	"context"
	"io/fs"
	"path"
	"testing/fstest"

	"github.com/plaios/plaios/internal/check"
	"github.com/plaios/plaios/internal/npm/tarball"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/workspace"
)

// The packed files get validate's rules too (RULES.md): whatever validate would report as an
// error on the files of the tarball fails guard, so the two never disagree about a pack (a
// manifest.json that is not JSON passes neither). The tarball is read once; its files become
// an in-memory package folder whose names are the tarball's and whose contents are those the
// rules read (keepForRules), so nothing is unpacked and no file is held in memory in full
// unless a rule reads it.

// keepForRules says whether the rules read a packed file's content: package.json files
// (bundled dependencies' too, which the packlist reads), the runtime manifests, the ignore
// files and tsconfig.json.
func keepForRules(name string) bool {
	switch path.Base(name) {
	case "package.json", ".npmignore", ".gitignore":
		return true
	}
	switch name {
	case pack.AgentOSManifest, pack.PLAIOSManifest, pack.OpenClawManifest, "tsconfig.json":
		return true
	}
	return false
}

// guardOwnRules are rules guard decides itself from the tarball (checkTarball), with more in
// hand than validate: secret-shipped reads contents this folder does not hold,
// workspace-protocol reads the packed specifiers, openclaw-entry resolves each entry to the
// file the installed openclaw loads (openclaw.go), and pi-extension-missing resolves
// pi.extensions as Pi does, folders and globs included (pi.go).
var guardOwnRules = map[string]bool{
	"secret-shipped":       true,
	"workspace-protocol":   true,
	"openclaw-entry":       true,
	"pi-extension-missing": true,
}

// validate's rules run on every packed tarball. They need only the tarballs, so they run
// while the candidates install and load (startValidation), on the CPU the install leaves
// idle; their errors join the results after the loads (mergeValidation): a pack that breaks a
// rule of validate fails, and the install and the load have still run, so a reason of theirs
// (the first cause) is not hidden behind it.

// startValidation starts validate's rules on every packed tarball in the background and
// returns what waits for them. Each result's errors are kept apart (Result.validated) until
// mergeValidation, so that nothing the install or the load reads or writes changes meanwhile.
func (g *run) startValidation(ctx context.Context, results []*Result) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.parallel(len(results), func(i int) {
			if r := results[i]; ctx.Err() == nil && r.packed != nil && r.packed.pkg != nil {
				r.validated = g.validatePacked(r)
			}
		})
	}()
	return func() { <-done }
}

// mergeValidation adds to each result the errors of validate's rules that it does not report
// already, as validate would name their files: the package's own paths, so that they point at
// the sources the tarball was packed from.
func (g *run) mergeValidation(results []*Result) {
	for _, r := range results {
		have := map[string]bool{}
		for _, d := range r.Diagnostics {
			have[d.Rule] = true
		}
		for _, d := range r.validated {
			if have[d.Rule] {
				continue
			}
			d.File = path.Join(r.Dir, d.File)
			r.Diagnostics = append(r.Diagnostics, d)
		}
		r.validated = nil
	}
}

// packedFS is the package folder the tarball unpacks to, as an fs.FS.
func packedFS(tb *tarball.Tarball) fs.FS {
	m := fstest.MapFS{}
	for _, f := range tb.Files {
		m[f.Name] = &fstest.MapFile{Data: tb.Content[f.Name], Mode: fs.FileMode(f.Mode & 0o777)}
	}
	return m
}

// validatePacked runs validate's per-package rules on the packed files, as validate runs
// them on a lone package folder, with r's runtime, and returns their errors but guard's own
// rules (paths as validate gives them for the lone folder). Warnings are validate's to report:
// guard keeps only what fails a pack.
func (g *run) validatePacked(r *Result) []check.Diagnostic {
	fsys := r.packed.files()
	pj := workspace.ReadPackageJSON(fsys, ".")
	ws := &workspace.Workspace{FS: fsys, Source: "single", PackManager: "npm", Packages: []*workspace.Package{{Dir: ".", JSON: pj, Role: r.Role}}}
	p := pack.Load(ws, ws.Packages[0], r.Runtime)
	// The conventions of the framers' layout follow the folder the tarball was packed from.
	p.Framers = r.pk != nil && r.pk.Framers
	var out []check.Diagnostic
	for _, d := range check.Run(ws, []*pack.Pack{p}, check.Options{Severity: g.opts.Severity, Jobs: 1, PackManager: "npm"}) {
		if d.Severity != check.Error || guardOwnRules[d.Rule] {
			continue
		}
		out = append(out, d)
	}
	return out
}
