package packlist

import (
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
)

// manifest holds what npm-packlist reads from a package.json after npm's normalization
// (@npmcli/package-json with Arborist's steps): files, main, browser, bin (normalized, or
// expanded from directories.bin) and the bundled dependencies.
type manifest struct {
	raw        *jsonpos.Value
	files      []string // the `files` entries; hasFiles says whether the field counts
	hasFiles   bool
	filesPos   jsonpos.Pos
	main       string
	hasMain    bool
	browser    string
	hasBrowser bool
	bins       []string // normalized bin targets
	bundle     []string // bundleDependencies (project root only)
	edgeTypes  map[string]string
}

// ManifestError is a package.json npm cannot pack.
type ManifestError struct {
	Pos jsonpos.Pos
	Msg string
}

func (e *ManifestError) Error() string {
	if e.Pos.Line > 0 {
		return fmt.Sprintf("package.json line %d: %s", e.Pos.Line, e.Msg)
	}
	return "package.json: " + e.Msg
}

// truthy is JavaScript's ToBoolean.
func truthy(v *jsonpos.Value) bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case jsonpos.Null:
		return false
	case jsonpos.Bool:
		return v.Boolean
	case jsonpos.Number:
		f := v.Float()
		return f != 0 && !math.IsNaN(f)
	case jsonpos.String:
		return v.Str != ""
	}
	return true
}

// jsString is JavaScript's String(v) for a JSON value.
func jsString(v *jsonpos.Value) string {
	if v == nil {
		return "undefined"
	}
	switch v.Kind {
	case jsonpos.Null:
		return "null"
	case jsonpos.Bool:
		return strconv.FormatBool(v.Boolean)
	case jsonpos.Number:
		return jsonpos.JSNumberString(v.Float())
	case jsonpos.String:
		return v.Str
	case jsonpos.Array:
		parts := make([]string, len(v.Items))
		for i, it := range v.Items {
			if it.Kind != jsonpos.Null {
				parts[i] = jsString(it)
			}
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

// isArrayIndex reports whether key is a canonical array index, which JavaScript lists first.
func isArrayIndex(key string) bool {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return false
	}
	n, err := strconv.ParseUint(key, 10, 64)
	return err == nil && n < 0xFFFFFFFF
}

type ownMember struct {
	key string
	val *jsonpos.Value
}

// ownKeys lists an object's members in JavaScript's property order (array indices ascending,
// then the other keys in first-appearance order) with the last value of duplicated keys.
func ownKeys(v *jsonpos.Value) []ownMember {
	if v == nil || v.Kind != jsonpos.Object {
		return nil
	}
	index := map[string]int{}
	var out []ownMember
	for _, m := range v.Members {
		if i, ok := index[m.Key]; ok {
			out[i].val = m.Value
			continue
		}
		index[m.Key] = len(out)
		out = append(out, ownMember{m.Key, m.Value})
	}
	var nums, rest []ownMember
	for _, m := range out {
		if isArrayIndex(m.key) {
			nums = append(nums, m)
		} else {
			rest = append(rest, m)
		}
	}
	sort.SliceStable(nums, func(i, j int) bool {
		a, _ := strconv.ParseUint(nums[i].key, 10, 64)
		b, _ := strconv.ParseUint(nums[j].key, 10, 64)
		return a < b
	})
	return append(nums, rest...)
}

// objectKeys is Object.keys(v || {}) for an object value (other values give none).
func objectKeys(v *jsonpos.Value) []string {
	var out []string
	for _, m := range ownKeys(v) {
		out = append(out, m.key)
	}
	return out
}

// readManifest reads a package.json for npm-packlist. root says whether this is the project
// being packed (bundleDependencies and devDependencies count only there).
func readManifest(fsys fs.FS, dir string, root bool) (*manifest, error) {
	name := path.Join(dir, "package.json")
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	v, err := jsonpos.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	if v.Kind != jsonpos.Object {
		return nil, &ManifestError{Pos: v.Pos, Msg: "the top level must be an object"}
	}
	m := &manifest{raw: v}
	if err := m.readFiles(v.Get("files")); err != nil {
		return nil, err
	}
	if mv := v.Get("main"); truthy(mv) {
		m.main, m.hasMain = jsString(mv), true
	}
	if bv := v.Get("browser"); truthy(bv) {
		m.browser, m.hasBrowser = jsString(bv), true
	}
	if err := m.readBin(fsys, dir, v); err != nil {
		return nil, err
	}
	if root {
		m.readBundle(v)
	}
	m.readEdges(v, root)
	return m, nil
}

func (m *manifest) readFiles(f *jsonpos.Value) error {
	if !truthy(f) {
		return nil
	}
	m.hasFiles = true
	m.filesPos = f.Pos
	switch f.Kind {
	case jsonpos.String:
		// `for (const file of "lib")` walks the string's characters: npm packs nothing but the
		// files it always packs, plus one-character names.
		for _, r := range f.Str {
			m.files = append(m.files, string(r))
		}
		return nil
	case jsonpos.Array:
		for _, it := range f.Items {
			if it.Kind != jsonpos.String {
				return &ManifestError{Pos: it.Pos, Msg: fmt.Sprintf(`"files" entries must be strings, not %s (npm pack fails on it)`, it.Kind)}
			}
			m.files = append(m.files, it.Str)
		}
		return nil
	}
	return &ManifestError{Pos: f.Pos, Msg: fmt.Sprintf(`"files" must be an array of strings, not %s (npm pack fails on it)`, f.Kind)}
}

// unixify is @npmcli/package-json's unixifyPath.
func unixify(s string) string {
	return strings.NewReplacer(`\`, "/", ":", "/").Replace(s)
}

// secureAndUnixifyPath keeps a path inside the package, as @npmcli/package-json does.
func secureAndUnixifyPath(ref string) string {
	s := unixify(nodeJoin(".", nodeJoin("/", unixify(ref))))
	if strings.HasPrefix(s, "./") {
		return ""
	}
	return s
}

func (m *manifest) readBin(fsys fs.FS, dir string, v *jsonpos.Value) error {
	bin := v.Get("bin")
	if dirs := v.Get("directories"); dirs != nil && dirs.Kind == jsonpos.Object && !truthy(bin) {
		if db := dirs.Get("bin"); truthy(db) {
			if db.Kind != jsonpos.String {
				return &ManifestError{Pos: db.Pos, Msg: fmt.Sprintf(`"directories.bin" must be a string, not %s (npm pack fails on it)`, db.Kind)}
			}
			binPath := secureAndUnixifyPath(db.Str)
			for _, f := range globAll(fsys, path.Join(dir, binPath)) {
				m.bins = append(m.bins, binPath+"/"+secureAndUnixifyPath(f))
			}
			return nil
		}
	}
	if !truthy(bin) {
		return nil
	}
	type kv struct{ key, target string }
	var entries []kv
	switch bin.Kind {
	case jsonpos.String:
		name := v.Get("name")
		if !truthy(name) {
			return nil
		}
		entries = append(entries, kv{jsString(name), bin.Str})
	case jsonpos.Array:
		byBase := map[string]int{}
		for _, it := range bin.Items {
			if it.Kind != jsonpos.String {
				return &ManifestError{Pos: it.Pos, Msg: fmt.Sprintf(`"bin" entries must be strings, not %s (npm pack fails on it)`, it.Kind)}
			}
			b := nodeBasename(it.Str)
			if i, ok := byBase[b]; ok {
				entries[i].target = it.Str
				continue
			}
			byBase[b] = len(entries)
			entries = append(entries, kv{b, it.Str})
		}
	case jsonpos.Object:
		for _, mem := range ownKeys(bin) {
			if mem.val.Kind != jsonpos.String {
				entries = append(entries, kv{mem.key, "\x00"}) // dropped below, as a non-string
				continue
			}
			entries = append(entries, kv{mem.key, mem.val.Str})
		}
	default:
		return nil
	}
	clean := map[string]string{}
	var order []string
	for _, e := range entries {
		base := strings.TrimPrefix(nodeJoin("/", nodeBasename(strings.NewReplacer(`\`, "/", ":", "/").Replace(e.key))), "/")
		if e.target == "\x00" || base == "" {
			continue
		}
		target := strings.TrimPrefix(strings.ReplaceAll(nodeJoin("/", strings.ReplaceAll(e.target, `\`, "/")), `\`, "/"), "/")
		if target == "" {
			continue
		}
		if _, ok := clean[base]; !ok {
			order = append(order, base)
		}
		clean[base] = target
	}
	for _, b := range order {
		m.bins = append(m.bins, clean[b])
	}
	return nil
}

// globAll lists what glob('**', {cwd: dir}) returns: every file, folder and link below dir
// (relative paths), without names starting with "." and without entering linked folders. A
// folder that cannot be read gives nothing, as glob does.
func globAll(fsys fs.FS, dir string) []string {
	var out []string
	var walk func(rel string)
	walk = func(rel string) {
		entries, err := fs.ReadDir(fsys, path.Join(dir, rel))
		if err != nil {
			return
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := path.Join(rel, e.Name())
			out = append(out, p)
			if e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
				walk(p)
			}
		}
	}
	if dir == "" {
		dir = "."
	}
	walk("")
	return out
}

func (m *manifest) readBundle(v *jsonpos.Value) {
	bd := v.Get("bundleDependencies")
	if bd == nil {
		bd = v.Get("bundledDependencies")
	}
	if bd == nil {
		return
	}
	switch {
	case bd.Kind == jsonpos.Bool && !bd.Boolean:
		return
	case bd.Kind == jsonpos.Bool:
		m.bundle = objectKeys(v.Get("dependencies"))
	case bd.Kind == jsonpos.Array:
		for _, it := range bd.Items {
			if it.Kind == jsonpos.String {
				m.bundle = append(m.bundle, it.Str)
			}
		}
	case bd.Kind == jsonpos.Object:
		m.bundle = objectKeys(bd)
	}
}

// readEdges records, per dependency name, the type of Arborist's edge: later types replace
// earlier ones (peer, peerOptional, prod, optional, then dev for the project root).
func (m *manifest) readEdges(v *jsonpos.Value, root bool) {
	m.edgeTypes = map[string]string{}
	meta := v.Get("peerDependenciesMeta")
	for _, name := range objectKeys(v.Get("peerDependencies")) {
		if o := meta.Get(name); o != nil && truthy(o.Get("optional")) {
			m.edgeTypes[name] = "peerOptional"
		} else {
			m.edgeTypes[name] = "peer"
		}
	}
	for _, name := range objectKeys(v.Get("dependencies")) {
		m.edgeTypes[name] = "prod"
	}
	for _, name := range objectKeys(v.Get("optionalDependencies")) {
		m.edgeTypes[name] = "optional"
	}
	if root {
		for _, name := range objectKeys(v.Get("devDependencies")) {
			m.edgeTypes[name] = "dev"
		}
	}
}

// prodDeps are the names a bundled dependency brings along: dependencies and
// optionalDependencies.
func (m *manifest) prodDeps() []string {
	return append(objectKeys(m.raw.Get("dependencies")), objectKeys(m.raw.Get("optionalDependencies"))...)
}
