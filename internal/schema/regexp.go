package schema

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
)

// jsRegexp is a JavaScript regular expression: Ajv compiles `pattern` and patternProperties
// keys with `new RegExp(source, "u")`, ajv-formats checks the "regex" format with `new
// RegExp(source)`, and Go's regexp package (RE2) has another syntax (no lookaround, no
// backreferences, other escapes) and other meanings (\s, ., $). So the syntax is parsed as
// ECMAScript 2023 defines it (Annex B when the u flag is absent), with V8's error messages,
// and matching is a backtracking matcher as V8's is, bounded by a step budget.
type jsRegexp struct {
	source     string
	unicode    bool // u flag
	ignoreCase bool // i flag
	multiline  bool // m flag
	root       *reAlt
	ngroups    int
}

// reBudget bounds the work of one match; a pattern that needs more is taken as not matching.
const reBudget = 2_000_000

type reSyntaxError struct {
	source string
	flags  string
	msg    string
}

func (e *reSyntaxError) Error() string {
	return fmt.Sprintf("Invalid regular expression: /%s/%s: %s", e.source, e.flags, e.msg)
}

type reNode any

type reAlt struct{ alts []*reSeq }
type reSeq struct{ terms []reNode }
type reChar struct{ c rune }
type reSet struct {
	match func(rune) bool
	neg   bool // a [^…] class: the complement, taken after case folding
}
type reAssert struct{ kind byte } // '^', '$', 'b', 'B'
type reGroup struct {
	idx  int // 0: not capturing
	body *reAlt
}
type reLook struct {
	behind, neg bool
	body        *reAlt
}
type reBackref struct {
	idx  int
	name string
}
type reRepeat struct {
	body          reNode
	min, max      int // max < 0: no bound
	greedy        bool
	firstG, lastG int // capture groups inside body: [firstG, lastG)
}

// compileJSRegexp parses source as `new RegExp(source, flags)` does; flags may hold u, i, m
// and g (g changes nothing for test, as callers reset lastIndex).
func compileJSRegexp(source, flags string) (*jsRegexp, error) {
	unicode := strings.Contains(flags, "u")
	p := &reParser{u: unicode, source: source, flags: flags}
	if unicode {
		p.src = []rune(source)
	} else {
		for _, u := range utf16.Encode([]rune(source)) {
			p.src = append(p.src, rune(u))
		}
	}
	p.prescan()
	root, err := p.parseDisjunction(0)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.src) {
		return nil, p.err("Unmatched ')'")
	}
	for _, br := range p.namedRefs {
		idx, ok := p.names[br.name]
		if !ok {
			return nil, p.err("Invalid named capture referenced")
		}
		br.idx = idx
	}
	return &jsRegexp{source: source, unicode: unicode, ignoreCase: strings.Contains(flags, "i"),
		multiline: strings.Contains(flags, "m"), root: root, ngroups: p.ngroups}, nil
}

type reParser struct {
	flags     string
	source    string
	src       []rune
	pos       int
	u         bool
	ngroups   int
	total     int // capturing groups in the whole pattern
	hasNamed  bool
	names     map[string]int
	namedRefs []*reBackref
}

func (p *reParser) err(msg string) error {
	return &reSyntaxError{source: p.source, flags: p.flags, msg: msg}
}

func (p *reParser) peek() rune {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return -1
}

func (p *reParser) peekAt(i int) rune {
	if p.pos+i < len(p.src) {
		return p.src[p.pos+i]
	}
	return -1
}

// prescan counts capturing groups and notes named groups, as V8 does before parsing.
func (p *reParser) prescan() {
	inClass := false
	for i := 0; i < len(p.src); i++ {
		switch c := p.src[i]; {
		case c == '\\':
			i++
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '(' && !inClass:
			if i+1 < len(p.src) && p.src[i+1] == '?' {
				if i+2 < len(p.src) && p.src[i+2] == '<' && i+3 < len(p.src) && p.src[i+3] != '=' && p.src[i+3] != '!' {
					p.total++
					p.hasNamed = true
				}
			} else {
				p.total++
			}
		}
	}
}

const reMaxNesting = 1000

func (p *reParser) parseDisjunction(depth int) (*reAlt, error) {
	if depth > reMaxNesting {
		return nil, p.err("Regular expression too large")
	}
	alt := &reAlt{}
	for {
		seq, err := p.parseAlternative(depth)
		if err != nil {
			return nil, err
		}
		alt.alts = append(alt.alts, seq)
		if p.peek() != '|' {
			return alt, nil
		}
		p.pos++
	}
}

func (p *reParser) parseAlternative(depth int) (*reSeq, error) {
	seq := &reSeq{}
	for p.pos < len(p.src) {
		c := p.peek()
		if c == '|' || c == ')' {
			break
		}
		startGroups := p.ngroups
		var atom reNode
		quantifiable := true
		switch c {
		case '^', '$':
			p.pos++
			seq.terms = append(seq.terms, &reAssert{kind: byte(c)})
			continue
		case '\\':
			if n := p.peekAt(1); n == 'b' || n == 'B' {
				p.pos += 2
				seq.terms = append(seq.terms, &reAssert{kind: byte(n)})
				continue
			}
			a, err := p.parseAtomEscape()
			if err != nil {
				return nil, err
			}
			atom = a
		case '(':
			a, q, err := p.parseGroup(depth)
			if err != nil {
				return nil, err
			}
			atom, quantifiable = a, q
		case '.':
			p.pos++
			atom = &reSet{match: func(r rune) bool { return !isLineTerminator(r) }}
		case '[':
			a, err := p.parseClass()
			if err != nil {
				return nil, err
			}
			atom = a
		case '*', '+', '?':
			return nil, p.err("Nothing to repeat")
		case '{':
			save := p.pos
			if _, _, ok := p.parseBraces(); ok {
				return nil, p.err("Nothing to repeat")
			}
			p.pos = save
			if p.u {
				return nil, p.err("Lone quantifier brackets")
			}
			p.pos++
			atom = &reChar{c: c}
		case '}', ']':
			if p.u {
				return nil, p.err("Lone quantifier brackets")
			}
			p.pos++
			atom = &reChar{c: c}
		default:
			p.pos++
			atom = &reChar{c: c}
		}
		// quantifier
		min, max := -1, -1
		switch p.peek() {
		case '*':
			min, max = 0, -1
			p.pos++
		case '+':
			min, max = 1, -1
			p.pos++
		case '?':
			min, max = 0, 1
			p.pos++
		case '{':
			save := p.pos
			lo, hi, ok := p.parseBraces()
			if ok {
				if hi >= 0 && hi < lo {
					return nil, p.err("numbers out of order in {} quantifier")
				}
				min, max = lo, hi
			} else {
				p.pos = save
				if p.u {
					return nil, p.err("Incomplete quantifier")
				}
			}
		}
		if min < 0 {
			seq.terms = append(seq.terms, atom)
			continue
		}
		greedy := true
		if p.peek() == '?' {
			p.pos++
			greedy = false
		}
		if !quantifiable {
			return nil, p.err("Invalid quantifier")
		}
		seq.terms = append(seq.terms, &reRepeat{body: atom, min: min, max: max, greedy: greedy, firstG: startGroups + 1, lastG: p.ngroups + 1})
	}
	return seq, nil
}

// parseBraces reads {n}, {n,} or {n,m} at the current position.
func (p *reParser) parseBraces() (int, int, bool) {
	if p.peek() != '{' {
		return 0, 0, false
	}
	i := p.pos + 1
	readInt := func() (int, bool) {
		start := i
		n := 0
		for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
			if n < 1<<30 {
				n = n*10 + int(p.src[i]-'0')
			}
			i++
		}
		if n >= 1<<30 {
			n = 1<<31 - 1
		}
		return n, i > start
	}
	lo, ok := readInt()
	if !ok {
		return 0, 0, false
	}
	hi := lo
	if i < len(p.src) && p.src[i] == ',' {
		i++
		if i < len(p.src) && p.src[i] == '}' {
			hi = -1
		} else {
			h, ok := readInt()
			if !ok {
				return 0, 0, false
			}
			hi = h
		}
	}
	if i >= len(p.src) || p.src[i] != '}' {
		return 0, 0, false
	}
	p.pos = i + 1
	return lo, hi, true
}

func (p *reParser) parseGroup(depth int) (reNode, bool, error) {
	p.pos++ // (
	if p.peek() != '?' {
		p.ngroups++
		idx := p.ngroups
		body, err := p.parseDisjunction(depth + 1)
		if err != nil {
			return nil, false, err
		}
		if p.peek() != ')' {
			return nil, false, p.err("Unterminated group")
		}
		p.pos++
		return &reGroup{idx: idx, body: body}, true, nil
	}
	p.pos++ // ?
	switch p.peek() {
	case ':':
		p.pos++
		body, err := p.parseDisjunction(depth + 1)
		if err != nil {
			return nil, false, err
		}
		if p.peek() != ')' {
			return nil, false, p.err("Unterminated group")
		}
		p.pos++
		return &reGroup{body: body}, true, nil
	case '=', '!':
		neg := p.peek() == '!'
		p.pos++
		body, err := p.parseDisjunction(depth + 1)
		if err != nil {
			return nil, false, err
		}
		if p.peek() != ')' {
			return nil, false, p.err("Unterminated group")
		}
		p.pos++
		return &reLook{neg: neg, body: body}, !p.u, nil
	case '<':
		if n := p.peekAt(1); n == '=' || n == '!' {
			p.pos += 2
			body, err := p.parseDisjunction(depth + 1)
			if err != nil {
				return nil, false, err
			}
			if p.peek() != ')' {
				return nil, false, p.err("Unterminated group")
			}
			p.pos++
			return &reLook{behind: true, neg: n == '!', body: body}, false, nil
		}
		p.pos++
		name, err := p.parseGroupName()
		if err != nil {
			return nil, false, err
		}
		if p.names == nil {
			p.names = map[string]int{}
		}
		if _, dup := p.names[name]; dup {
			return nil, false, p.err("Duplicate capture group name")
		}
		p.ngroups++
		idx := p.ngroups
		p.names[name] = idx
		body, err := p.parseDisjunction(depth + 1)
		if err != nil {
			return nil, false, err
		}
		if p.peek() != ')' {
			return nil, false, p.err("Unterminated group")
		}
		p.pos++
		return &reGroup{idx: idx, body: body}, true, nil
	}
	return nil, false, p.err("Invalid group")
}

// parseGroupName reads RegExpIdentifierName ">" after "<".
func (p *reParser) parseGroupName() (string, error) {
	var b strings.Builder
	first := true
	for {
		c := p.peek()
		if c == '>' && !first {
			p.pos++
			return b.String(), nil
		}
		if c < 0 {
			return "", p.err("Invalid capture group name")
		}
		p.pos++
		if c == '\\' {
			if p.peek() != 'u' {
				return "", p.err("Invalid capture group name")
			}
			p.pos++
			r, ok := p.parseUnicodeEscapeBody(true)
			if !ok {
				return "", p.err("Invalid capture group name")
			}
			c = r
		} else if !p.u && isHighSurrogate(c) && isLowSurrogate(p.peek()) {
			c = utf16.DecodeRune(c, p.peek())
			p.pos++
		}
		if first && !isIDStart(c) || !first && !isIDPart(c) {
			return "", p.err("Invalid capture group name")
		}
		b.WriteRune(c)
		first = false
	}
}

func isIDStart(r rune) bool {
	return r == '$' || r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

func isIDPart(r rune) bool {
	return isIDStart(r) || r == 0x200C || r == 0x200D || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

func isHighSurrogate(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }
func isLowSurrogate(r rune) bool  { return r >= 0xDC00 && r <= 0xDFFF }

func isLineTerminator(r rune) bool { return r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029 }

func isWordChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
}

func isSyntaxChar(r rune) bool { return r >= 0 && strings.ContainsRune(`^$\.*+?()[]{}|`, r) }

func hexVal(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return -1
}

// parseUnicodeEscapeBody reads what follows "\u": XXXX, a surrogate pair \uXXXX\uXXXX, or, in
// unicode mode (or in a group name), {X…}.
func (p *reParser) parseUnicodeEscapeBody(braces bool) (rune, bool) {
	if p.peek() == '{' && (p.u || braces) {
		save := p.pos
		p.pos++
		var v rune
		n := 0
		for hexVal(p.peek()) >= 0 {
			v = v*16 + rune(hexVal(p.peek()))
			if v > 0x10FFFF {
				p.pos = save
				return 0, false
			}
			p.pos++
			n++
		}
		if n == 0 || p.peek() != '}' {
			p.pos = save
			return 0, false
		}
		p.pos++
		return v, true
	}
	v, ok := p.hex4()
	if !ok {
		return 0, false
	}
	if (p.u || braces) && isHighSurrogate(v) && p.peek() == '\\' && p.peekAt(1) == 'u' {
		save := p.pos
		p.pos += 2
		lo, ok := p.hex4()
		if ok && isLowSurrogate(lo) {
			return utf16.DecodeRune(v, lo), true
		}
		p.pos = save
	}
	return v, true
}

func (p *reParser) hex4() (rune, bool) {
	var v rune
	for i := 0; i < 4; i++ {
		h := hexVal(p.peekAt(i))
		if h < 0 {
			return 0, false
		}
		v = v*16 + rune(h)
	}
	p.pos += 4
	return v, true
}

// parseAtomEscape reads "\…" outside a class (not \b or \B).
func (p *reParser) parseAtomEscape() (reNode, error) {
	p.pos++ // backslash
	c := p.peek()
	if c < 0 {
		return nil, p.err("\\ at end of pattern")
	}
	switch {
	case c >= '1' && c <= '9':
		save := p.pos
		n := 0
		for p.peek() >= '0' && p.peek() <= '9' {
			if n < 1<<20 {
				n = n*10 + int(p.peek()-'0')
			}
			p.pos++
		}
		if n <= p.total {
			return &reBackref{idx: n}, nil
		}
		if p.u {
			return nil, p.err("Invalid escape")
		}
		p.pos = save
		if c >= '8' {
			p.pos++
			return &reChar{c: c}, nil
		}
		return &reChar{c: p.legacyOctal()}, nil
	case c == 'k':
		if p.u || p.hasNamed {
			p.pos++
			if p.peek() != '<' {
				return nil, p.err("Invalid named reference")
			}
			p.pos++
			name, err := p.parseGroupName()
			if err != nil {
				return nil, p.err("Invalid named reference")
			}
			br := &reBackref{name: name}
			p.namedRefs = append(p.namedRefs, br)
			return br, nil
		}
		p.pos++
		return &reChar{c: 'k'}, nil
	case c == 'c' && !p.u:
		if n := p.peekAt(1); n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z' {
			p.pos += 2
			return &reChar{c: n % 32}, nil
		}
		// "\c" without a letter stands for a backslash; the "c" is read next.
		return &reChar{c: '\\'}, nil
	}
	if set, ok, err := p.classEscape(false); err != nil {
		return nil, err
	} else if ok {
		return set, nil
	}
	r, err := p.characterEscape(false)
	if err != nil {
		return nil, err
	}
	return &reChar{c: r}, nil
}

// legacyOctal reads an Annex B octal escape (up to \377) at the current position.
func (p *reParser) legacyOctal() rune {
	v := rune(0)
	for i := 0; i < 3; i++ {
		c := p.peek()
		if c < '0' || c > '7' {
			break
		}
		nv := v*8 + (c - '0')
		if nv > 0377 {
			break
		}
		v = nv
		p.pos++
	}
	return v
}

// classEscape reads \d \D \s \S \w \W \p{…} \P{…} (the backslash already read).
func (p *reParser) classEscape(inClass bool) (*reSet, bool, error) {
	c := p.peek()
	var f func(rune) bool
	switch c {
	case 'd':
		f = func(r rune) bool { return r >= '0' && r <= '9' }
	case 'D':
		f = func(r rune) bool { return !(r >= '0' && r <= '9') }
	case 's':
		f = isJSSpace
	case 'S':
		f = func(r rune) bool { return !isJSSpace(r) }
	case 'w':
		f = isWordChar
	case 'W':
		f = func(r rune) bool { return !isWordChar(r) }
	case 'p', 'P':
		if !p.u {
			return nil, false, nil
		}
		p.pos++
		if p.peek() != '{' {
			if inClass {
				return nil, false, p.err("Invalid property name in character class")
			}
			return nil, false, p.err("Invalid property name")
		}
		end := p.pos + 1
		for end < len(p.src) && p.src[end] != '}' {
			end++
		}
		if end >= len(p.src) {
			if inClass {
				return nil, false, p.err("Invalid property name in character class")
			}
			return nil, false, p.err("Invalid property name")
		}
		name := string(p.src[p.pos+1 : end])
		m, ok := unicodeProperty(name)
		if !ok {
			if inClass {
				return nil, false, p.err("Invalid property name in character class")
			}
			return nil, false, p.err("Invalid property name")
		}
		p.pos = end + 1
		if c == 'P' {
			return &reSet{match: func(r rune) bool { return !m(r) }}, true, nil
		}
		return &reSet{match: m}, true, nil
	default:
		return nil, false, nil
	}
	p.pos++
	return &reSet{match: f}, true, nil
}

// characterEscape reads a CharacterEscape (the backslash already read).
func (p *reParser) characterEscape(inClass bool) (rune, error) {
	c := p.peek()
	p.pos++
	switch c {
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'v':
		return '\v', nil
	case 'c':
		if n := p.peek(); n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z' {
			p.pos++
			return n % 32, nil
		}
		if p.u {
			return 0, p.err("Invalid Unicode escape")
		}
		p.pos--
		return '\\', nil
	case '0':
		if d := p.peek(); d >= '0' && d <= '9' {
			if p.u {
				if inClass {
					return 0, p.err("Invalid class escape")
				}
				return 0, p.err("Invalid decimal escape")
			}
			p.pos--
			return p.legacyOctal(), nil
		}
		return 0, nil
	case 'x':
		if h1, h2 := hexVal(p.peek()), hexVal(p.peekAt(1)); h1 >= 0 && h2 >= 0 {
			p.pos += 2
			return rune(h1*16 + h2), nil
		}
		if p.u {
			return 0, p.err("Invalid escape")
		}
		return 'x', nil
	case 'u':
		if r, ok := p.parseUnicodeEscapeBody(false); ok {
			return r, nil
		}
		if p.u {
			return 0, p.err("Invalid Unicode escape")
		}
		return 'u', nil
	}
	if p.u {
		if isSyntaxChar(c) || c == '/' || inClass && c == '-' {
			return c, nil
		}
		if inClass && c >= '1' && c <= '9' {
			return 0, p.err("Invalid class escape")
		}
		if inClass {
			return 0, p.err("Invalid escape")
		}
		return 0, p.err("Invalid escape")
	}
	if inClass && c >= '1' && c <= '7' {
		p.pos--
		return p.legacyOctal(), nil
	}
	if c == 'k' && p.hasNamed {
		return 0, p.err("Invalid escape")
	}
	return c, nil
}

type classItem struct {
	set    *reSet
	lo, hi rune
}

// parseClass reads a character class.
func (p *reParser) parseClass() (reNode, error) {
	p.pos++ // [
	neg := false
	if p.peek() == '^' {
		neg = true
		p.pos++
	}
	var items []classItem
	for {
		if p.pos >= len(p.src) {
			return nil, p.err("Unterminated character class")
		}
		if p.peek() == ']' {
			p.pos++
			break
		}
		a, err := p.classAtom()
		if err != nil {
			return nil, err
		}
		if p.peek() == '-' && p.peekAt(1) != ']' && p.peekAt(1) >= 0 {
			p.pos++
			b, err := p.classAtom()
			if err != nil {
				return nil, err
			}
			if a.set != nil || b.set != nil {
				if p.u {
					return nil, p.err("Invalid character class")
				}
				items = append(items, a, classItem{lo: '-', hi: '-'}, b)
				continue
			}
			if a.lo > b.lo {
				return nil, p.err("Range out of order in character class")
			}
			items = append(items, classItem{lo: a.lo, hi: b.lo})
			continue
		}
		items = append(items, a)
	}
	match := func(r rune) bool {
		for _, it := range items {
			if it.set != nil {
				if it.set.match(r) {
					return true
				}
			} else if r >= it.lo && r <= it.hi {
				return true
			}
		}
		return false
	}
	return &reSet{match: match, neg: neg}, nil
}

func (p *reParser) classAtom() (classItem, error) {
	c := p.peek()
	if c != '\\' {
		p.pos++
		return classItem{lo: c, hi: c}, nil
	}
	p.pos++
	c = p.peek()
	if c < 0 {
		return classItem{}, p.err("\\ at end of pattern")
	}
	switch {
	case c == 'b':
		p.pos++
		return classItem{lo: '\b', hi: '\b'}, nil
	case c == '-' && p.u:
		p.pos++
		return classItem{lo: '-', hi: '-'}, nil
	case c == 'c' && !p.u:
		if n := p.peekAt(1); n >= '0' && n <= '9' || n == '_' {
			p.pos += 2
			return classItem{lo: n % 32, hi: n % 32}, nil
		}
	case c == 'B' && p.u:
		return classItem{}, p.err("Invalid escape")
	case c == 'k' && p.u:
		return classItem{}, p.err("Invalid escape")
	case c >= '1' && c <= '9' && p.u:
		return classItem{}, p.err("Invalid class escape")
	case (c == '8' || c == '9') && !p.u:
		p.pos++
		return classItem{lo: c, hi: c}, nil
	}
	set, ok, err := p.classEscape(true)
	if err != nil {
		return classItem{}, err
	}
	if ok {
		return classItem{set: set}, nil
	}
	r, err := p.characterEscape(true)
	if err != nil {
		return classItem{}, err
	}
	return classItem{lo: r, hi: r}, nil
}

// test is RegExp.prototype.test: is there a match anywhere in s?
func (re *jsRegexp) test(s string) bool {
	var in []rune
	if re.unicode {
		in = []rune(s)
	} else {
		for _, u := range utf16.Encode([]rune(s)) {
			in = append(in, rune(u))
		}
	}
	m := &reMatcher{re: re, in: in, caps: make([]int, 2*(re.ngroups+1))}
	defer func() {
		if r := recover(); r != nil && r != errReBudget {
			panic(r)
		}
	}()
	for start := 0; start <= len(in); start++ {
		for i := range m.caps {
			m.caps[i] = -1
		}
		if m.alt(re.root, start, 1, func(int) bool { return true }) {
			return true
		}
	}
	return false
}

var errReBudget = &struct{ s string }{"regular expression step budget exceeded"}

type reMatcher struct {
	re    *jsRegexp
	in    []rune
	caps  []int
	steps int
}

func (m *reMatcher) step() {
	m.steps++
	if m.steps > reBudget {
		panic(errReBudget)
	}
}

func (m *reMatcher) alt(a *reAlt, pos, dir int, k func(int) bool) bool {
	for _, s := range a.alts {
		if m.seq(s.terms, 0, pos, dir, k) {
			return true
		}
	}
	return false
}

func (m *reMatcher) seq(terms []reNode, i, pos, dir int, k func(int) bool) bool {
	if i == len(terms) {
		return k(pos)
	}
	t := terms[i]
	if dir < 0 {
		t = terms[len(terms)-1-i]
	}
	return m.node(t, pos, dir, func(p int) bool { return m.seq(terms, i+1, p, dir, k) })
}

func (m *reMatcher) read(pos, dir int) (rune, int, bool) {
	if dir > 0 {
		if pos < len(m.in) {
			return m.in[pos], pos + 1, true
		}
		return 0, pos, false
	}
	if pos > 0 {
		return m.in[pos-1], pos - 1, true
	}
	return 0, pos, false
}

func (m *reMatcher) node(n reNode, pos, dir int, k func(int) bool) bool {
	m.step()
	switch x := n.(type) {
	case *reChar:
		c, np, ok := m.read(pos, dir)
		return ok && m.sameChar(c, x.c) && k(np)
	case *reSet:
		c, np, ok := m.read(pos, dir)
		return ok && m.inSet(x, c) && k(np)
	case *reAssert:
		switch x.kind {
		case '^':
			return (pos == 0 || m.re.multiline && isLineTerminator(m.in[pos-1])) && k(pos)
		case '$':
			return (pos == len(m.in) || m.re.multiline && isLineTerminator(m.in[pos])) && k(pos)
		}
		a := pos > 0 && isWordChar(m.in[pos-1])
		b := pos < len(m.in) && isWordChar(m.in[pos])
		if (a != b) == (x.kind == 'b') {
			return k(pos)
		}
		return false
	case *reAlt:
		return m.alt(x, pos, dir, k)
	case *reGroup:
		if x.idx == 0 {
			return m.alt(x.body, pos, dir, k)
		}
		s0, e0 := m.caps[2*x.idx], m.caps[2*x.idx+1]
		if m.alt(x.body, pos, dir, func(p int) bool {
			ps, pe := m.caps[2*x.idx], m.caps[2*x.idx+1]
			if dir > 0 {
				m.caps[2*x.idx], m.caps[2*x.idx+1] = pos, p
			} else {
				m.caps[2*x.idx], m.caps[2*x.idx+1] = p, pos
			}
			if k(p) {
				return true
			}
			m.caps[2*x.idx], m.caps[2*x.idx+1] = ps, pe
			return false
		}) {
			return true
		}
		m.caps[2*x.idx], m.caps[2*x.idx+1] = s0, e0
		return false
	case *reLook:
		saved := append([]int(nil), m.caps...)
		d := 1
		if x.behind {
			d = -1
		}
		ok := m.alt(x.body, pos, d, func(int) bool { return true })
		if x.neg {
			copy(m.caps, saved)
			return !ok && k(pos)
		}
		if ok && k(pos) {
			return true
		}
		copy(m.caps, saved)
		return false
	case *reBackref:
		s, e := m.caps[2*x.idx], m.caps[2*x.idx+1]
		if s < 0 || e < 0 {
			return k(pos)
		}
		l := e - s
		if dir > 0 {
			if pos+l > len(m.in) {
				return false
			}
			for i := 0; i < l; i++ {
				if !m.sameChar(m.in[pos+i], m.in[s+i]) {
					return false
				}
			}
			return k(pos + l)
		}
		if pos-l < 0 {
			return false
		}
		for i := 0; i < l; i++ {
			if !m.sameChar(m.in[pos-l+i], m.in[s+i]) {
				return false
			}
		}
		return k(pos - l)
	case *reRepeat:
		return m.repeat(x, 0, pos, dir, k)
	}
	return false
}

// canonicalize is the spec's Canonicalize for the i flag: simple case folding with u, the
// upper case without it (never mapping a non-ASCII character to an ASCII one).
func (m *reMatcher) canonicalize(c rune) rune {
	if m.re.unicode {
		f := c
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r < f {
				f = r
			}
		}
		return f
	}
	u := unicode.ToUpper(c)
	if c >= 128 && u < 128 {
		return c
	}
	return u
}

func (m *reMatcher) sameChar(a, b rune) bool {
	if a == b {
		return true
	}
	return m.re.ignoreCase && m.canonicalize(a) == m.canonicalize(b)
}

func (m *reMatcher) inSet(s *reSet, c rune) bool {
	return m.inPositiveSet(s, c) != s.neg
}

func (m *reMatcher) inPositiveSet(s *reSet, c rune) bool {
	if s.match(c) {
		return true
	}
	if !m.re.ignoreCase {
		return false
	}
	cc := m.canonicalize(c)
	for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
		if m.canonicalize(r) == cc && s.match(r) {
			return true
		}
	}
	for _, r := range []rune{unicode.ToUpper(c), unicode.ToLower(c)} {
		if r != c && m.canonicalize(r) == cc && s.match(r) {
			return true
		}
	}
	return false
}

func (m *reMatcher) repeat(x *reRepeat, count, pos, dir int, k func(int) bool) bool {
	m.step()
	if x.max >= 0 && count >= x.max {
		return k(pos)
	}
	iter := func() bool {
		var saved []int
		if x.lastG > x.firstG {
			saved = append([]int(nil), m.caps[2*x.firstG:2*x.lastG]...)
			for i := 2 * x.firstG; i < 2*x.lastG; i++ {
				m.caps[i] = -1
			}
		}
		ok := m.node(x.body, pos, dir, func(p int) bool {
			if p == pos && count >= x.min {
				return false
			}
			return m.repeat(x, count+1, p, dir, k)
		})
		if !ok && saved != nil {
			copy(m.caps[2*x.firstG:2*x.lastG], saved)
		}
		return ok
	}
	if count < x.min {
		return iter()
	}
	if x.greedy {
		return iter() || k(pos)
	}
	return k(pos) || iter()
}

// unicodeProperty resolves the name inside \p{…} as ECMAScript defines the names.
func unicodeProperty(name string) (func(rune) bool, bool) {
	if key, value, ok := strings.Cut(name, "="); ok {
		switch key {
		case "General_Category", "gc":
			return generalCategory(value)
		case "Script", "sc", "Script_Extensions", "scx":
			// Go has no Script_Extensions data; the Script property stands in for it.
			if t := scriptTable(value); t != nil {
				return func(r rune) bool { return unicode.Is(t, r) }, true
			}
		}
		return nil, false
	}
	if f, ok := generalCategory(name); ok {
		return f, true
	}
	return binaryProperty(name)
}

var categoryAliases = map[string]string{
	"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
	"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M",
	"Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
	"Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
	"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
	"Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
	"Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
	"Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C",
	"Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
	"Unassigned": "Cn",
}

func generalCategory(v string) (func(rune) bool, bool) {
	if long, ok := categoryAliases[v]; ok {
		v = long
	}
	switch v {
	case "LC":
		return func(r rune) bool { return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt) }, true
	case "Cn":
		return isUnassigned, true
	case "C":
		return func(r rune) bool { return unicode.Is(unicode.C, r) || isUnassigned(r) }, true
	}
	if t, ok := unicode.Categories[v]; ok {
		return func(r rune) bool { return unicode.Is(t, r) }, true
	}
	return nil, false
}

func isUnassigned(r rune) bool {
	for _, t := range unicode.Categories {
		if unicode.Is(t, r) {
			return false
		}
	}
	return true
}

// scriptCodes maps ISO 15924 codes to the script names Go's tables use.
var scriptCodes = map[string]string{
	"Adlm": "Adlam", "Arab": "Arabic", "Armn": "Armenian", "Beng": "Bengali", "Bopo": "Bopomofo",
	"Brai": "Braille", "Cher": "Cherokee", "Copt": "Coptic", "Qaac": "Coptic", "Cyrl": "Cyrillic",
	"Deva": "Devanagari", "Ethi": "Ethiopic", "Geor": "Georgian", "Goth": "Gothic", "Grek": "Greek",
	"Gujr": "Gujarati", "Guru": "Gurmukhi", "Hang": "Hangul", "Hani": "Han", "Hebr": "Hebrew",
	"Hira": "Hiragana", "Kana": "Katakana", "Khmr": "Khmer", "Knda": "Kannada", "Laoo": "Lao",
	"Latn": "Latin", "Mlym": "Malayalam", "Mong": "Mongolian", "Mymr": "Myanmar", "Ogam": "Ogham",
	"Orya": "Oriya", "Runr": "Runic", "Sinh": "Sinhala", "Syrc": "Syriac", "Taml": "Tamil",
	"Telu": "Telugu", "Thaa": "Thaana", "Thai": "Thai", "Tibt": "Tibetan", "Zinh": "Inherited",
	"Qaai": "Inherited", "Zyyy": "Common", "Zzzz": "Unknown", "Yiii": "Yi", "Tfng": "Tifinagh",
	"Tglg": "Tagalog", "Cans": "Canadian_Aboriginal", "Vaii": "Vai", "Bali": "Balinese",
	"Java": "Javanese", "Nkoo": "Nko", "Olck": "Ol_Chiki", "Sund": "Sundanese", "Lana": "Tai_Tham",
	"Tavt": "Tai_Viet", "Cham": "Cham", "Bamu": "Bamum", "Glag": "Glagolitic", "Xsux": "Cuneiform",
	"Egyp": "Egyptian_Hieroglyphs", "Linb": "Linear_B", "Phnx": "Phoenician", "Samr": "Samaritan",
}

func scriptTable(v string) *unicode.RangeTable {
	if long, ok := scriptCodes[v]; ok {
		v = long
	}
	if v == "Unknown" {
		return nil
	}
	return unicode.Scripts[v]
}

var binaryAliases = map[string]string{
	"AHex": "ASCII_Hex_Digit", "Alpha": "Alphabetic", "Bidi_C": "Bidi_Control", "Bidi_M": "Bidi_Mirrored",
	"CI": "Case_Ignorable", "CWCF": "Changes_When_Casefolded", "CWCM": "Changes_When_Casemapped",
	"CWKCF": "Changes_When_NFKC_Casefolded", "CWL": "Changes_When_Lowercased",
	"CWT": "Changes_When_Titlecased", "CWU": "Changes_When_Uppercased", "DI": "Default_Ignorable_Code_Point",
	"Dep": "Deprecated", "Dia": "Diacritic", "EBase": "Emoji_Modifier_Base", "EComp": "Emoji_Component",
	"EMod": "Emoji_Modifier", "EPres": "Emoji_Presentation", "Ext": "Extender", "ExtPict": "Extended_Pictographic",
	"Gr_Base": "Grapheme_Base", "Gr_Ext": "Grapheme_Extend", "Hex": "Hex_Digit", "IDC": "ID_Continue",
	"IDS": "ID_Start", "IDSB": "IDS_Binary_Operator", "IDST": "IDS_Trinary_Operator", "Ideo": "Ideographic",
	"Join_C": "Join_Control", "LOE": "Logical_Order_Exception", "Lower": "Lowercase", "NChar": "Noncharacter_Code_Point",
	"Pat_Syn": "Pattern_Syntax", "Pat_WS": "Pattern_White_Space", "QMark": "Quotation_Mark", "RI": "Regional_Indicator",
	"SD": "Soft_Dotted", "STerm": "Sentence_Terminal", "Term": "Terminal_Punctuation", "UIdeo": "Unified_Ideograph",
	"Upper": "Uppercase", "VS": "Variation_Selector", "space": "White_Space", "XIDC": "XID_Continue", "XIDS": "XID_Start",
}

// binaryProperty resolves ECMAScript's binary Unicode properties. Those Go's tables hold or
// derive are exact; Go has no data for the emoji properties, Bidi_Mirrored,
// Case_Ignorable and the NFKC ones, which are approximated (the pattern still compiles, as
// it does in V8).
func binaryProperty(name string) (func(rune) bool, bool) {
	if long, ok := binaryAliases[name]; ok {
		name = long
	}
	is := func(ts ...*unicode.RangeTable) func(rune) bool {
		return func(r rune) bool { return unicode.In(r, ts...) }
	}
	alpha := func(r rune) bool {
		return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Nl, unicode.Other_Alphabetic)
	}
	idStart := func(r rune) bool {
		return (unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start)) && !unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
	}
	idCont := func(r rune) bool {
		return (idStart(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)) && !unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
	}
	lower := func(r rune) bool { return unicode.In(r, unicode.Ll, unicode.Other_Lowercase) }
	upper := func(r rune) bool { return unicode.In(r, unicode.Lu, unicode.Other_Uppercase) }
	emoji := func(r rune) bool {
		return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r == 0x00A9 || r == 0x00AE
	}
	switch name {
	case "Any":
		return func(rune) bool { return true }, true
	case "ASCII":
		return func(r rune) bool { return r < 0x80 }, true
	case "Assigned":
		return func(r rune) bool { return !isUnassigned(r) }, true
	case "Alphabetic":
		return alpha, true
	case "Lowercase":
		return lower, true
	case "Uppercase":
		return upper, true
	case "Cased":
		return func(r rune) bool { return lower(r) || upper(r) || unicode.Is(unicode.Lt, r) }, true
	case "Math":
		return is(unicode.Sm, unicode.Other_Math), true
	case "ID_Start", "XID_Start":
		return idStart, true
	case "ID_Continue", "XID_Continue":
		return idCont, true
	case "Grapheme_Extend":
		return is(unicode.Me, unicode.Mn, unicode.Other_Grapheme_Extend), true
	case "Grapheme_Base":
		return func(r rune) bool {
			return !isUnassigned(r) && !unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co, unicode.Zl, unicode.Zp, unicode.Me, unicode.Mn, unicode.Other_Grapheme_Extend)
		}, true
	case "Default_Ignorable_Code_Point":
		return func(r rune) bool {
			return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r) ||
				(unicode.Is(unicode.Cf, r) && !unicode.Is(unicode.Prepended_Concatenation_Mark, r) && r != 0x0600 && r != 0xFFF9 && r != 0xFFFA && r != 0xFFFB)
		}, true
	case "Changes_When_Lowercased":
		return func(r rune) bool { return unicode.ToLower(r) != r }, true
	case "Changes_When_Uppercased":
		return func(r rune) bool { return unicode.ToUpper(r) != r }, true
	case "Changes_When_Titlecased":
		return func(r rune) bool { return unicode.ToTitle(r) != r }, true
	case "Changes_When_Casefolded", "Changes_When_NFKC_Casefolded":
		return func(r rune) bool { return unicode.SimpleFold(r) != r && unicode.ToLower(r) != r }, true
	case "Changes_When_Casemapped":
		return func(r rune) bool {
			return unicode.ToLower(r) != r || unicode.ToUpper(r) != r || unicode.ToTitle(r) != r
		}, true
	case "Case_Ignorable":
		return is(unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk), true
	case "Bidi_Mirrored":
		return func(r rune) bool { return strings.ContainsRune("()<>[]{}«»", r) }, true
	case "Emoji", "Emoji_Presentation", "Extended_Pictographic", "Emoji_Modifier_Base":
		return emoji, true
	case "Emoji_Modifier":
		return func(r rune) bool { return r >= 0x1F3FB && r <= 0x1F3FF }, true
	case "Emoji_Component":
		return func(r rune) bool {
			return r == '#' || r == '*' || r >= '0' && r <= '9' || r == 0x200D || r == 0x20E3 || r == 0xFE0F ||
				r >= 0x1F1E6 && r <= 0x1F1FF || r >= 0x1F3FB && r <= 0x1F3FF || r >= 0xE0020 && r <= 0xE007F
		}, true
	}
	if t, ok := unicode.Properties[name]; ok && !strings.HasPrefix(name, "Other_") && name != "Hyphen" && name != "Prepended_Concatenation_Mark" {
		return func(r rune) bool { return unicode.Is(t, r) }, true
	}
	return nil, false
}

// regexFormat is ajv-formats' "regex" format: no \Z anchor, and `new RegExp(s)` succeeds.
func regexFormat(s string) bool {
	units := utf16.Encode([]rune(s))
	for i := 1; i+1 < len(units); i++ {
		if units[i] == '\\' && units[i+1] == 'Z' && units[i-1] != '\\' {
			return false
		}
	}
	_, err := compileJSRegexp(s, "")
	return err == nil
}
