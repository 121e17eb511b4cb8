// Package exports resolves a package's "exports" field as Node resolves it: which file
// `import "<name>/<subpath>"` (or require) loads, which targets can never load, and the file a
// bare `import "<name>"` loads when there is no "exports" (the legacy "main" lookup).
//
// The algorithm is Node 20's lib/internal/modules/esm/resolve.js (packageExportsResolve,
// resolvePackageTarget, resolvePackageTargetString, legacyMainResolve), followed step by step:
// conditional sugar, JavaScript's property order (array-index keys first), pattern keys ranked by
// PATTERN_KEY_COMPARE, array fallbacks that skip invalid targets, null exclusions, the segment
// checks that refuse ".", ".." and "node_modules" (also percent-encoded), and targets resolved as
// file: URLs. No Go library implements Node's resolution, so it is written here and tested against
// node itself.
package exports

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
)

// ImportConditions are the conditions Node 20 (20.19 and later, where require(esm) is on by
// default and brings "module-sync") matches for import without --conditions flags. "default"
// always matches and needs no listing; "types" is a TypeScript condition Node ignores.
var ImportConditions = []string{"node", "import", "module-sync", "node-addons"}

// RequireConditions are Node 20's conditions for require.
var RequireConditions = []string{"require", "node", "node-addons", "module-sync"}

// Node's error codes, which Error.Code holds.
const (
	CodeNotExported      = "ERR_PACKAGE_PATH_NOT_EXPORTED"
	CodeInvalidTarget    = "ERR_INVALID_PACKAGE_TARGET"
	CodeInvalidConfig    = "ERR_INVALID_PACKAGE_CONFIG"
	CodeInvalidSpecifier = "ERR_INVALID_MODULE_SPECIFIER"
	CodeModuleNotFound   = "ERR_MODULE_NOT_FOUND"
	CodeURIError         = "URIError" // fileURLToPath throws a URIError without a code
)

// Error is a resolution failure: Node's code, one sentence, and where the offending value stands
// in package.json (HasPos is false when there is no such value).
type Error struct {
	Code    string
	Message string
	Pos     jsonpos.Pos
	HasPos  bool
}

func (e *Error) Error() string { return e.Message }

func errAt(code string, v *jsonpos.Value, format string, a ...any) *Error {
	e := &Error{Code: code, Message: fmt.Sprintf(format, a...)}
	if v != nil {
		e.Pos, e.HasPos = v.Pos, true
	}
	return e
}

// member is an object property in JavaScript's own-property order.
type member struct {
	key    string
	keyPos jsonpos.Pos
	val    *jsonpos.Value
}

// isArrayIndex is Node's isArrayIndex: `${+key}` === key and 0 <= +key < 2^32-1.
func isArrayIndex(key string) bool {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return false
	}
	n, err := strconv.ParseUint(key, 10, 64)
	return err == nil && n < 0xFFFFFFFF
}

// members lists an object's properties as Object.getOwnPropertyNames orders them after
// JSON.parse: array indices ascending, then the other keys in first-appearance order; a
// duplicated key keeps its first place and its last value.
func members(v *jsonpos.Value) []member {
	if v == nil || v.Kind != jsonpos.Object {
		return nil
	}
	index := map[string]int{}
	var all []member
	for _, m := range v.Members {
		if i, ok := index[m.Key]; ok {
			all[i].val, all[i].keyPos = m.Value, m.KeyPos
			continue
		}
		index[m.Key] = len(all)
		all = append(all, member{m.Key, m.KeyPos, m.Value})
	}
	var nums, rest []member
	for _, m := range all {
		if isArrayIndex(m.key) {
			nums = append(nums, m)
		} else {
			rest = append(rest, m)
		}
	}
	for i := 1; i < len(nums); i++ { // insertion sort: few numeric keys
		for j := i; j > 0; j-- {
			a, _ := strconv.ParseUint(nums[j-1].key, 10, 64)
			b, _ := strconv.ParseUint(nums[j].key, 10, 64)
			if a <= b {
				break
			}
			nums[j-1], nums[j] = nums[j], nums[j-1]
		}
	}
	return append(nums, rest...)
}

func get(ms []member, key string) (member, bool) {
	for _, m := range ms {
		if m.key == key {
			return m, true
		}
	}
	return member{}, false
}

// utf16Len is a JavaScript string's length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// isConditionalSugar is isConditionalExportsMainSugar: true when exports is a string, an array,
// or an object of condition keys (a key that is "" or does not start with ".").
func isConditionalSugar(exports *jsonpos.Value) (bool, error) {
	switch exports.Kind {
	case jsonpos.String, jsonpos.Array:
		return true, nil
	case jsonpos.Object:
	default:
		return false, nil
	}
	sugar := false
	for i, m := range members(exports) {
		cur := m.key == "" || m.key[0] != '.'
		if i == 0 {
			sugar = cur
		} else if sugar != cur {
			return false, &Error{Code: CodeInvalidConfig, Pos: m.keyPos, HasPos: true,
				Message: `"exports" cannot mix subpath keys (starting with ".") and condition keys; use either an object of subpaths or an object of conditions`}
		}
	}
	return sugar, nil
}

// patternKeyCompare is Node's PATTERN_KEY_COMPARE (lengths in UTF-16 code units).
func patternKeyCompare(a, b string) int {
	ai := strings.IndexByte(a, '*')
	bi := strings.IndexByte(b, '*')
	baseA, baseB := utf16Len(a), utf16Len(b)
	if ai >= 0 {
		baseA = utf16Len(a[:ai]) + 1
	}
	if bi >= 0 {
		baseB = utf16Len(b[:bi]) + 1
	}
	switch {
	case baseA > baseB:
		return -1
	case baseB > baseA:
		return 1
	case ai < 0:
		return 1
	case bi < 0:
		return -1
	case utf16Len(a) > utf16Len(b):
		return -1
	case utf16Len(b) > utf16Len(a):
		return 1
	}
	return 0
}

// outcome of resolvePackageTarget: a resolved URL, null (excluded) or undefined (no condition
// matched).
type outcome int

const (
	outUndefined outcome = iota
	outNull
	outResolved
)

type resolver struct {
	conditions map[string]bool
}

type result struct {
	out   outcome
	url   urlRef
	value *jsonpos.Value // the target string that produced url
	trail []string       // condition keys followed
}

func newResolver(conditions []string) *resolver {
	r := &resolver{conditions: map[string]bool{}}
	for _, c := range conditions {
		r.conditions[c] = true
	}
	return r
}

// Resolve resolves subpath ("." or "./…") through exports with conditions (matched in the
// object's key order; "default" always matches) and returns the file Node would load, as a
// "./"-prefixed path inside the package ("./dist/web/x.js"): the pattern substituted, "\"
// read as "/", "?query" and "#fragment" dropped and percent escapes decoded, as Node's URL
// handling does. It does not check that the file exists (import.meta.resolve does not either).
// Errors are *Error with Node's code and, where one exists, the offending value's position.
func Resolve(exports *jsonpos.Value, subpath string, conditions []string) (target string, err error) {
	res, err := resolveExports(exports, subpath, conditions)
	if err != nil {
		return "", err
	}
	return res.target, nil
}

type resolved struct {
	target string
	trail  []string
	value  *jsonpos.Value
}

func resolveExports(exports *jsonpos.Value, subpath string, conditions []string) (*resolved, error) {
	if exports == nil || exports.Kind == jsonpos.Null {
		return nil, &Error{Code: CodeNotExported, Message: `the package has no "exports" field`}
	}
	if subpath != "." && !strings.HasPrefix(subpath, "./") {
		return nil, &Error{Code: CodeInvalidSpecifier, Message: fmt.Sprintf(`subpath %q must be "." or start with "./"`, subpath)}
	}
	r := newResolver(conditions)
	res, err := r.packageExportsResolve(exports, subpath)
	if err != nil {
		return nil, err
	}
	return finalize(res, subpath)
}

func notExported(subpath string, v *jsonpos.Value) *Error {
	if subpath == "." {
		return errAt(CodeNotExported, v, `No "exports" main defined`)
	}
	return errAt(CodeNotExported, v, `Package subpath '%s' is not defined by "exports"`, subpath)
}

func (r *resolver) packageExportsResolve(exports *jsonpos.Value, subpath string) (result, error) {
	sugar, err := isConditionalSugar(exports)
	if err != nil {
		return result{}, err
	}
	var ms []member
	if sugar {
		ms = []member{{key: ".", keyPos: exports.Pos, val: exports}}
	} else {
		ms = members(exports)
	}
	if m, ok := get(ms, subpath); ok && !strings.Contains(subpath, "*") && !strings.HasSuffix(subpath, "/") {
		res, err := r.target(m.val, "", subpath, false, false)
		if err != nil {
			return result{}, err
		}
		if res.out != outResolved {
			return result{}, notExported(subpath, m.val)
		}
		return res, nil
	}
	bestMatch, bestSubpath := "", ""
	var bestVal *jsonpos.Value
	for _, m := range ms {
		key := m.key
		star := strings.IndexByte(key, '*')
		if star < 0 || !strings.HasPrefix(subpath, key[:star]) {
			continue
		}
		trailer := key[star+1:]
		if utf16Len(subpath) >= utf16Len(key) && strings.HasSuffix(subpath, trailer) &&
			patternKeyCompare(bestMatch, key) == 1 && strings.LastIndexByte(key, '*') == star {
			bestMatch, bestVal = key, m.val
			bestSubpath = subpath[star : len(subpath)-len(trailer)]
		}
	}
	if bestMatch != "" {
		res, err := r.target(bestVal, bestSubpath, bestMatch, true, strings.HasSuffix(subpath, "/"))
		if err != nil {
			return result{}, err
		}
		if res.out != outResolved {
			return result{}, notExported(subpath, bestVal)
		}
		return res, nil
	}
	return result{}, notExported(subpath, exports)
}

// target is resolvePackageTarget.
func (r *resolver) target(t *jsonpos.Value, subpath, match string, pattern, isPathMap bool) (result, error) {
	switch t.Kind {
	case jsonpos.String:
		return r.targetString(t, subpath, match, pattern)
	case jsonpos.Array:
		if len(t.Items) == 0 {
			return result{out: outNull}, nil
		}
		var last error
		lastNull := false
		for _, it := range t.Items {
			res, err := r.target(it, subpath, match, pattern, isPathMap)
			if err != nil {
				if e, ok := err.(*Error); ok && e.Code == CodeInvalidTarget {
					last, lastNull = err, false
					continue
				}
				return result{}, err
			}
			switch res.out {
			case outUndefined:
				continue
			case outNull:
				last, lastNull = nil, true
				continue
			}
			return res, nil
		}
		if last != nil {
			return result{}, last
		}
		if lastNull {
			return result{out: outNull}, nil
		}
		return result{out: outUndefined}, nil
	case jsonpos.Object:
		ms := members(t)
		for _, m := range ms {
			if isArrayIndex(m.key) {
				return result{}, &Error{Code: CodeInvalidConfig, Pos: m.keyPos, HasPos: true,
					Message: fmt.Sprintf(`"exports" cannot contain numeric property keys (%q)`, m.key)}
			}
		}
		for _, m := range ms {
			if m.key != "default" && !r.conditions[m.key] {
				continue
			}
			res, err := r.target(m.val, subpath, match, pattern, isPathMap)
			if err != nil {
				return result{}, err
			}
			if res.out == outUndefined {
				continue
			}
			res.trail = append([]string{m.key}, res.trail...)
			return res, nil
		}
		return result{out: outUndefined}, nil
	case jsonpos.Null:
		return result{out: outNull}, nil
	}
	return result{}, errAt(CodeInvalidTarget, t, `invalid target %s for %q: a target must be a string, an array, an object of conditions or null`, rawJSON(t), match)
}

func rawJSON(v *jsonpos.Value) string {
	switch v.Kind {
	case jsonpos.Number:
		return v.Raw
	case jsonpos.Bool:
		return strconv.FormatBool(v.Boolean)
	case jsonpos.String:
		return strconv.Quote(v.Str)
	}
	return v.Kind.String()
}

// invalidSegment reports whether s has a segment ("/" or "\" separated) that is ".", ".." or
// "node_modules", in any case and with any of its characters percent-encoded: Node's
// deprecatedInvalidSegmentRegEx. Empty segments only draw a deprecation warning from Node.
func invalidSegment(s string) bool {
	for _, seg := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		d := decodeSegment(seg)
		if d == "." || d == ".." || d == "node_modules" {
			return true
		}
	}
	return false
}

// decodeSegment lower-cases ASCII letters and decodes %XX escapes (the alternatives Node's
// regular expression accepts for each character).
func decodeSegment(seg string) string {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c == '%' && i+2 < len(seg) {
			h, ok1 := unhex(seg[i+1])
			l, ok2 := unhex(seg[i+2])
			if ok1 && ok2 {
				c = h<<4 | l
				i += 2
			}
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// targetString is resolvePackageTargetString for "exports".
func (r *resolver) targetString(t *jsonpos.Value, subpath, match string, pattern bool) (result, error) {
	target := t.Str
	if subpath != "" && !pattern && !strings.HasSuffix(target, "/") {
		return result{}, errAt(CodeInvalidTarget, t, `invalid target %q for %q: a folder mapping must end with "/"`, target, match)
	}
	if !strings.HasPrefix(target, "./") {
		return result{}, errAt(CodeInvalidTarget, t, `invalid target %q for %q: targets must start with "./"`, target, match)
	}
	if invalidSegment(target[2:]) {
		return result{}, errAt(CodeInvalidTarget, t, `invalid target %q for %q: a target must not contain ".", ".." or "node_modules" segments`, target, match)
	}
	u := resolveTarget(target)
	if !u.inPackage() {
		return result{}, errAt(CodeInvalidTarget, t, `invalid target %q for %q: it resolves outside the package`, target, match)
	}
	if subpath == "" {
		return result{out: outResolved, url: u, value: t}, nil
	}
	if invalidSegment(subpath) {
		request := match + subpath
		if pattern {
			request = strings.Replace(match, "*", subpath, 1)
		}
		return result{}, errAt(CodeInvalidSpecifier, t, `subpath %q is not valid: the part %q matched by %q has a ".", ".." or "node_modules" segment`, request, subpath, match)
	}
	if pattern {
		return result{out: outResolved, url: reparse(strings.ReplaceAll(u.href(), "*", subpath)), value: t}, nil
	}
	// new URL(subpath, resolved): a folder mapping, which exports keys cannot reach any more.
	dir := append([]string{}, u.segs...)
	if len(dir) > 0 {
		dir = dir[:len(dir)-1]
	}
	return result{out: outResolved, url: parsePath(dir, preprocessURL(subpath)), value: t}, nil
}

// finalize turns the URL into a package path as fileURLToPath would, with the encoded-separator
// check Node applies before it.
func finalize(res result, subpath string) (*resolved, error) {
	if !res.url.inPackage() {
		// A subpath can move a pattern target out of the package only through URL parsing of
		// the substituted text; Node then loads whatever file that is.
		return nil, errAt(CodeInvalidSpecifier, res.value, `subpath %q resolves outside the package`, subpath)
	}
	p := res.url.relPath()
	if hasEncodedSeparator(p) {
		return nil, errAt(CodeInvalidSpecifier, res.value, `target %q resolves to a path with an encoded "/" or "\" (%s)`, res.value.Str, p)
	}
	dec, ok := decodeURIComponent(p)
	if !ok {
		return nil, errAt(CodeURIError, res.value, `target %q resolves to a path with a malformed percent escape (%s)`, res.value.Str, p)
	}
	return &resolved{target: "./" + dec, trail: res.trail, value: res.value}, nil
}

// Entry finds the file `import "<name>"` loads from the package whose package.json is pkg:
// exports["."] when there is an "exports" field (Node then never falls back to "main"), else
// Node's legacy lookup: main, main + .js/.json/.node, main/index.js/.json/.node, then
// index.js/.json/.node. exists reports whether a regular file exists at a package path
// ("dist/index.js"). conditions default to ImportConditions; with "require" among them the
// legacy lookup follows require's path rules (no URL decoding). It returns the package path
// and how it was found (`exports "." → import`, `main`, `main + ".js"`, `index.js`).
func Entry(pkg *jsonpos.Value, exists func(path string) bool, conditions []string) (path, how string, err error) {
	if conditions == nil {
		conditions = ImportConditions
	}
	if exp := pkg.Get("exports"); exp != nil && exp.Kind != jsonpos.Null {
		res, err := resolveExports(exp, ".", conditions)
		if err != nil {
			return "", "", err
		}
		how = `exports "."`
		for _, c := range res.trail {
			how += " → " + c
		}
		p := cleanPath(res.target)
		if strings.HasSuffix(res.target, "/") || p == "" || !exists(p) {
			return "", how, errAt(CodeModuleNotFound, res.value, `%s resolves to %q, which does not exist`, how, res.target)
		}
		return p, how, nil
	}
	require := false
	for _, c := range conditions {
		if c == "require" {
			require = true
		}
	}
	main := pkg.Get("main")
	if main != nil && main.Kind == jsonpos.String && !(require && main.Str == "") {
		type cand struct{ suffix, how string }
		cands := []cand{
			{"", "main"}, {".js", `main + ".js"`}, {".json", `main + ".json"`}, {".node", `main + ".node"`},
			{"/index.js", `main + "/index.js"`}, {"/index.json", `main + "/index.json"`}, {"/index.node", `main + "/index.node"`},
		}
		for _, c := range cands {
			p, ok := mainPath(main.Str, c.suffix, require)
			if ok && p != "" && exists(p) {
				return p, c.how, nil
			}
		}
	}
	for _, name := range []string{"index.js", "index.json", "index.node"} {
		if exists(name) {
			return name, name, nil
		}
	}
	if main != nil && main.Kind == jsonpos.String {
		return "", "", errAt(CodeModuleNotFound, main, `no file for "main" %q (tried it with .js, .json, .node and /index.js) and no index.js`, main.Str)
	}
	return "", "", &Error{Code: CodeModuleNotFound, Message: `the package has no "exports", no "main" and no index.js`}
}

// mainPath is where a legacy main candidate points inside the package: for import, new
// URL("./" + main + suffix, packageJSONUrl) read back as a path; for require,
// path.resolve(dir, main) + suffix. ok is false when the path cannot be a file in the package.
func mainPath(main, suffix string, require bool) (string, bool) {
	if require {
		var p string
		if strings.HasPrefix(main, "/") {
			return "", false
		}
		p = path.Join(main) + suffix
		if strings.HasPrefix(suffix, "/") {
			p = path.Join(main, suffix)
		}
		p = cleanPath(p)
		return p, !strings.HasPrefix(p, "../") && p != ".."
	}
	u := resolveTarget("./" + main + suffix)
	if !u.inPackage() {
		return "", false
	}
	dec, ok := decodeURIComponent(u.relPath())
	if !ok || hasEncodedSeparator(u.relPath()) {
		return "", false
	}
	return cleanPath(dec), true
}

// cleanPath turns "./dist//x.js" into "dist/x.js" ("" for the package folder).
func cleanPath(p string) string {
	trailing := strings.HasSuffix(p, "/")
	p = path.Clean("/" + p)
	p = strings.TrimPrefix(p, "/")
	if trailing && p != "" {
		p += "/"
	}
	return p
}
