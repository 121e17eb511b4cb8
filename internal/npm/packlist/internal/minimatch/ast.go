package minimatch

import (
	"strings"
	"unicode/utf16"

	"github.com/plaios/plaios/internal/jsregexp"
)

// This file ports minimatch 10.2's ast.js and brace-expressions.js: one path segment of a glob
// becomes the source of a JavaScript regular expression, with extglobs (`+(a|b)`, `!(x)`…),
// POSIX classes and minimatch's dot rules, character for character as minimatch writes it.

type tri int8 // JavaScript's undefined / false / true

const (
	triUndef tri = iota
	triFalse
	triTrue
)

func (t tri) truthy() bool { return t == triTrue }

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

func isExtglobType(c rune) bool {
	switch c {
	case '!', '?', '+', '*', '@':
		return true
	}
	return false
}

var adoptionMap = map[rune]string{'!': "@", '?': "?@", '@': "@", '*': "*+?@", '+': "+@"}
var adoptionWithSpaceMap = map[rune]string{'!': "?", '@': "?", '+': "?*"}
var adoptionAnyMap = map[rune]string{'!': "?@", '?': "?@", '@': "?@", '*': "*+?@", '+': "+@?*"}
var usurpMap = map[rune]map[rune]rune{
	'!': {'!': '@'},
	'?': {'*': '*', '+': '*'},
	'@': {'!': '!', '?': '?', '@': '@', '*': '*', '+': '+'},
	'+': {'?': '*', '*': '*'},
}

const (
	startNoTraversal = `(?!(?:^|/)\.\.?(?:$|/))`
	startNoDot       = `(?!\.)`
	qmark            = `[^/]`
	star             = qmark + `*?`
	starNoEmpty      = qmark + `+?`
)

type astNode struct {
	typ         rune // 0: a plain sequence
	root        *astNode
	hasMagic    tri
	uflag       bool
	parts       []any // string or *astNode
	parent      *astNode
	parentIndex int
	negs        *[]*astNode
	filledNegs  bool
	opts        *Options
	str         *string // cached toString
	emptyExt    bool
}

func newAST(typ rune, parent *astNode, opts *Options) *astNode {
	a := &astNode{typ: typ, parent: parent}
	if typ != 0 {
		a.hasMagic = triTrue
	}
	if parent != nil {
		a.root = parent.root
	} else {
		a.root = a
	}
	if a.root == a {
		a.opts = opts
		a.negs = new([]*astNode)
	} else {
		a.opts = a.root.opts
		a.negs = a.root.negs
	}
	if typ == '!' && !a.root.filledNegs {
		*a.negs = append(*a.negs, a)
	}
	if parent != nil {
		a.parentIndex = len(parent.parts)
	}
	return a
}

func partString(p any) string {
	if s, ok := p.(string); ok {
		return s
	}
	return p.(*astNode).String()
}

func (a *astNode) String() string {
	if a.str != nil {
		return *a.str
	}
	var b strings.Builder
	if a.typ == 0 {
		for _, p := range a.parts {
			b.WriteString(partString(p))
		}
	} else {
		b.WriteRune(a.typ)
		b.WriteByte('(')
		for i, p := range a.parts {
			if i > 0 {
				b.WriteByte('|')
			}
			b.WriteString(partString(p))
		}
		b.WriteByte(')')
	}
	s := b.String()
	a.str = &s
	return s
}

func (a *astNode) fillNegs() {
	if a.filledNegs {
		return
	}
	_ = a.String()
	a.filledNegs = true
	negs := a.negs
	for len(*negs) > 0 {
		n := (*negs)[len(*negs)-1]
		*negs = (*negs)[:len(*negs)-1]
		if n.typ != '!' {
			continue
		}
		p := n
		pp := p.parent
		for pp != nil {
			for i := p.parentIndex + 1; pp.typ == 0 && i < len(pp.parts); i++ {
				for _, part := range n.parts {
					if sub, ok := part.(*astNode); ok {
						sub.copyIn(pp.parts[i])
					}
				}
			}
			p = pp
			pp = p.parent
		}
	}
}

func (a *astNode) push(parts ...any) {
	for _, p := range parts {
		if s, ok := p.(string); ok && s == "" {
			continue
		}
		a.parts = append(a.parts, p)
	}
}

func (a *astNode) isStart() bool {
	if a.root == a {
		return true
	}
	if a.parent == nil || !a.parent.isStart() {
		return false
	}
	if a.parentIndex == 0 {
		return true
	}
	p := a.parent
	for i := 0; i < a.parentIndex; i++ {
		if i >= len(p.parts) {
			return false
		}
		pp, ok := p.parts[i].(*astNode)
		if !ok || pp.typ != '!' {
			return false
		}
	}
	return true
}

func (a *astNode) isEnd() bool {
	if a.root == a {
		return true
	}
	if a.parent != nil && a.parent.typ == '!' {
		return true
	}
	if a.parent == nil || !a.parent.isEnd() {
		return false
	}
	if a.typ == 0 {
		return a.parent.isEnd()
	}
	pl := len(a.parent.parts)
	return a.parentIndex == pl-1
}

func (a *astNode) copyIn(part any) {
	if s, ok := part.(string); ok {
		a.push(s)
		return
	}
	a.push(part.(*astNode).clone(a))
}

func (a *astNode) clone(parent *astNode) *astNode {
	c := newAST(a.typ, parent, nil)
	for _, p := range a.parts {
		c.copyIn(p)
	}
	return c
}

func (a *astNode) canAdoptType(c rune, m map[rune]string) bool {
	if a.typ == 0 {
		return false
	}
	return strings.ContainsRune(m[a.typ], c)
}

func (a *astNode) canAdopt(child any, m map[rune]string) bool {
	ch, ok := child.(*astNode)
	if !ok || ch.typ != 0 || len(ch.parts) != 1 || a.typ == 0 {
		return false
	}
	gc, ok := ch.parts[0].(*astNode)
	if !ok || gc.typ == 0 {
		return false
	}
	return a.canAdoptType(gc.typ, m)
}

func (a *astNode) adoptWithSpace(child *astNode, index int) {
	gc := child.parts[0].(*astNode)
	blank := newAST(0, gc, a.opts)
	blank.parts = append(blank.parts, "")
	gc.push(blank)
	a.adopt(child, index)
}

func (a *astNode) adopt(child *astNode, index int) {
	gc := child.parts[0].(*astNode)
	np := make([]any, 0, len(a.parts)-1+len(gc.parts))
	np = append(np, a.parts[:index]...)
	np = append(np, gc.parts...)
	np = append(np, a.parts[index+1:]...)
	a.parts = np
	for _, p := range gc.parts {
		if n, ok := p.(*astNode); ok {
			n.parent = a
		}
	}
	a.str = nil
}

func (a *astNode) canUsurp(child any) bool {
	ch, ok := child.(*astNode)
	if !ok || ch.typ != 0 || len(ch.parts) != 1 || a.typ == 0 || len(a.parts) != 1 {
		return false
	}
	gc, ok := ch.parts[0].(*astNode)
	if !ok || gc.typ == 0 {
		return false
	}
	_, has := usurpMap[a.typ][gc.typ]
	return has
}

func (a *astNode) usurp(child *astNode) {
	gc := child.parts[0].(*astNode)
	nt, ok := usurpMap[a.typ][gc.typ]
	if !ok {
		return
	}
	a.parts = gc.parts
	for _, p := range a.parts {
		if n, ok := p.(*astNode); ok {
			n.parent = a
		}
	}
	a.typ = nt
	a.str = nil
	a.emptyExt = false
}

const maxExtglobRecursion = 2

func parseAST(str []rune, ast *astNode, pos int, extDepth int) int {
	escaping := false
	inBrace := false
	braceStart := -1
	braceNeg := false
	if ast.typ == 0 {
		i := pos
		var acc strings.Builder
		for i < len(str) {
			c := str[i]
			i++
			if escaping || c == '\\' {
				escaping = !escaping
				acc.WriteRune(c)
				continue
			}
			if inBrace {
				if i == braceStart+1 {
					if c == '^' || c == '!' {
						braceNeg = true
					}
				} else if c == ']' && !(i == braceStart+2 && braceNeg) {
					inBrace = false
				}
				acc.WriteRune(c)
				continue
			} else if c == '[' {
				inBrace = true
				braceStart = i
				braceNeg = false
				acc.WriteRune(c)
				continue
			}
			if isExtglobType(c) && i < len(str) && str[i] == '(' && extDepth <= maxExtglobRecursion {
				ast.push(acc.String())
				acc.Reset()
				ext := newAST(c, ast, nil)
				i = parseAST(str, ext, i, extDepth+1)
				ast.push(ext)
				continue
			}
			acc.WriteRune(c)
		}
		ast.push(acc.String())
		return i
	}

	i := pos + 1
	part := newAST(0, ast, nil)
	var parts []any
	var acc strings.Builder
	for i < len(str) {
		c := str[i]
		i++
		if escaping || c == '\\' {
			escaping = !escaping
			acc.WriteRune(c)
			continue
		}
		if inBrace {
			if i == braceStart+1 {
				if c == '^' || c == '!' {
					braceNeg = true
				}
			} else if c == ']' && !(i == braceStart+2 && braceNeg) {
				inBrace = false
			}
			acc.WriteRune(c)
			continue
		} else if c == '[' {
			inBrace = true
			braceStart = i
			braceNeg = false
			acc.WriteRune(c)
			continue
		}
		if isExtglobType(c) && i < len(str) && str[i] == '(' &&
			(extDepth <= maxExtglobRecursion || ast.canAdoptType(c, adoptionAnyMap)) {
			depthAdd := 1
			if ast.canAdoptType(c, adoptionAnyMap) {
				depthAdd = 0
			}
			part.push(acc.String())
			acc.Reset()
			ext := newAST(c, part, nil)
			part.push(ext)
			i = parseAST(str, ext, i, extDepth+depthAdd)
			continue
		}
		if c == '|' {
			part.push(acc.String())
			acc.Reset()
			parts = append(parts, part)
			part = newAST(0, ast, nil)
			continue
		}
		if c == ')' {
			if acc.Len() == 0 && len(ast.parts) == 0 {
				ast.emptyExt = true
			}
			part.push(acc.String())
			acc.Reset()
			ast.push(append(parts, part)...)
			return i
		}
		acc.WriteRune(c)
	}
	// an unfinished extglob is literal text
	ast.typ = 0
	ast.hasMagic = triUndef
	ast.parts = []any{string(str[pos-1:])}
	return i
}

func fromGlob(pattern string, opts *Options) *astNode {
	a := newAST(0, nil, opts)
	parseAST([]rune(pattern), a, 0, 0)
	return a
}

func (a *astNode) flatten() {
	if !isExtglobType(a.typ) {
		for _, p := range a.parts {
			if n, ok := p.(*astNode); ok {
				n.flatten()
			}
		}
	} else {
		iterations := 0
		for {
			done := true
			for i := 0; i < len(a.parts); i++ {
				c, ok := a.parts[i].(*astNode)
				if !ok {
					continue
				}
				c.flatten()
				if a.canAdopt(c, adoptionMap) {
					done = false
					a.adopt(c, i)
				} else if a.canAdopt(c, adoptionWithSpaceMap) {
					done = false
					a.adoptWithSpace(c, i)
				} else if a.canUsurp(c) {
					done = false
					a.usurp(c)
				}
			}
			iterations++
			if done || iterations >= 10 {
				break
			}
		}
	}
	a.str = nil
}

// toRegExpSource returns the regular expression source, the unescaped body (the literal to
// compare when there is no magic), whether there is magic, and whether the u flag is needed.
// allowDot is JavaScript's optional boolean argument (nil: undefined).
func (a *astNode) toRegExpSource(allowDot *bool) (string, string, bool, bool) {
	dot := a.opts.Dot
	if allowDot != nil {
		dot = *allowDot
	}
	if a.root == a {
		a.flatten()
		a.fillNegs()
	}
	if !isExtglobType(a.typ) {
		noEmpty := a.isStart() && a.isEnd()
		for _, p := range a.parts {
			if _, ok := p.(string); !ok {
				noEmpty = false
			}
		}
		var src strings.Builder
		for _, p := range a.parts {
			var re string
			var hm, uf bool
			if s, ok := p.(string); ok {
				re, _, hm, uf = parseGlob(s, a.hasMagic, noEmpty)
			} else {
				re, _, hm, uf = p.(*astNode).toRegExpSource(allowDot)
			}
			if !a.hasMagic.truthy() {
				a.hasMagic = triOf(hm)
			}
			a.uflag = a.uflag || uf
			src.WriteString(re)
		}
		s := src.String()
		start := ""
		if a.isStart() && len(a.parts) > 0 {
			if first, ok := a.parts[0].(string); ok {
				dotTravAllowed := len(a.parts) == 1 && (first == "." || first == "..")
				if !dotTravAllowed {
					aps := func(i int) bool { return i < len(s) && (s[i] == '[' || s[i] == '.') }
					needNoTrav := (dot && aps(0)) ||
						(strings.HasPrefix(s, `\.`) && aps(2)) ||
						(strings.HasPrefix(s, `\.\.`) && aps(4))
					needNoDot := !dot && (allowDot == nil || !*allowDot) && aps(0)
					if needNoTrav {
						start = startNoTraversal
					} else if needNoDot {
						start = startNoDot
					}
				}
			}
		}
		end := ""
		if a.isEnd() && a.root.filledNegs && a.parent != nil && a.parent.typ == '!' {
			end = `(?:$|\/)`
		}
		a.hasMagic = triOf(a.hasMagic.truthy())
		return start + s + end, unescape(s), a.hasMagic.truthy(), a.uflag
	}

	repeated := a.typ == '*' || a.typ == '+'
	start := "(?:"
	if a.typ == '!' {
		start = "(?:(?!(?:"
	}
	body := a.partsToRegExp(dot)
	if a.isStart() && a.isEnd() && body == "" && a.typ != '!' {
		s := a.String()
		a.parts = []any{s}
		a.typ = 0
		a.hasMagic = triUndef
		return s, unescape(a.String()), false, false
	}
	bodyDotAllowed := ""
	if repeated && (allowDot == nil || !*allowDot) && !dot {
		bodyDotAllowed = a.partsToRegExp(true)
	}
	if bodyDotAllowed == body {
		bodyDotAllowed = ""
	}
	if bodyDotAllowed != "" {
		body = "(?:" + body + ")(?:" + bodyDotAllowed + ")*?"
	}
	var final string
	if a.typ == '!' && a.emptyExt {
		if a.isStart() && !dot {
			final = startNoDot
		}
		final += starNoEmpty
	} else {
		var closer string
		switch {
		case a.typ == '!':
			closer = "))"
			if a.isStart() && !dot && (allowDot == nil || !*allowDot) {
				closer += startNoDot
			}
			closer += star + ")"
		case a.typ == '@':
			closer = ")"
		case a.typ == '?':
			closer = ")?"
		case a.typ == '+' && bodyDotAllowed != "":
			closer = ")"
		case a.typ == '*' && bodyDotAllowed != "":
			closer = ")?"
		default:
			closer = ")" + string(a.typ)
		}
		final = start + body + closer
	}
	a.hasMagic = triOf(a.hasMagic.truthy())
	return final, unescape(body), a.hasMagic.truthy(), a.uflag
}

func (a *astNode) partsToRegExp(dot bool) string {
	var out []string
	startEnd := a.isStart() && a.isEnd()
	for _, p := range a.parts {
		n, ok := p.(*astNode)
		if !ok {
			continue
		}
		d := dot
		re, _, _, uf := n.toRegExpSource(&d)
		a.uflag = a.uflag || uf
		if !startEnd || re != "" {
			out = append(out, re)
		}
	}
	return strings.Join(out, "|")
}

func isReSpecial(c rune) bool { return strings.ContainsRune(`().*{}+?[]^$\!`, c) }

// regExpEscape is s.replace(/[-[\]{}()*+?.,\\^$|#\s]/g, '\\$&').
func regExpEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`-[]{}()*+?.,\^$|#`, c) || jsregexp.IsSpace(c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func isAllStars(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c != '*' {
			return false
		}
	}
	return true
}

func parseGlob(glob string, hasMagic tri, noEmpty bool) (string, string, bool, bool) {
	rs := []rune(glob)
	escaping := false
	var re strings.Builder
	uflag := false
	magic := hasMagic.truthy()
	inStar := false
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if escaping {
			escaping = false
			if isReSpecial(c) {
				re.WriteByte('\\')
			}
			re.WriteRune(c)
			continue
		}
		if c == '*' {
			if inStar {
				continue
			}
			inStar = true
			if noEmpty && isAllStars(glob) {
				re.WriteString(starNoEmpty)
			} else {
				re.WriteString(star)
			}
			magic = true
			continue
		}
		inStar = false
		if c == '\\' {
			if i == len(rs)-1 {
				re.WriteString(`\\`)
			} else {
				escaping = true
			}
			continue
		}
		if c == '[' {
			src, needU, consumed, m := parseClass(rs, i)
			if consumed > 0 {
				re.WriteString(src)
				uflag = uflag || needU
				i += consumed - 1
				magic = magic || m
				continue
			}
		}
		if c == '?' {
			re.WriteString(qmark)
			magic = true
			continue
		}
		re.WriteString(regExpEscape(string(c)))
	}
	return re.String(), unescape(glob), magic, uflag
}

type posixClass struct {
	name   string
	unip   string
	u, neg bool
}

var posixClasses = []posixClass{
	{"[:alnum:]", `\p{L}\p{Nl}\p{Nd}`, true, false},
	{"[:alpha:]", `\p{L}\p{Nl}`, true, false},
	{"[:ascii:]", `\x00-\x7f`, false, false},
	{"[:blank:]", `\p{Zs}\t`, true, false},
	{"[:cntrl:]", `\p{Cc}`, true, false},
	{"[:digit:]", `\p{Nd}`, true, false},
	{"[:graph:]", `\p{Z}\p{C}`, true, true},
	{"[:lower:]", `\p{Ll}`, true, false},
	{"[:print:]", `\p{C}`, true, false},
	{"[:punct:]", `\p{P}`, true, false},
	{"[:space:]", `\p{Z}\t\r\n\v\f`, true, false},
	{"[:upper:]", `\p{Lu}`, true, false},
	{"[:word:]", `\p{L}\p{Nl}\p{Nd}\p{Pc}`, true, false},
	{"[:xdigit:]", `A-Fa-f0-9`, false, false},
}

func braceEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '[' || c == ']' || c == '\\' || c == '-' {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func hasPrefixRunes(s []rune, i int, prefix string) bool {
	for _, c := range prefix {
		if i >= len(s) || s[i] != c {
			return false
		}
		i++
	}
	return true
}

// parseClass ports brace-expressions.js parseClass: the regexp source for the [...] at pos, the u
// flag need, the number of characters consumed (0: not a class) and whether it is magic.
func parseClass(glob []rune, pos int) (string, bool, int, bool) {
	var ranges, negs []string
	i := pos + 1
	sawStart := false
	uflag := false
	escaping := false
	negate := false
	endPos := pos
	var rangeStart rune
	hasRangeStart := false
outer:
	for i < len(glob) {
		c := glob[i]
		if (c == '!' || c == '^') && i == pos+1 {
			negate = true
			i++
			continue
		}
		if c == ']' && sawStart && !escaping {
			endPos = i + 1
			break
		}
		sawStart = true
		if c == '\\' {
			if !escaping {
				escaping = true
				i++
				continue
			}
		}
		if c == '[' && !escaping {
			for _, pc := range posixClasses {
				if hasPrefixRunes(glob, i, pc.name) {
					if hasRangeStart {
						return "$.", false, len(glob) - pos, true
					}
					i += len(pc.name)
					if pc.neg {
						negs = append(negs, pc.unip)
					} else {
						ranges = append(ranges, pc.unip)
					}
					uflag = uflag || pc.u
					continue outer
				}
			}
		}
		escaping = false
		if hasRangeStart {
			if c > rangeStart {
				ranges = append(ranges, braceEscape(string(rangeStart))+"-"+braceEscape(string(c)))
			} else if c == rangeStart {
				ranges = append(ranges, braceEscape(string(c)))
			}
			hasRangeStart = false
			i++
			continue
		}
		if hasPrefixRunes(glob, i+1, "-]") {
			ranges = append(ranges, braceEscape(string(c)+"-"))
			i += 2
			continue
		}
		if hasPrefixRunes(glob, i+1, "-") {
			rangeStart = c
			hasRangeStart = true
			i += 2
			continue
		}
		ranges = append(ranges, braceEscape(string(c)))
		i++
	}
	if endPos < i {
		return "", false, 0, false
	}
	if len(ranges) == 0 && len(negs) == 0 {
		return "$.", false, len(glob) - pos, true
	}
	if len(negs) == 0 && len(ranges) == 1 && !negate && isOneEscapedChar(ranges[0]) {
		r := ranges[0]
		if utf16Len(r) == 2 {
			r = lastCodeUnit(r)
		}
		return regExpEscape(r), false, endPos - pos, false
	}
	n := ""
	if negate {
		n = "^"
	}
	sranges := "[" + n + strings.Join(ranges, "") + "]"
	nn := "^"
	if negate {
		nn = ""
	}
	snegs := "[" + nn + strings.Join(negs, "") + "]"
	var comb string
	switch {
	case len(ranges) > 0 && len(negs) > 0:
		comb = "(" + sranges + "|" + snegs + ")"
	case len(ranges) > 0:
		comb = sranges
	default:
		comb = snegs
	}
	return comb, uflag, endPos - pos, true
}

// isOneEscapedChar is /^\\?.$/ on a JavaScript string: an optional backslash and one UTF-16 code
// unit that is not a line terminator.
func isOneEscapedChar(s string) bool {
	u := toUTF16(s)
	if len(u) > 0 && u[0] == '\\' {
		u = u[1:]
	}
	return len(u) == 1 && !jsregexp.IsLineTerminator(rune(u[0]))
}

func lastCodeUnit(s string) string {
	u := toUTF16(s)
	return string(utf16.Decode(u[len(u)-1:]))
}

// unescape ports minimatch's unescape with its defaults: `[x]` becomes x and `\x` becomes x.
func unescape(s string) string {
	rs := []rune(s)
	// pass 1: s.replace(/((?!\\).|^)\[([^/\\])\]/g, '$1$2')
	var out []rune
	i := 0
	for i < len(rs) {
		if i+3 < len(rs) && rs[i] != '\\' && !jsregexp.IsLineTerminator(rs[i]) &&
			rs[i+1] == '[' && rs[i+2] != '/' && rs[i+2] != '\\' && rs[i+3] == ']' {
			out = append(out, rs[i], rs[i+2])
			i += 4
			continue
		}
		if i == 0 && i+2 < len(rs) && rs[0] == '[' && rs[1] != '/' && rs[1] != '\\' && rs[2] == ']' {
			out = append(out, rs[1])
			i += 3
			continue
		}
		out = append(out, rs[i])
		i++
	}
	// pass 2: .replace(/\\([^/])/g, '$1')
	res := make([]rune, 0, len(out))
	for j := 0; j < len(out); j++ {
		if out[j] == '\\' && j+1 < len(out) && out[j+1] != '/' {
			res = append(res, out[j+1])
			j++
			continue
		}
		res = append(res, out[j])
	}
	return string(res)
}
