package pack

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/workspace"
)

// PiProblem says why an entry of pi.extensions gives Pi nothing to load.
type PiProblem int

// The outcomes of one pi.extensions entry.
const (
	PiFound       PiProblem = iota // the entry gave File
	PiOutside                      // the entry leaves the package
	PiMissing                      // a plain entry that names no file or folder (Pi skips it without a word)
	PiEmptyFolder                  // a folder in which Pi finds no extension
)

// PiEntry is one extension file Pi loads from a package, or an entry that names nothing.
type PiEntry struct {
	File    string         // slash path inside the package; "" unless Problem is PiFound
	At      *jsonpos.Value // the pi.extensions item it comes from (the pi field for the extensions/ folder)
	Path    string         // the entry as a path inside the package (cleaned), for PiMissing and PiEmptyFolder
	Problem PiProblem
}

// piResourceTypes are the resources a Pi package lists (RESOURCE_TYPES in Pi's
// dist/core/package-manager.js).
var piResourceTypes = []string{"extensions", "skills", "prompts", "themes"}

// PiExtensions lists the extension files Pi 1.6.0 loads from an installed package whose
// package.json lists pi.extensions (dist/core/package-manager.js, addManifestEntries and
// collectFilesFromManifestEntries): a plain entry is the file it names, or for a folder what
// Pi discovers in it (collectAutoExtensionEntries: its own package.json pi.extensions, else
// index.ts or index.js, else its .ts and .js files and the index of each subfolder); an entry
// with * or ? is a glob over the package (dot paths left out); entries starting with !, + or -
// are patterns over the files found (applyPatterns: ! leaves files out, + brings an excluded
// file back by its exact path, - leaves a file out by its exact path). Pi skips a plain entry
// that names nothing without a word; the entry is then returned with its problem. fsys is the
// package folder as Pi sees it (the installed package: the packed files); files are sorted as
// Pi sorts glob matches.
func PiExtensions(fsys fs.FS, exts *jsonpos.Value) []PiEntry {
	var out []PiEntry
	var excludes, forceIncludes, forceExcludes []string
	seen := map[string]bool{}
	add := func(e PiEntry) {
		if e.File != "" {
			if seen[e.File] {
				return
			}
			seen[e.File] = true
		}
		out = append(out, e)
	}
	for _, it := range exts.Items {
		if it.Kind != jsonpos.String {
			continue
		}
		entry := strings.TrimSpace(it.Str)
		switch {
		case entry == "":
			continue
		case strings.HasPrefix(entry, "!"):
			excludes = append(excludes, path.Clean(strings.TrimPrefix(entry[1:], "./")))
			continue
		case strings.HasPrefix(entry, "-"):
			forceExcludes = append(forceExcludes, path.Clean(strings.TrimPrefix(entry[1:], "./")))
			continue
		case strings.HasPrefix(entry, "+"):
			forceIncludes = append(forceIncludes, path.Clean(strings.TrimPrefix(entry[1:], "./")))
			continue
		}
		if strings.ContainsAny(entry, "*?") {
			for _, m := range piGlob(fsys, path.Clean(strings.TrimPrefix(entry, "./"))) {
				for _, f := range PiFilesAt(fsys, m) {
					add(PiEntry{File: f, At: it})
				}
			}
			continue
		}
		rel, ok := InsidePackage(entry)
		if !ok {
			add(PiEntry{At: it, Path: entry, Problem: PiOutside})
			continue
		}
		files := PiFilesAt(fsys, rel)
		if len(files) == 0 {
			problem := PiMissing
			if isDir(fsys, rel) {
				problem = PiEmptyFolder
			}
			add(PiEntry{At: it, Path: rel, Problem: problem})
		}
		for _, f := range files {
			add(PiEntry{File: f, At: it})
		}
	}
	if len(excludes)+len(forceExcludes) == 0 {
		return out
	}
	kept := out[:0]
	for _, e := range out {
		if e.File == "" {
			kept = append(kept, e)
			continue
		}
		enabled := true
		for _, x := range excludes {
			if workspace.Match(x, e.File) || workspace.Match(x, path.Base(e.File)) {
				enabled = false
			}
		}
		for _, x := range forceIncludes {
			if x == e.File {
				enabled = true
			}
		}
		for _, x := range forceExcludes {
			if x == e.File {
				enabled = false
			}
		}
		if enabled {
			kept = append(kept, e)
		}
	}
	return kept
}

// piGlob is expandPackageGlob: the paths of the package a glob matches, dot paths and
// node_modules left out, sorted.
func piGlob(fsys fs.FS, glob string) []string {
	var matches []string
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" && d.IsDir() {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if workspace.Match(glob, p) {
			matches = append(matches, p)
		}
		return nil
	})
	sort.Strings(matches)
	return matches
}

// PiPackageExtensions is what Pi loads from a package (its package.json pj;
// collectPackageResources): the pi.extensions entries (PiExtensions), else, when the pi field
// lists no resource at all, what it discovers in the conventional extensions/ folder. A package
// whose pi field lists only skills, prompts or themes has no extension, and that is no fault.
func PiPackageExtensions(fsys fs.FS, pj *jsonpos.Value) []PiEntry {
	pi := pj.Get("pi")
	if exts := pi.Get("extensions"); exts != nil && exts.Kind == jsonpos.Array {
		return PiExtensions(fsys, exts)
	}
	if piListsResources(pi) {
		return nil
	}
	var out []PiEntry
	for _, f := range PiFilesAt(fsys, "extensions") {
		out = append(out, PiEntry{File: f, At: pi})
	}
	return out
}

// piListsResources is hasManifestResourceFields: the pi field names one of the resource types
// (even as an empty list), so Pi reads the manifest and discovers no conventional folder.
func piListsResources(pi *jsonpos.Value) bool {
	if pi == nil || pi.Kind != jsonpos.Object {
		return false
	}
	for _, k := range piResourceTypes {
		if pi.Get(k) != nil {
			return true
		}
	}
	return false
}

// PiLoadsNothing reports whether Pi would load no resource at all from the package: its pi
// field lists no extension, skill, prompt or theme (none of the four, or only empty lists),
// and, when it names none of them, the package has none of the conventional extensions/,
// skills/, prompts/ and themes/ folders that Pi then reads.
func PiLoadsNothing(fsys fs.FS, pj *jsonpos.Value) bool {
	pi := pj.Get("pi")
	if piListsResources(pi) {
		for _, k := range piResourceTypes {
			if v := pi.Get(k); v != nil && v.Kind == jsonpos.Array && len(v.Items) > 0 {
				return false
			}
		}
		return true
	}
	for _, k := range piResourceTypes {
		if isDir(fsys, k) {
			return false
		}
	}
	return true
}

// PiFilesAt is what Pi loads for one path (collectFilesFromPaths with the extensions
// resource): the file itself, or what it discovers in a folder.
func PiFilesAt(fsys fs.FS, rel string) []string {
	st, err := fs.Stat(fsys, rel)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		return []string{rel}
	}
	if root := piResolveFolder(fsys, rel); root != nil {
		return root
	}
	entries, err := fs.ReadDir(fsys, rel)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		p := path.Join(rel, name)
		if e.IsDir() {
			out = append(out, piResolveFolder(fsys, p)...)
		} else if strings.HasSuffix(name, ".ts") || strings.HasSuffix(name, ".js") {
			out = append(out, p)
		}
	}
	return out
}

// piResolveFolder is Pi's resolveExtensionEntries: a folder's own package.json pi.extensions
// (the entries that exist), else its index.ts, else its index.js; nil when it has none.
func piResolveFolder(fsys fs.FS, dir string) []string {
	if data, err := fs.ReadFile(fsys, path.Join(dir, "package.json")); err == nil {
		var pj struct {
			Pi struct {
				Extensions []string `json:"extensions"`
			} `json:"pi"`
		}
		if json.Unmarshal(data, &pj) == nil && len(pj.Pi.Extensions) > 0 {
			var out []string
			for _, e := range pj.Pi.Extensions {
				if rel, ok := InsidePackage(path.Join(dir, e)); ok && exists(fsys, rel) {
					out = append(out, rel)
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	for _, idx := range []string{"index.ts", "index.js"} {
		if p := path.Join(dir, idx); exists(fsys, p) {
			return []string{p}
		}
	}
	return nil
}

// InsidePackage cleans a package-relative path and says whether it stays inside the package.
func InsidePackage(p string) (string, bool) {
	p = strings.ReplaceAll(strings.TrimSpace(p), "\\", "/")
	if strings.HasPrefix(p, "/") {
		return "", false
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

func exists(fsys fs.FS, p string) bool {
	_, err := fs.Stat(fsys, p)
	return err == nil
}

func isDir(fsys fs.FS, p string) bool {
	st, err := fs.Stat(fsys, p)
	return err == nil && st.IsDir()
}

// The finding when Pi would load nothing from a package (PiLoadsNothing), as validate and
// guard word it.
const (
	PiNothingMessage = "the pi field lists no extensions, skills, prompts or themes, and the package has no extensions/, skills/, prompts/ or themes/ folder: Pi loads nothing from it"
	PiNothingHint    = `add "pi": {"extensions": ["./dist/index.js"]}`
)

// missingModule is the package a failed import names: node's "Cannot find module 'x'" (from
// require, as Pi's jiti) or "Cannot find package 'x'" (from import), x a package or a path in
// one.
var missingModule = regexp.MustCompile(`Cannot find (?:module|package) '((?:@[^/']+/)?[^/'@.][^/']*)`)

// PiPeerHint explains a Pi package's failure to import a package it lists only as a peer
// (pj its package.json): `pi install` installs no peer (Pi 1.6.0's
// dist/core/package-manager.js; docs/packages.md, "Declare dependencies": runtime packages
// in dependencies), so the package must depend on it. Other reasons are returned unchanged.
func PiPeerHint(pj *jsonpos.Value, reason string) string {
	m := missingModule.FindStringSubmatch(reason)
	if m == nil || pj.Get("peerDependencies").Get(m[1]) == nil {
		return reason
	}
	for _, core := range PiCorePackages {
		if m[1] == core {
			return reason
		}
	}
	return reason + fmt.Sprintf(" (%s is only a peer dependency, and pi install installs no peer: list it in dependencies)", m[1])
}
