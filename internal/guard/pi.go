package guard

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/workspace"
)

// piEntry is one extension file Pi loads from a package, or an entry that names nothing.
type piEntry struct {
	File    string         // slash path inside the package; "" when the entry names nothing
	At      *jsonpos.Value // the pi.extensions item it comes from
	Problem string
}

// piEntries lists the extension files Pi 1.6.0 loads from an installed package whose
// package.json lists pi.extensions (dist/core/package-manager.js, addManifestEntries and
// collectFilesFromManifestEntries): a plain entry is the file it names, or for a folder what
// Pi discovers in it (collectAutoExtensionEntries: its own package.json pi.extensions, else
// index.ts or index.js, else its .ts and .js files and the index of each subfolder); an entry
// with * or ? is a glob over the package (dot paths left out); entries starting with !, + or -
// are patterns over the files found (! and - leave files out). Pi skips a plain entry that
// names nothing without a word; guard reports it (pi-extension-missing). fsys is the package
// folder; files are sorted as Pi sorts glob matches.
func piEntries(fsys fs.FS, exts *jsonpos.Value) []piEntry {
	var out []piEntry
	var excludes, forceExcludes []string
	seen := map[string]bool{}
	add := func(e piEntry) {
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
			excludes = append(excludes, strings.TrimPrefix(entry[1:], "./"))
			continue
		case strings.HasPrefix(entry, "-"):
			forceExcludes = append(forceExcludes, strings.TrimPrefix(entry[1:], "./"))
			continue
		case strings.HasPrefix(entry, "+"):
			continue // force-includes add back only what the entries found
		}
		if strings.ContainsAny(entry, "*?") {
			glob := path.Clean(strings.TrimPrefix(entry, "./"))
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
			for _, m := range matches {
				for _, f := range piFilesAt(fsys, m) {
					add(piEntry{File: f, At: it})
				}
			}
			continue
		}
		rel, ok := insidePackage(entry)
		if !ok {
			add(piEntry{At: it, Problem: fmt.Sprintf("pi.extensions names %s, which leaves the package", entry)})
			continue
		}
		files := piFilesAt(fsys, rel)
		if len(files) == 0 {
			if isDir(fsys, rel) {
				add(piEntry{At: it, Problem: fmt.Sprintf("pi.extensions names the folder %s, in which Pi finds no extension (no index.ts or index.js, no .ts or .js file)", rel)})
			} else {
				add(piEntry{At: it, Problem: fmt.Sprintf("the tarball lacks %s, which pi.extensions names (Pi skips it without a word)", rel)})
			}
		}
		for _, f := range files {
			add(piEntry{File: f, At: it})
		}
	}
	if len(excludes)+len(forceExcludes) == 0 {
		return out
	}
	kept := out[:0]
	for _, e := range out {
		drop := false
		for _, x := range excludes {
			drop = drop || workspace.Match(path.Clean(x), e.File) || workspace.Match(path.Clean(x), path.Base(e.File))
		}
		for _, x := range forceExcludes {
			drop = drop || path.Clean(x) == e.File
		}
		if e.File == "" || !drop {
			kept = append(kept, e)
		}
	}
	return kept
}

// piPackageEntries is what Pi loads from a package (its package.json pj): the pi.extensions
// entries, else, when the pi field lists no resources at all, what it discovers in the
// conventional extensions/ folder (collectPackageResources). A package whose pi field lists
// only skills, prompts or themes has no extension.
func piPackageEntries(fsys fs.FS, pj *jsonpos.Value) []piEntry {
	pi := pj.Get("pi")
	if exts := pi.Get("extensions"); exts != nil && exts.Kind == jsonpos.Array {
		return piEntries(fsys, exts)
	}
	for _, k := range []string{"extensions", "skills", "prompts", "themes"} {
		if pi.Get(k) != nil {
			return nil
		}
	}
	var out []piEntry
	for _, f := range piFilesAt(fsys, "extensions") {
		out = append(out, piEntry{File: f, At: pi})
	}
	return out
}

// piFilesAt is what Pi loads for one path: the file itself, or what it discovers in a folder.
func piFilesAt(fsys fs.FS, rel string) []string {
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
				if rel, ok := insidePackage(path.Join(dir, e)); ok && isFile(fsys, rel) {
					out = append(out, rel)
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	for _, idx := range []string{"index.ts", "index.js"} {
		if p := path.Join(dir, idx); isFile(fsys, p) {
			return []string{p}
		}
	}
	return nil
}

func isFile(fsys fs.FS, p string) bool {
	st, err := fs.Stat(fsys, p)
	return err == nil && !st.IsDir()
}

func isDir(fsys fs.FS, p string) bool {
	st, err := fs.Stat(fsys, p)
	return err == nil && st.IsDir()
}
