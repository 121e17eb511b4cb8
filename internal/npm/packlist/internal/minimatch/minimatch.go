// Package minimatch is a port of minimatch 10.2 (with brace-expansion 5), the glob matcher npm 11
// uses for `files`, `.npmignore` and `.gitignore`. npm's packlist is defined by this library's
// behaviour, corner cases included (extglobs, POSIX classes, backslash escapes, regexp quirks),
// and no Go glob library reproduces it, so the port follows minimatch's own structure: a glob
// segment is turned into the same JavaScript regular expression source minimatch builds, and
// the JavaScript regexp engine (internal/jsregexp, shared with the schema patterns) runs it.
// Windows path handling is left out: npm runs these matches with POSIX paths.
package minimatch

import (
	"fmt"
	"strings"

	"github.com/plaios/plaios/internal/jsregexp"
)

// Options are the minimatch options the port supports.
type Options struct {
	Dot       bool // match names starting with "."
	NoCase    bool // case-insensitive
	MatchBase bool // a pattern without "/" matches the basename
}

// maxPatternLength is minimatch's assertValidPattern limit.
const maxPatternLength = 64 * 1024

// maxGlobstarRecursion is minimatch's default bound on ** backtracking.
const maxGlobstarRecursion = 200

type partKind uint8

const (
	partLiteral partKind = iota
	partRegexp
	partGlobstar
)

type part struct {
	kind partKind
	lit  string
	re   *jsregexp.Regexp
	fast func(string) bool
	src  string // the glob segment, for debugging
}

func (p *part) test(f string) bool {
	if p.fast != nil {
		return p.fast(f)
	}
	return p.re.MatchString(f)
}

// Minimatch is one compiled pattern.
type Minimatch struct {
	Pattern   string     // the pattern after removing leading "!"
	Negate    bool       // an odd number of leading "!"
	Comment   bool       // starts with "#": matches nothing
	Empty     bool       // the empty pattern: matches only ""
	GlobParts [][]string // the brace-expanded, slash-split, optimized segments
	set       [][]*part
	globstar  []bool // set[i] holds a **
	opts      Options
}

// New compiles pattern. An error means minimatch would throw (the pattern is too long, or it
// builds a regular expression JavaScript rejects), which makes npm itself fail.
func New(pattern string, opts Options) (*Minimatch, error) {
	if utf16Len(pattern) > maxPatternLength {
		return nil, fmt.Errorf("pattern is too long")
	}
	m := &Minimatch{Pattern: pattern, opts: opts}
	if strings.HasPrefix(pattern, "#") {
		m.Comment = true
		return m, nil
	}
	if pattern == "" {
		m.Empty = true
		return m, nil
	}
	m.parseNegate()
	seen := map[string]bool{}
	var globSet []string
	for _, g := range braceExpand(m.Pattern) {
		if !seen[g] {
			seen[g] = true
			globSet = append(globSet, g)
		}
	}
	raw := make([][]string, len(globSet))
	for i, g := range globSet {
		raw[i] = slashSplit(g)
	}
	m.GlobParts = levelOneOptimize(raw)
	for _, segs := range m.GlobParts {
		ps := make([]*part, len(segs))
		for i, s := range segs {
			p, err := m.parse(s)
			if err != nil {
				return nil, err
			}
			ps[i] = p
		}
		m.set = append(m.set, ps)
		gs := false
		for _, p := range ps {
			gs = gs || p.kind == partGlobstar
		}
		m.globstar = append(m.globstar, gs)
	}
	return m, nil
}

func (m *Minimatch) parseNegate() {
	n := 0
	for n < len(m.Pattern) && m.Pattern[n] == '!' {
		n++
	}
	m.Negate = n%2 == 1
	m.Pattern = m.Pattern[n:]
}

// slashSplit is p.split(/\/+/).
func slashSplit(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		out = append(out, p[start:i])
		for i+1 < len(p) && p[i+1] == '/' {
			i++
		}
		start = i + 1
	}
	return append(out, p[start:])
}

func levelOneOptimize(globParts [][]string) [][]string {
	out := make([][]string, len(globParts))
	for gi, parts := range globParts {
		var set []string
		for _, p := range parts {
			prev := ""
			hasPrev := len(set) > 0
			if hasPrev {
				prev = set[len(set)-1]
			}
			if p == "**" && hasPrev && prev == "**" {
				continue
			}
			if p == ".." && hasPrev && prev != "" && prev != ".." && prev != "." && prev != "**" {
				set = set[:len(set)-1]
				continue
			}
			set = append(set, p)
		}
		if len(set) == 0 {
			set = []string{""}
		}
		out[gi] = set
	}
	return out
}

// The shapes minimatch tests without a regular expression, recognized as its expressions
// recognize them (/^\*+$/, /^\*+([^+@!?\*\[\(]*)$/, /^\?+([^+@!?\*\[\(]*)?$/,
// /^\*+\.\*+$/, /^\.\*+$/) but by hand, so that no regexp is compiled when a process starts.

// run returns how many bytes of s from i on are c.
func run(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// plainExt reports whether s holds none of the characters that end a fast-test extension.
func plainExt(s string) bool { return !strings.ContainsAny(s, "+@!?*[(") }

func isStars(p string) bool { return p != "" && run(p, 0, '*') == len(p) }

func starDotExt(p string) (string, bool) {
	n := run(p, 0, '*')
	if n == 0 || !plainExt(p[n:]) {
		return "", false
	}
	return p[n:], true
}

func qmarks(p string) (string, bool) {
	n := run(p, 0, '?')
	if n == 0 || !plainExt(p[n:]) {
		return "", false
	}
	return p[n:], true
}

func isStarDotStar(p string) bool {
	n := run(p, 0, '*')
	if n == 0 || n >= len(p) || p[n] != '.' {
		return false
	}
	m := run(p, n+1, '*')
	return m > 0 && n+1+m == len(p)
}

func isDotStar(p string) bool {
	return len(p) > 1 && p[0] == '.' && run(p, 1, '*') == len(p)-1
}

func (m *Minimatch) fastTest(pattern string) func(string) bool {
	o := m.opts
	if isStars(pattern) {
		if o.Dot {
			return func(f string) bool { return f != "" && f != "." && f != ".." }
		}
		return func(f string) bool { return f != "" && !strings.HasPrefix(f, ".") }
	}
	if ext, ok := starDotExt(pattern); ok {
		switch {
		case o.NoCase && o.Dot:
			ext = jsLower(ext)
			return func(f string) bool { return strings.HasSuffix(jsLower(f), ext) }
		case o.NoCase:
			ext = jsLower(ext)
			return func(f string) bool { return !strings.HasPrefix(f, ".") && strings.HasSuffix(jsLower(f), ext) }
		case o.Dot:
			return func(f string) bool { return strings.HasSuffix(f, ext) }
		}
		return func(f string) bool { return !strings.HasPrefix(f, ".") && strings.HasSuffix(f, ext) }
	}
	if ext, ok := qmarks(pattern); ok {
		n := utf16Len(pattern)
		noext := func(f string) bool { return utf16Len(f) == n && !strings.HasPrefix(f, ".") }
		if o.Dot {
			noext = func(f string) bool { return utf16Len(f) == n && f != "." && f != ".." }
		}
		if ext == "" {
			return noext
		}
		if o.NoCase {
			ext = jsLower(ext)
			return func(f string) bool { return noext(f) && strings.HasSuffix(jsLower(f), ext) }
		}
		return func(f string) bool { return noext(f) && strings.HasSuffix(f, ext) }
	}
	if isStarDotStar(pattern) {
		if o.Dot {
			return func(f string) bool { return f != "." && f != ".." && strings.Contains(f, ".") }
		}
		return func(f string) bool { return !strings.HasPrefix(f, ".") && strings.Contains(f, ".") }
	}
	if isDotStar(pattern) {
		return func(f string) bool { return f != "." && f != ".." && strings.HasPrefix(f, ".") }
	}
	return nil
}

func (m *Minimatch) parse(pattern string) (*part, error) {
	if utf16Len(pattern) > maxPatternLength {
		return nil, fmt.Errorf("pattern is too long")
	}
	if pattern == "**" {
		return &part{kind: partGlobstar, src: pattern}, nil
	}
	if pattern == "" {
		return &part{kind: partLiteral, src: pattern}, nil
	}
	fast := m.fastTest(pattern)
	opts := m.opts
	ast := fromGlob(pattern, &opts)
	glob := ast.String()
	re, body, hasMagic, uflag := ast.toRegExpSource(nil)
	anyMagic := hasMagic || ast.hasMagic.truthy() ||
		(m.opts.NoCase && strings.ToUpper(glob) != strings.ToLower(glob))
	if !anyMagic {
		return &part{kind: partLiteral, lit: body, src: pattern}, nil
	}
	flags := ""
	if m.opts.NoCase {
		flags += "i"
	}
	if uflag {
		flags += "u"
	}
	compiled, err := jsregexp.Compile("^"+re+"$", flags)
	if err != nil {
		return nil, err
	}
	return &part{kind: partRegexp, re: compiled, fast: fast, src: pattern}, nil
}

// Match reports whether f matches the pattern itself, ignoring negation (minimatch's
// flipNegate option): the caller reads Negate to know what a match means. partial reports a
// match when f runs out before the pattern does.
func (m *Minimatch) Match(f string, partial bool) bool {
	return m.MatchPath(SplitPath(f), partial)
}

// Path is a path split for matching, to match one path against many patterns.
type Path struct {
	full     string
	parts    []string
	basename []string
}

// SplitPath splits f as minimatch does (runs of "/" separate segments).
func SplitPath(f string) *Path {
	ff := slashSplit(f)
	filename := ff[len(ff)-1]
	for i := len(ff) - 2; filename == "" && i >= 0; i-- {
		filename = ff[i]
	}
	return &Path{full: f, parts: ff, basename: []string{filename}}
}

// MatchPath is Match on a split path.
func (m *Minimatch) MatchPath(p *Path, partial bool) bool {
	if m.Comment {
		return false
	}
	if m.Empty {
		return p.full == ""
	}
	if p.full == "/" && partial {
		return true
	}
	for i, pattern := range m.set {
		file := p.parts
		if m.opts.MatchBase && len(pattern) == 1 {
			file = p.basename
		}
		var hit bool
		if m.globstar[i] {
			hit = m.matchGlobstar(file, pattern, partial, 0, 0)
		} else {
			hit = m.matchOneAt(file, pattern, partial, 0, 0)
		}
		if hit {
			return true
		}
	}
	return false
}

// jsSlice is Array.prototype.slice for non-negative bounds: empty when start >= end.
func jsSlice[T any](s []T, start, end int) []T {
	end = min(end, len(s))
	if start >= end {
		return nil
	}
	return s[start:end]
}

func indexGlobstar(pattern []*part, from int) int {
	for i := from; i < len(pattern); i++ {
		if pattern[i].kind == partGlobstar {
			return i
		}
	}
	return -1
}

func lastIndexGlobstar(pattern []*part) int {
	for i := len(pattern) - 1; i >= 0; i-- {
		if pattern[i].kind == partGlobstar {
			return i
		}
	}
	return -1
}

func (m *Minimatch) badDot(f string) bool {
	return f == "." || f == ".." || (!m.opts.Dot && strings.HasPrefix(f, "."))
}

func (m *Minimatch) matchGlobstar(file []string, pattern []*part, partial bool, fileIndex, patternIndex int) bool {
	firstgs := indexGlobstar(pattern, patternIndex)
	lastgs := lastIndexGlobstar(pattern)
	var head, body, tail []*part
	head = jsSlice(pattern, patternIndex, firstgs)
	if partial {
		body = jsSlice(pattern, firstgs+1, len(pattern))
	} else {
		body = jsSlice(pattern, firstgs+1, lastgs)
		tail = jsSlice(pattern, lastgs+1, len(pattern))
	}
	if len(head) > 0 {
		fileHead := jsSlice(file, fileIndex, fileIndex+len(head))
		if !m.matchOneAt(fileHead, head, partial, 0, 0) {
			return false
		}
		fileIndex += len(head)
		patternIndex += len(head)
	}
	fileTailMatch := 0
	if len(tail) > 0 {
		if len(tail)+fileIndex > len(file) {
			return false
		}
		tailStart := len(file) - len(tail)
		if m.matchOneAt(file, tail, partial, tailStart, 0) {
			fileTailMatch = len(tail)
		} else {
			if file[len(file)-1] != "" || fileIndex+len(tail) == len(file) {
				return false
			}
			tailStart--
			if !m.matchOneAt(file, tail, partial, tailStart, 0) {
				return false
			}
			fileTailMatch = len(tail) + 1
		}
	}
	if len(body) == 0 {
		sawSome := fileTailMatch > 0
		for i := fileIndex; i < len(file)-fileTailMatch; i++ {
			sawSome = true
			if m.badDot(file[i]) {
				return false
			}
		}
		return partial || sawSome
	}
	type section struct {
		parts []*part
		after int
	}
	sections := []*section{{}}
	cur := sections[0]
	nonGs := 0
	sums := []int{0}
	for _, b := range body {
		if b.kind == partGlobstar {
			sums = append(sums, nonGs)
			cur = &section{}
			sections = append(sections, cur)
		} else {
			cur.parts = append(cur.parts, b)
			nonGs++
		}
	}
	i := len(sections) - 1
	fileLength := len(file) - fileTailMatch
	for _, s := range sections {
		s.after = fileLength - (sums[i] + len(s.parts))
		i--
	}
	secs := make([][]*part, len(sections))
	afters := make([]int, len(sections))
	for k, s := range sections {
		secs[k] = s.parts
		afters[k] = s.after
	}
	return m.matchBodySections(file, secs, afters, fileIndex, 0, partial, 0, fileTailMatch > 0) == triTrue
}

// matchBodySections returns triFalse for "no match", triUndef for "no match, stop trying" (null
// in minimatch) and triTrue for a match.
func (m *Minimatch) matchBodySections(file []string, secs [][]*part, afters []int, fileIndex, bodyIndex int, partial bool, depth int, sawTail bool) tri {
	if bodyIndex >= len(secs) {
		for i := fileIndex; i < len(file); i++ {
			sawTail = true
			if m.badDot(file[i]) {
				return triFalse
			}
		}
		return triOf(sawTail)
	}
	body, after := secs[bodyIndex], afters[bodyIndex]
	for fileIndex <= after {
		end := min(fileIndex+len(body), len(file))
		if m.matchOneAt(file[:end], body, partial, fileIndex, 0) && depth < maxGlobstarRecursion {
			sub := m.matchBodySections(file, secs, afters, fileIndex+len(body), bodyIndex+1, partial, depth+1, sawTail)
			if sub != triFalse {
				return sub
			}
		}
		if fileIndex >= len(file) || m.badDot(file[fileIndex]) {
			return triFalse
		}
		fileIndex++
	}
	if partial {
		return triTrue
	}
	return triUndef
}

func (m *Minimatch) matchOneAt(file []string, pattern []*part, partial bool, fileIndex, patternIndex int) bool {
	fi, pi := fileIndex, patternIndex
	fl, pl := len(file), len(pattern)
	for ; fi < fl && pi < pl; fi, pi = fi+1, pi+1 {
		p := pattern[pi]
		f := file[fi]
		var hit bool
		switch p.kind {
		case partGlobstar:
			return false
		case partLiteral:
			hit = f == p.lit
		default:
			hit = p.test(f)
		}
		if !hit {
			return false
		}
	}
	switch {
	case fi == fl && pi == pl:
		return true
	case fi == fl:
		return partial
	default: // pi == pl
		return fi == fl-1 && file[fi] == ""
	}
}
