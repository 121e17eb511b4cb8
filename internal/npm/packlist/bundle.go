package packlist

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// gatherBundles ports npm-packlist's gatherBundles: the project's bundleDependencies (and,
// for a bundled package, its dependencies and optionalDependencies) are packed from the
// node_modules folders inside the package, each by its own package.json rules. Arborist resolves
// a dependency from the depending package's node_modules upwards, never above the package being
// packed, and skips dev and peer dependencies and missing folders.
//
// A dependency installed as a symbolic link (a workspace link) is walked through the link, with
// the .npmignore/.gitignore and default rules npm applies to links; its own dependencies are
// resolved from the link's location rather than its target's, which differs from Arborist only
// when the target has a node_modules folder of its own.
func (l *loader) gatherBundles(w *walker, m *manifest, projectRoot bool) error {
	var names []string
	if projectRoot {
		for _, n := range m.bundle {
			if t := m.edgeTypes[n]; t == "prod" || t == "optional" {
				names = append(names, n)
			}
		}
	} else {
		names = m.prodDeps()
	}
	for _, name := range names {
		rel, isLink, ok := l.resolveDep(w.rel, name)
		if !ok {
			continue
		}
		if l.seen[rel] {
			continue
		}
		l.seen[rel] = true
		dir := path.Join(l.dir, rel)
		dm, err := readManifest(l.fsys, dir, false)
		if err != nil {
			// Arborist keeps a node whose package.json cannot be read, with an empty package.
			dm = &manifest{raw: emptyObject(), edgeTypes: map[string]string{}}
		}
		ignoreFiles := []string{"package.json", setStrict}
		if isLink {
			ignoreFiles = rootIgnoreFiles
		}
		t := &tree{m: dm, dir: dir}
		bw, err := l.newWalker(nil, dir, rel, ignoreFiles, true, t, nil, nil)
		if err != nil {
			return err
		}
		if l.bundles == nil {
			l.bundles = map[string]*walker{}
		}
		l.bundles[rel] = bw
		if err := bw.walk(); err != nil {
			return fmt.Errorf("bundled dependency %s: %w", name, err)
		}
		if err := l.gatherBundles(bw, dm, false); err != nil {
			return err
		}
	}
	return nil
}

// resolveDep finds name for the package at from (relative to the packed package): from's own
// node_modules, then each enclosing package's, up to the packed package.
func (l *loader) resolveDep(from, name string) (rel string, isLink, ok bool) {
	if name == "" || strings.HasPrefix(name, ".") || strings.Contains(name, "\\") {
		return "", false, false
	}
	if strings.Count(name, "/") > 1 || (strings.Contains(name, "/") && !strings.HasPrefix(name, "@")) {
		return "", false, false
	}
	cur := from
	for {
		cand := path.Join(cur, "node_modules", name)
		if fs.ValidPath(path.Join(l.dir, cand)) {
			switch lstatKind(l.fsys, path.Join(l.dir, cand)) {
			case kindDir:
				return cand, false, true
			case kindOther:
				if info, err := fs.Stat(l.fsys, path.Join(l.dir, cand)); err == nil && info.IsDir() {
					return cand, true, true
				}
			}
		}
		if cur == "" || cur == "." {
			return "", false, false
		}
		cur = parentPackage(cur)
	}
}

// parentPackage is the package whose node_modules holds the package at rel.
func parentPackage(rel string) string {
	i := strings.LastIndex(rel, "/node_modules/")
	if i < 0 {
		if strings.HasPrefix(rel, "node_modules/") {
			return ""
		}
		return ""
	}
	return rel[:i]
}
