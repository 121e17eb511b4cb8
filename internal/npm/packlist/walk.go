package packlist

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/plaios/plaios/internal/npm/packlist/internal/minimatch"
)

// This file ports ignore-walk 8's Walker and npm-packlist 10's PackWalker: each folder is a
// walker holding the rule sets read in it; an entry is kept when its own folder's rules and every
// ancestor's rules (asked with the entry's path below them) let it through.

// tree is the package a walker belongs to (Arborist's node).
type tree struct {
	m             *manifest
	hasWorkspaces bool
	// dir is the package folder within the file system.
	dir string
}

type ruleSet struct {
	rules []*rule
	set   bool // JavaScript's truthiness of ignoreRules[file]: loaded and not nulled
}

type walker struct {
	l             *loader
	parent        *walker
	dir           string // folder within the file system
	rel           string // folder relative to the walk's root ("" for the root)
	basename      string
	ignoreFiles   []string
	rules         map[string]*ruleSet
	exact         bool
	isPackage     bool
	requiredFiles []string
	tree          *tree
	children      map[string]*walker
	entries       []fs.DirEntry
	label         string // how hints name this folder's files ("src/" or "")
}

// rootIgnoreFiles is the ignoreFiles list of a package walker (and PackWalker's default).
var rootIgnoreFiles = []string{setDefaults, "package.json", ".npmignore", ".gitignore", setStrict}

func (w *walker) inject(name string, lines []ruleLine) error {
	rules, err := parseRules(lines)
	if err != nil {
		return err
	}
	w.rules[name] = &ruleSet{rules: rules, set: true}
	return nil
}

// newWalker is PackWalker's constructor.
func (l *loader) newWalker(parent *walker, dir, rel string, ignoreFiles []string, isPackage bool, t *tree, required []string, extraDefaults []ruleLine) (*walker, error) {
	w := &walker{
		l: l, parent: parent, dir: dir, rel: rel, basename: path.Base(dir),
		ignoreFiles: ignoreFiles, rules: map[string]*ruleSet{}, isPackage: isPackage,
		requiredFiles: required, tree: t, children: map[string]*walker{},
	}
	if rel != "" {
		w.label = rel + "/"
	}
	if w.ignoreFiles == nil {
		w.ignoreFiles = rootIgnoreFiles
	}
	if err := w.inject(setDefaults, append(append([]ruleLine{}, defaults...), extraDefaults...)); err != nil {
		return nil, err
	}
	if !isPackage {
		lines := append([]ruleLine{}, strictDefaults...)
		for _, f := range required {
			lines = append(lines, ruleLine{text: "!" + f})
		}
		if err := w.inject(setStrict, lines); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func (w *walker) isIgnoreFile(name string) bool {
	if name == "." || name == ".." {
		return false
	}
	for _, f := range w.ignoreFiles {
		if f == name {
			return true
		}
	}
	return false
}

// walk reads the folder, its ignore files, and recurses into the folders it keeps.
func (w *walker) walk() error {
	entries, err := readDir(w.l.fsys, w.dir)
	if err != nil {
		return fmt.Errorf("read folder %s: %w", w.dir, err)
	}
	w.entries = entries
	if len(entries) == 0 {
		return nil
	}
	for _, e := range entries {
		if !w.isIgnoreFile(e.Name()) {
			continue
		}
		if e.Name() == "package.json" && w.isPackage {
			if err := w.processPackage(); err != nil {
				return err
			}
			continue
		}
		data, err := fs.ReadFile(w.l.fsys, path.Join(w.dir, e.Name()))
		if err != nil {
			return fmt.Errorf("read %s: %w", path.Join(w.dir, e.Name()), err)
		}
		if err := w.inject(e.Name(), fileLines(string(data), w.label+e.Name())); err != nil {
			return err
		}
	}
	return w.filterEntries()
}

// filterEntries applies the precedence (package.json `files` over .npmignore over .gitignore)
// and keeps the entries that pass as a file or as a folder.
func (w *walker) filterEntries() error {
	if rs := w.rules["package.json"]; rs != nil && rs.set {
		w.null(".npmignore")
		w.null(".gitignore")
	} else if rs := w.rules[".npmignore"]; rs != nil && rs.set {
		w.null(".gitignore")
	}
	depth := 0
	if w.rel != "" {
		depth = strings.Count(w.rel, "/") + 1
	}
	for _, e := range w.entries {
		name := e.Name()
		if w.l.focus != nil && (depth >= len(w.l.focus) || name != w.l.focus[depth]) {
			continue
		}
		passFile, _ := w.filterEntry(name, false, "")
		passDir, _ := w.filterEntry(name, true, "")
		if !passFile && !passDir {
			continue
		}
		if strings.Contains(name, "*") {
			continue // npm refuses names that are bad on Windows
		}
		kind := entryKind(e)
		switch kind {
		case kindFile:
			if passFile {
				w.l.add(path.Join(w.rel, name))
			}
		case kindDir:
			if passDir {
				exact := passFile
				if !exact {
					exact, _ = w.filterEntry(name+"/", false, "")
				}
				child, err := w.child(name, exact)
				if err != nil {
					return err
				}
				w.children[name] = child
				if err := child.walk(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (w *walker) null(name string) {
	if rs := w.rules[name]; rs != nil {
		rs.set = false
	}
}

// child makes the walker for a sub-folder (PackWalker.walkerOpt).
func (w *walker) child(name string, exact bool) (*walker, error) {
	var ignoreFiles []string
	if w.tree.hasWorkspaces {
		// With workspaces, npm-packlist passes no list (or the root's list for a workspace
		// folder), and PackWalker's default list, package.json included, applies.
		ignoreFiles = rootIgnoreFiles
	} else {
		ignoreFiles = []string{setDefaults, ".npmignore", ".gitignore", setStrict}
	}
	var required []string
	for _, f := range w.requiredFiles {
		if nodeRelative(f, name) == ".." {
			required = append(required, strings.ReplaceAll(nodeRelative(name, f), `\`, "/"))
		}
	}
	c, err := w.l.newWalker(w, path.Join(w.dir, name), path.Join(w.rel, name), ignoreFiles, false, w.tree, required, nil)
	if err != nil {
		return nil, err
	}
	c.exact = exact
	return c, nil
}

// filterEntry is ignore-walk's filterEntry; it also returns the rule that last left the entry
// out (for hints).
func (w *walker) filterEntry(entry string, partial bool, entryBasename string) (bool, *rule) {
	included := true
	var culprit *rule
	if w.parent != nil {
		parentEntry := w.basename + "/" + entry
		parentBasename := entryBasename
		if parentBasename == "" {
			parentBasename = entry
		}
		included, culprit = w.parent.filterEntry(parentEntry, partial, parentBasename)
		if !included && !w.exact {
			return false, culprit
		}
	}
	var v entryVariants
	v.entry, v.base = entry, entryBasename
	for _, f := range w.ignoreFiles {
		rs := w.rules[f]
		if rs == nil || !rs.set {
			continue
		}
		for _, r := range rs.rules {
			if r.mm.Negate == included {
				continue
			}
			if v.match(r, partial) {
				included = r.mm.Negate
				if !included {
					culprit = r
				}
			}
		}
	}
	return included, culprit
}

// entryVariants are the spellings of an entry ignore-walk tries ("/x", "x", "/x/", "x/", and the
// basename forms), split once and shared by all the rules of a folder.
type entryVariants struct {
	entry, base string
	paths       [8]*minimatch.Path
}

func (v *entryVariants) path(i int) *minimatch.Path {
	if v.paths[i] == nil {
		var s string
		switch i {
		case 0:
			s = "/" + v.entry
		case 1:
			s = v.entry
		case 2:
			s = "/" + v.entry + "/"
		case 3:
			s = v.entry + "/"
		case 4:
			s = "/" + v.base + "/"
		case 5:
			s = v.base + "/"
		case 6:
			s = "/" + v.base
		case 7:
			s = v.base
		}
		v.paths[i] = minimatch.SplitPath(s)
	}
	return v.paths[i]
}

func isRelativeRule(r *rule) bool {
	for _, part := range r.mm.GlobParts {
		limit := 2
		if len(part) > 0 && part[len(part)-1] != "" {
			limit = 1
		}
		if len(part) <= limit {
			return true
		}
	}
	return false
}

func matchRule(r *rule, entry string, partial bool, entryBasename string) bool {
	v := entryVariants{entry: entry, base: entryBasename}
	return v.match(r, partial)
}

func (v *entryVariants) match(r *rule, partial bool) bool {
	mm := r.mm
	if mm.MatchPath(v.path(0), false) || mm.MatchPath(v.path(1), false) {
		return true
	}
	if !partial {
		return false
	}
	if mm.MatchPath(v.path(2), false) || mm.MatchPath(v.path(3), false) {
		return true
	}
	if mm.Negate && (mm.MatchPath(v.path(0), true) || mm.MatchPath(v.path(1), true)) {
		return true
	}
	if v.base != "" && isRelativeRule(r) {
		if mm.MatchPath(v.path(4), false) || mm.MatchPath(v.path(5), false) {
			return true
		}
		if mm.Negate && (mm.MatchPath(v.path(6), true) || mm.MatchPath(v.path(7), true)) {
			return true
		}
	}
	return false
}

// processPackage is PackWalker.processPackage: the `files` rules and the strict rules of a
// package root.
func (w *walker) processPackage() error {
	m := w.tree.m
	var ignores []ruleLine
	var strictFront []ruleLine
	strict := append([]ruleLine{}, packageStrict...)
	if m.hasFiles {
		for _, file := range m.files {
			entryWhy := fmt.Sprintf("excluded by the \"files\" entry %q", file)
			if strings.HasPrefix(file, "./") {
				file = file[1:]
			}
			if strings.HasSuffix(file, "/*") {
				file += "*"
			}
			inverse := "!" + file
			target := strings.ReplaceAll(nodeJoin(w.dir, strings.TrimLeft(file, "!")), `\`, "/")
			switch lstatKind(w.l.fsys, target) {
			case kindFile:
				strictFront = append([]ruleLine{{inverse, entryWhy}}, strictFront...)
				req := file
				if strings.HasPrefix(req, "/") {
					req = req[1:]
				}
				w.requiredFiles = append(w.requiredFiles, req)
			case kindDir:
				ignores = append(ignores, ruleLine{inverse, entryWhy}, ruleLine{inverse + "/**", entryWhy})
			case kindNone:
				ignores = append(ignores, ruleLine{inverse, entryWhy})
			}
		}
		lines := append([]ruleLine{{"*", notInFiles}}, ignores...)
		if err := w.inject("package.json", lines); err != nil {
			return err
		}
	}
	strict = append(strictFront, strict...)
	if m.hasBrowser {
		strict = append(strict, ruleLine{"!/" + m.browser, ""})
	}
	if m.hasMain {
		strict = append(strict, ruleLine{"!/" + m.main, ""})
	}
	for _, b := range m.bins {
		strict = append(strict, ruleLine{"!/" + b, ""})
	}
	return w.inject(setStrict, strict)
}

type fileKind int

const (
	kindNone  fileKind = iota // does not exist (or cannot be reached)
	kindFile                  // a regular file
	kindDir                   // a folder
	kindOther                 // a link, device, socket…
)

func entryKind(e fs.DirEntry) fileKind {
	t := e.Type()
	switch {
	case t&fs.ModeSymlink != 0:
		return kindOther
	case t.IsDir():
		return kindDir
	case t.IsRegular():
		return kindFile
	}
	return kindOther
}

// lstatKind is fs.lstatSync as npm-packlist calls it for `files` entries, on a path joined
// (Node-style) from the package folder: a trailing slash follows a final link and requires a
// folder; a path outside the file system does not exist.
func lstatKind(fsys fs.FS, joined string) fileKind {
	trailing := strings.HasSuffix(joined, "/")
	name := strings.TrimSuffix(joined, "/")
	if name == "" || name == "." || strings.HasPrefix(name, "/") {
		name = strings.Trim(name, "/")
		if name == "" {
			name = "."
		}
	}
	if !fs.ValidPath(name) {
		return kindNone
	}
	var info fs.FileInfo
	var err error
	if rl, ok := fsys.(fs.ReadLinkFS); ok && !trailing {
		info, err = rl.Lstat(name)
	} else {
		info, err = fs.Stat(fsys, name)
	}
	if err != nil {
		return kindNone
	}
	mode := info.Mode()
	switch {
	case trailing && !mode.IsDir():
		return kindNone
	case mode&fs.ModeSymlink != 0:
		return kindOther
	case mode.IsDir():
		return kindDir
	case mode.IsRegular():
		return kindFile
	}
	return kindOther
}

func readDir(fsys fs.FS, dir string) ([]fs.DirEntry, error) {
	if dir == "" {
		dir = "."
	}
	return fs.ReadDir(fsys, dir)
}
