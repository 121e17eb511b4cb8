package guard

import (
	"fmt"
	"path"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/npm/tarball"
	"github.com/plaios/plaios/internal/pack"
)

// openClawEntry is one entry of a plugin's package.json openclaw.extensions and the file an
// installed openclaw loads for it.
type openClawEntry struct {
	Declared string         // as openclaw.extensions writes it ("./index.ts")
	Runtime  string         // the file loaded, relative to the package ("dist/index.js"); "" when none is found
	At       *jsonpos.Value // where to point a finding
	Problem  string         // why no runtime file is found, in openclaw's words
}

// openClawEntries resolves the entries of an OpenClaw plugin as the installed openclaw
// (2026.9.6) does for a plugin installed from npm:
//
//   - openclaw.extensions must be a non-empty list of non-empty strings
//     (dist/npm-managed-root-*.mjs, ensureOpenClawExtensions);
//   - openclaw.runtimeExtensions, when given, must have as many entries, and entry i is the
//     file loaded for extensions[i] (dist/package-entry-resolution-*.mjs,
//     src/plugins/package-entry-resolution.ts: resolvePackageRuntimeExtensionEntries,
//     validatePackageEntryForInstall);
//   - without it, a TypeScript entry (.ts, .tsx, .mts, .cts) loads the first built candidate
//     that exists (./dist/<path without src/>.js|.mjs|.cjs, ./dist/src/…, then next to the
//     source: src/plugins/package-entrypoints.ts, listBuiltRuntimeEntryCandidates), and an
//     installed plugin with none of them is refused ("requires compiled runtime output");
//   - any other entry loads as it is.
//
// has says whether a file (relative to the package) exists. The error is for the field as a
// whole (missing, empty, lengths that differ); problems of single entries are in Problem.
func openClawEntries(pj *jsonpos.Value, has func(string) bool) ([]openClawEntry, *jsonpos.Value, string) {
	entries, problems, missing := pack.OpenClawEntries(pj)
	if missing {
		at := pj.Get("openclaw")
		if at == nil {
			at = pj
		}
		return nil, at, "the packed package.json has no openclaw.extensions, so openclaw refuses to install the plugin"
	}
	if len(problems) > 0 {
		at := problems[0].At
		if at == nil {
			at = pj
		}
		return nil, at, strings.TrimPrefix(problems[0].Message, "package.json ") + ", so openclaw refuses to install the plugin"
	}
	var declared, runtime []*jsonpos.Value
	for _, e := range entries {
		if !strings.HasPrefix(e.Field, "openclaw.extensions[") {
			continue // the setup entries: checkOpenClawSetup
		}
		declared = append(declared, e.Source)
		if e.Runtime != nil {
			runtime = append(runtime, e.Runtime)
		}
	}
	return resolveOpenClawEntries(declared, runtime, "openclaw.extensions", "openclaw.runtimeExtensions", has), nil, ""
}

// resolveOpenClawEntries finds the runtime file of each declared entry (with the runtime
// entries given, one per declared entry, or none); the field names word the problems.
func resolveOpenClawEntries(declared, runtime []*jsonpos.Value, field, runtimeField string, has func(string) bool) []openClawEntry {
	var out []openClawEntry
	for i, it := range declared {
		e := openClawEntry{Declared: strings.TrimSpace(it.Str), At: it}
		switch {
		case len(runtime) > 0:
			e.At = runtime[i]
			r := strings.TrimSpace(runtime[i].Str)
			if rel, ok := pack.InsidePackage(r); !ok {
				e.Problem = fmt.Sprintf("the runtime entry %s leaves the package", r)
			} else if has(rel) {
				e.Runtime = rel
			} else {
				e.Problem = fmt.Sprintf("the tarball lacks %s, the runtime entry %s names for %s", rel, runtimeField, e.Declared)
			}
		case pack.IsTypeScriptEntry(e.Declared):
			cands := pack.BuiltEntryCandidates(e.Declared)
			for _, c := range cands {
				if rel, ok := pack.InsidePackage(c); ok && has(rel) {
					e.Runtime = rel
					break
				}
			}
			if e.Runtime == "" {
				var list []string
				for _, c := range cands {
					list = append(list, strings.TrimPrefix(c, "./"))
				}
				e.Problem = fmt.Sprintf("%s names the TypeScript source %s and the tarball has no compiled runtime file for it (openclaw looks for %s, or the file %s names)", field, e.Declared, strings.Join(list, ", "), runtimeField)
			}
		default:
			if rel, ok := pack.InsidePackage(e.Declared); !ok {
				e.Problem = fmt.Sprintf("the entry %s leaves the package", e.Declared)
			} else if has(rel) {
				e.Runtime = rel
			} else {
				e.Problem = fmt.Sprintf("the tarball lacks %s, the entry %s names", rel, field)
			}
		}
		out = append(out, e)
	}
	return out
}

// OpenClaw's limits on a plugin installed from npm, as the installed openclaw 2026.9.6
// enforces them: its install scan walks the plugin's folder and refuses one deeper than 64
// folders or with more than 10 000 folders (dist/install-security-scan.runtime-*.mjs,
// src/plugins/install-security-scan.runtime.ts: validatePackageDependencyBoundaries,
// DEFAULT_PACKAGE_TRAVERSAL_LIMITS; OPENCLAW_INSTALL_SCAN_MAX_DEPTH and
// OPENCLAW_INSTALL_SCAN_MAX_DIRECTORIES raise them). Nothing else in its npm install path
// (src/plugins/install.ts, installPluginFromNpmSpec → installPluginFromManagedNpmRoot: npm
// installs the package) bounds the number of files, the tarball's size or its unpacked size,
// and symbolic links are only inspected under node_modules, which npm never packs.
const (
	openClawMaxDepth       = 64
	openClawMaxDirectories = 10_000
)

// openClawFolderLimits returns why the tarball's folders break openclaw's install scan, or "".
// The count is of the tarball's own folders: the dependencies npm installs inside the plugin's
// folder add to it at install time.
func openClawFolderLimits(tb *tarball.Tarball) string {
	dirs := map[string]bool{".": true}
	deepest, deepestDir := 0, ""
	for _, f := range tb.Files {
		d := path.Dir(f.Name)
		for d != "." && !dirs[d] {
			dirs[d] = true
			if n := strings.Count(d, "/") + 1; n > deepest {
				deepest, deepestDir = n, d
			}
			d = path.Dir(d)
		}
	}
	switch {
	case deepest > openClawMaxDepth:
		return fmt.Sprintf("the tarball nests folders %d deep (%s), and openclaw's install scan refuses a plugin deeper than %d", deepest, deepestDir, openClawMaxDepth)
	case len(dirs) > openClawMaxDirectories:
		return fmt.Sprintf("the tarball has %d folders, and openclaw's install scan refuses a plugin with more than %d", len(dirs), openClawMaxDirectories)
	}
	return ""
}
