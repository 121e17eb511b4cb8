package releaseplan

import (
	"io/fs"
	"path"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/npm/packlist"
	"github.com/plaios/plaios/internal/workspace"
)

// buildInputs lists the sources whose compiled output the package ships. Packs ship `dist`,
// which git does not hold: a change to src/tools/search.ts changes dist/tools/search.js in
// the tarball, so the source counts as shipped. The mapping is TypeScript's own: the nearest
// tsconfig.json from the package folder up (following relative `extends`), its `include`,
// `exclude` and `files`, `rootDir` (else the common folder of the inputs) and `outDir` (else
// next to the source). A source is shipped when the packlist would ship its .js or .d.ts
// output; then the package's own tsconfig files count too. Packages built without tsc (a
// bundler with `noEmit`) are not mapped: only their shipped files count.
func buildInputs(fsys fs.FS, dir string, list *packlist.List, changed []string) []string {
	// Only the sources the pull request changed can make a difference; a package with none
	// costs nothing here.
	var want []string
	for _, p := range changed {
		if rel, ok := relTo(p, dir); ok && rel != "." && isCodeFile(p) && !list.Has(rel) {
			want = append(want, p)
		}
	}
	if len(want) == 0 {
		return nil
	}
	cfg := loadTSConfig(fsys, dir)
	if cfg == nil || cfg.noEmit {
		return nil
	}
	rootDir := cfg.rootDir
	if rootDir == "" {
		rootDir = commonDir(cfg.inputs(fsys))
	}
	outDir := cfg.outDir
	if outDir == "" {
		outDir = rootDir
	}
	var out []string
	for _, src := range want {
		if !cfg.includes(src) {
			continue
		}
		rel, ok := relTo(src, rootDir)
		if !ok {
			continue
		}
		js, dts := outputs(path.Join(outDir, rel), cfg.jsxPreserve)
		for _, o := range []string{js, dts} {
			if r, ok := relTo(o, dir); ok && list.Covers(r) {
				out = append(out, src)
				break
			}
		}
	}
	if len(out) > 0 {
		for _, f := range cfg.chain {
			if under(f, dir) {
				out = append(out, f)
			}
		}
	}
	return out
}

// isCodeFile reports whether a path could be a TypeScript or JavaScript source.
func isCodeFile(p string) bool {
	switch path.Ext(p) {
	case ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs":
		return true
	}
	return false
}

type tsconfig struct {
	chain       []string // the config files read, nearest first
	include     []string // patterns, resolved against the root of fsys
	exclude     []string
	files       []string
	hasInclude  bool
	hasFiles    bool
	rootDir     string
	outDir      string
	allowJS     bool
	noEmit      bool
	jsxPreserve bool
}

// loadTSConfig finds the tsconfig.json tsc would use for the package and reads it.
func loadTSConfig(fsys fs.FS, dir string) *tsconfig {
	for d := dir; ; d = path.Dir(d) {
		p := path.Join(d, "tsconfig.json")
		if _, err := fs.Stat(fsys, p); err == nil {
			c := &tsconfig{}
			if !c.read(fsys, p, 0) {
				return nil
			}
			return c
		}
		if d == "." {
			return nil
		}
	}
}

// read merges one config file into c; values already set by a nearer file win.
func (c *tsconfig) read(fsys fs.FS, file string, depth int) bool {
	if depth > 10 {
		return false
	}
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return false
	}
	v, err := jsonpos.ParseJSON5(data)
	if err != nil || v.Kind != jsonpos.Object {
		return false
	}
	c.chain = append(c.chain, file)
	dir := path.Dir(file)
	resolve := func(p string) string { return path.Join(dir, p) }
	if !c.hasInclude {
		if inc := v.Get("include"); inc != nil && inc.Kind == jsonpos.Array {
			c.hasInclude = true
			for _, p := range inc.Strings() {
				c.include = append(c.include, resolve(p))
			}
			if ex := v.Get("exclude"); ex != nil {
				for _, p := range ex.Strings() {
					c.exclude = append(c.exclude, resolve(p))
				}
			}
		}
	}
	if !c.hasFiles {
		if fl := v.Get("files"); fl != nil && fl.Kind == jsonpos.Array {
			c.hasFiles = true
			for _, p := range fl.Strings() {
				c.files = append(c.files, resolve(p))
			}
		}
	}
	if co := v.Get("compilerOptions"); co != nil && co.Kind == jsonpos.Object {
		if c.rootDir == "" && co.Get("rootDir").IsString() {
			c.rootDir = resolve(co.Get("rootDir").Str)
		}
		if c.outDir == "" && co.Get("outDir").IsString() {
			c.outDir = resolve(co.Get("outDir").Str)
		}
		if b := co.Get("allowJs"); b != nil && b.Kind == jsonpos.Bool && b.Boolean {
			c.allowJS = true
		}
		if b := co.Get("noEmit"); b != nil && b.Kind == jsonpos.Bool && b.Boolean {
			c.noEmit = true
		}
		if co.Get("jsx").Text() == "preserve" {
			c.jsxPreserve = true
		}
	}
	var parents []string
	switch ext := v.Get("extends"); {
	case ext.IsString():
		parents = []string{ext.Str}
	case ext != nil && ext.Kind == jsonpos.Array:
		parents = ext.Strings()
	}
	for _, p := range parents {
		if !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") {
			continue // a package in node_modules, which git does not hold
		}
		target := resolve(p)
		if !strings.HasSuffix(target, ".json") {
			if _, err := fs.Stat(fsys, target+".json"); err == nil {
				target += ".json"
			}
		}
		c.read(fsys, target, depth+1)
	}
	return true
}

var tsExts = []string{".ts", ".tsx", ".mts", ".cts"}
var jsExts = []string{".js", ".jsx", ".mjs", ".cjs"}

func (c *tsconfig) isSource(p string) bool {
	if strings.HasSuffix(p, ".d.ts") || strings.HasSuffix(p, ".d.mts") || strings.HasSuffix(p, ".d.cts") {
		return false
	}
	ext := path.Ext(p)
	for _, e := range tsExts {
		if ext == e {
			return true
		}
	}
	if c.allowJS {
		for _, e := range jsExts {
			if ext == e {
				return true
			}
		}
	}
	return false
}

// patterns returns the include patterns (folders widened to their contents) and the
// excludes, as tsc reads them.
func (c *tsconfig) patterns() (include, exclude []string) {
	inc := c.include
	if !c.hasInclude && !c.hasFiles {
		inc = []string{path.Join(path.Dir(c.chain[0]), "**/*")}
	}
	for _, p := range inc {
		last := path.Base(p)
		if !strings.ContainsAny(last, "*?") && path.Ext(last) == "" {
			p += "/**/*" // a folder
		}
		include = append(include, p)
	}
	exclude = append([]string{}, c.exclude...)
	for _, d := range []string{"node_modules", "bower_components", "jspm_packages"} {
		exclude = append(exclude, "**/"+d)
	}
	if c.outDir != "" {
		exclude = append(exclude, c.outDir)
	}
	return include, exclude
}

// includes reports whether tsc would compile the source at p.
func (c *tsconfig) includes(p string) bool {
	if !c.isSource(p) {
		return false
	}
	for _, f := range c.files {
		if f == p {
			return true
		}
	}
	include, exclude := c.patterns()
	return matchAny(include, p) && !matchAny(exclude, p)
}

// inputs lists the program's source files as tsc would find them.
func (c *tsconfig) inputs(fsys fs.FS) []string {
	base := path.Dir(c.chain[0])
	var out []string
	seen := map[string]bool{}
	for _, f := range c.files {
		if !seen[f] && c.isSource(f) {
			seen[f] = true
			out = append(out, f)
		}
	}
	patterns, excludes := c.patterns()
	if !c.hasInclude && c.hasFiles {
		return out
	}
	_ = fs.WalkDir(fsys, base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != base && matchAny(excludes, p) {
				return fs.SkipDir
			}
			return nil
		}
		if seen[p] || !c.isSource(p) || matchAny(excludes, p) || !matchAny(patterns, p) {
			return nil
		}
		seen[p] = true
		out = append(out, p)
		return nil
	})
	return out
}

func matchAny(patterns []string, p string) bool {
	for _, g := range patterns {
		if workspace.Match(g, p) {
			return true
		}
		// An excluded folder excludes what is inside it.
		last := path.Base(g)
		if !strings.ContainsAny(last, "*?") && strings.HasPrefix(p, g+"/") {
			return true
		}
		if strings.HasPrefix(g, "**/") && !strings.ContainsAny(g[3:], "*?/") {
			for _, seg := range strings.Split(p, "/") {
				if seg == g[3:] {
					return true
				}
			}
		}
	}
	return false
}

// outputs names the .js and .d.ts files tsc writes for a source at out (its path in outDir).
func outputs(out string, jsxPreserve bool) (string, string) {
	ext := path.Ext(out)
	stem := strings.TrimSuffix(out, ext)
	switch ext {
	case ".ts":
		return stem + ".js", stem + ".d.ts"
	case ".tsx":
		if jsxPreserve {
			return stem + ".jsx", stem + ".d.ts"
		}
		return stem + ".js", stem + ".d.ts"
	case ".mts":
		return stem + ".mjs", stem + ".d.mts"
	case ".cts":
		return stem + ".cjs", stem + ".d.cts"
	}
	return out, stem + ".d.ts"
}

func commonDir(files []string) string {
	if len(files) == 0 {
		return "."
	}
	common := path.Dir(files[0])
	for _, f := range files[1:] {
		for !under(f, common) {
			if common == "." {
				return "."
			}
			common = path.Dir(common)
		}
	}
	return common
}

// under reports whether p is inside dir (or is dir).
func under(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// relTo is p relative to dir, when p is inside it.
func relTo(p, dir string) (string, bool) {
	if dir == "." {
		return p, true
	}
	if p == dir {
		return ".", true
	}
	if strings.HasPrefix(p, dir+"/") {
		return p[len(dir)+1:], true
	}
	return "", false
}
