// Package packlist computes the files `npm pack` puts in a package's tarball — the "shipped
// files" — from any io/fs.FS (a folder on disk, or a git tree at a commit), without running npm.
//
// npm's packlist is not a documented format but the behaviour of three libraries: npm-packlist
// 10 (the `files` field, the files npm always adds or leaves out, bundled dependencies),
// ignore-walk 8 (nested .npmignore/.gitignore files and how a folder's rules combine with its
// ancestors') and minimatch 10 (every pattern). No Go library reproduces them, so this package
// ports all three (minimatch in internal/minimatch) and is tested against the real
// `npm pack --dry-run --json` on many package shapes. Symbolic links are never packed (npm
// lstat()s and keeps only regular files and folders): links are recognized from fs.DirEntry
// types, and `files` entries are lstat()ed through fs.ReadLinkFS when the file system offers it
// (os.DirFS and fstest.MapFS do). Bundled dependencies (bundleDependencies) are packed from the
// node_modules folders inside the package, each by its own package.json rules, as npm-packlist
// does; a bundled dependency installed as a link has its own dependencies looked up from the
// link's location rather than its target's.
package packlist

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Options says where the package stands.
type Options struct {
	// WorkspaceRoot is the project root within fsys when dir is a workspace package ("" otherwise,
	// or when dir is the root itself). npm then also applies the ignore files of the root and of
	// every folder between the root and the package (one per folder: .npmignore, else
	// .gitignore), matching their rules against paths inside the package.
	WorkspaceRoot string
}

// List is the packlist of one package.
type List struct {
	files map[string]bool
	l     *loader
}

type loader struct {
	fsys    fs.FS
	dir     string
	files   map[string]bool
	root    *walker
	seen    map[string]bool
	extra   []ruleLine         // the workspace root's rules, added to the defaults
	bundles map[string]*walker // bundled dependencies' walkers by folder
	focus   []string           // when set, walk only along this path (Covers)
}

func (l *loader) add(p string) { l.files[p] = true }

// Load computes the packlist of the package in dir (a slash path within fsys; "." for its root).
// It reads dir/package.json itself. An error means npm pack would fail too (unreadable or
// invalid package.json, a `files` value npm cannot iterate, an ignore rule minimatch rejects),
// or the file system could not be read.
func Load(fsys fs.FS, dir string, opts Options) (*List, error) {
	dir = cleanDir(dir)
	if !fs.ValidPath(dir) {
		return nil, fmt.Errorf("package folder %q is not a valid path in the file system", dir)
	}
	l := &loader{fsys: fsys, dir: dir, files: map[string]bool{}, seen: map[string]bool{}}
	m, err := readManifest(fsys, dir, true)
	if err != nil {
		return nil, err
	}
	hasWS, err := hasWorkspaces(fsys, dir, m.raw)
	if err != nil {
		return nil, err
	}
	var extra []ruleLine
	if root := cleanDir(opts.WorkspaceRoot); opts.WorkspaceRoot != "" && root != dir {
		extra, err = outOfTreeRules(fsys, root, dir)
		if err != nil {
			return nil, err
		}
	}
	l.extra = extra
	t := &tree{m: m, hasWorkspaces: hasWS, dir: dir}
	w, err := l.newWalker(nil, dir, "", rootIgnoreFiles, true, t, nil, extra)
	if err != nil {
		return nil, err
	}
	l.root = w
	if err := w.walk(); err != nil {
		return nil, err
	}
	l.seen[dir] = true
	if err := l.gatherBundles(w, m, true); err != nil {
		return nil, err
	}
	return &List{files: l.files, l: l}, nil
}

func cleanDir(dir string) string {
	if dir == "" {
		return "."
	}
	return path.Clean(strings.TrimPrefix(dir, "./"))
}

// outOfTreeRules reads the ignore files npm applies to a workspace package from outside it:
// the root's and each intermediate folder's .npmignore, else .gitignore (npm-packlist's
// readOutOfTreeIgnoreFiles).
func outOfTreeRules(fsys fs.FS, root, dir string) ([]ruleLine, error) {
	rel := nodeRelative(root, path.Dir(dir))
	if strings.HasPrefix(rel, "..") || nodeRelative(root, dir) == "" || strings.HasPrefix(nodeRelative(root, dir), "..") {
		return nil, fmt.Errorf("package folder %s is not inside the workspace root %s", dir, root)
	}
	var out []ruleLine
	cur := root
	for {
		for _, name := range []string{".npmignore", ".gitignore"} {
			p := path.Join(cur, name)
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return nil, fmt.Errorf("read %s: %w", p, err)
			}
			out = append(out, fileLines(string(data), nodeRelative(dir, p))...)
			break
		}
		if rel == "" {
			return out, nil
		}
		first, rest, _ := strings.Cut(rel, "/")
		cur = path.Join(cur, first)
		rel = rest
	}
}

// Files returns the packed files: slash paths relative to the package folder, sorted in byte
// order. Bundled dependencies appear under node_modules/.
func (l *List) Files() []string {
	out := make([]string, 0, len(l.files))
	for f := range l.files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Has reports whether path (slash-separated, relative to the package folder) is in the tarball.
func (l *List) Has(p string) bool {
	return l.files[cleanRel(p)]
}

func cleanRel(p string) string {
	p = path.Clean(strings.TrimPrefix(p, "./"))
	if p == "." {
		return ""
	}
	return p
}

func (w *walker) entry(name string) fs.DirEntry {
	for _, e := range w.entries {
		if e.Name() == name {
			return e
		}
	}
	return nil
}

// Why says, for a path that exists but is not packed, which rule leaves it out, in one phrase
// for a hint: `not listed in "files"`, `excluded by .npmignore line 3 ("dist/*.map")`,
// `npm never packs .git`, `npm does not pack symbolic links`. It returns "" for a packed
// path, and says so when the path does not exist.
func (l *List) Why(p string) string {
	p = cleanRel(p)
	if p != "" && l.files[p] {
		return ""
	}
	if p == "" || p == ".." || strings.HasPrefix(p, "../") {
		return "it is not inside the package"
	}
	parts := strings.Split(p, "/")
	w := l.l.root
	// Inside a bundled dependency, its own rules decide.
	for i := len(parts) - 1; i > 0; i-- {
		if bw, ok := l.l.bundles[strings.Join(parts[:i], "/")]; ok {
			w, parts = bw, parts[i:]
			break
		}
	}
	for i, name := range parts {
		last := i == len(parts)-1
		e := w.entry(name)
		if e == nil {
			return "it does not exist"
		}
		kind := entryKind(e)
		switch {
		case kind == kindOther && e.Type()&fs.ModeSymlink != 0:
			return "npm does not pack symbolic links"
		case kind == kindOther:
			return "npm packs only regular files and folders"
		case strings.Contains(name, "*"):
			return `npm does not pack names containing "*"`
		}
		if last {
			if kind == kindDir {
				return "it is a folder"
			}
			if ok, r := w.filterEntry(name, false, ""); !ok {
				if n := w.neverRule(name, false, ""); n != nil {
					return n.phrase()
				}
				return r.phrase()
			}
			return "npm leaves it out"
		}
		if kind != kindDir {
			return "it does not exist"
		}
		c, ok := w.children[name]
		if !ok {
			if _, r := w.filterEntry(name, true, ""); r != nil {
				if n := w.neverRule(name, true, ""); n != nil {
					return n.phrase()
				}
				return r.phrase()
			}
			return "npm leaves its folder out"
		}
		w = c
	}
	return "npm leaves it out"
}

// neverRule finds, for an entry npm leaves out, one of npm's always-excluded rules that matches
// it: "npm never packs node_modules" says more than "not listed in files" when both hold.
func (w *walker) neverRule(entry string, partial bool, entryBasename string) *rule {
	if w.parent != nil {
		base := entryBasename
		if base == "" {
			base = entry
		}
		if r := w.parent.neverRule(w.basename+"/"+entry, partial, base); r != nil {
			return r
		}
	}
	for _, f := range w.ignoreFiles {
		if f != setDefaults && f != setStrict {
			continue
		}
		rs := w.rules[f]
		if rs == nil || !rs.set {
			continue
		}
		for _, r := range rs.rules {
			if !r.mm.Negate && strings.HasPrefix(r.why, "npm never packs") && matchRule(r, entry, partial, entryBasename) {
				return r
			}
		}
	}
	return nil
}

func (r *rule) phrase() string {
	if r == nil || r.why == "" {
		return "npm leaves it out"
	}
	return r.why
}
