package minimatch

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf16"
)

// A small backtracking engine for JavaScript regular expressions, enough for the sources
// minimatch builds (literals and escapes, classes with \p{…}, groups, lookaheads, lazy and greedy
// quantifiers, anchors) with the i and u flags. Go's regexp (RE2) has no lookahead, which
// minimatch relies on, and differs from JavaScript in syntax errors that make npm itself fail.
// Without the u flag, patterns and subjects are sequences of UTF-16 code units, as in JavaScript.

// stepBudget bounds the work for one test so that a hostile pattern cannot hang the caller; a
// test that runs out of budget reports no match.
const stepBudget = 2_000_000

type reKind uint8

const (
	reEmpty reKind = iota
	reChar
	reAny
	reClass
	reSeq
	reAlt
	reGroup
	reLook
	reBOL
	reEOL
	reWordB
	reNotWordB
	reRepeat
)

type reNode struct {
	kind   reKind
	ch     rune
	cls    *charClass
	subs   []*reNode // seq items, alt branches
	body   *reNode   // group, look, repeat
	neg    bool      // negative lookahead
	min    int
	max    int // -1: unbounded
	greedy bool
}

type classRange struct{ lo, hi rune }

type charClass struct {
	negate bool
	ranges []classRange
	tables []*unicode.RangeTable
	ntable []*unicode.RangeTable // \P{…}
	escs   []rune                // d D s S w W
}

type jsRegexp struct {
	root    *reNode
	icase   bool
	unicode bool
	anchorS bool // every branch starts with ^
	// lit is set when the expression is ^literal$ over ASCII without the u flag: a test is then
	// a (case-insensitive) comparison, which is what most ignore rules come down to.
	lit    []byte
	hasLit bool
}

type reParser struct {
	src     []rune
	pos     int
	unicode bool
	groups  int
}

var errNothingToRepeat = errors.New("nothing to repeat")

func compileJS(source string, icase, uflag bool) (*jsRegexp, error) {
	p := &reParser{unicode: uflag}
	if uflag {
		p.src = []rune(source)
	} else {
		for _, u := range utf16.Encode([]rune(source)) {
			p.src = append(p.src, rune(u))
		}
	}
	root, err := p.disjunction()
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression /%s/: %w", source, err)
	}
	if p.pos < len(p.src) {
		return nil, fmt.Errorf("invalid regular expression /%s/: unmatched ')'", source)
	}
	re := &jsRegexp{root: root, icase: icase, unicode: uflag}
	re.anchorS = startsAnchored(root)
	re.lit, re.hasLit = asciiLiteral(root, uflag)
	return re, nil
}

// asciiLiteral recognizes ^c1c2…cn$ where every c is an ASCII character.
func asciiLiteral(n *reNode, uflag bool) ([]byte, bool) {
	if uflag || n.kind != reSeq || len(n.subs) < 2 || n.subs[0].kind != reBOL || n.subs[len(n.subs)-1].kind != reEOL {
		return nil, false
	}
	var lit []byte
	for _, c := range n.subs[1 : len(n.subs)-1] {
		if c.kind != reChar || c.ch >= 0x80 {
			return nil, false
		}
		lit = append(lit, byte(c.ch))
	}
	return lit, true
}

func asciiUpper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 32
	}
	return c
}

// testLiteral compares s with an ASCII literal. Without the u flag no non-ASCII character
// canonicalizes to an ASCII one, so a non-ASCII byte never matches.
func (re *jsRegexp) testLiteral(s string) bool {
	if len(s) != len(re.lit) {
		return false
	}
	for i := 0; i < len(s); i++ {
		a, b := s[i], re.lit[i]
		if a >= 0x80 {
			return false
		}
		if a != b && (!re.icase || asciiUpper(a) != asciiUpper(b)) {
			return false
		}
	}
	return true
}

func startsAnchored(n *reNode) bool {
	switch n.kind {
	case reBOL:
		return true
	case reSeq:
		return len(n.subs) > 0 && startsAnchored(n.subs[0])
	case reAlt:
		for _, b := range n.subs {
			if !startsAnchored(b) {
				return false
			}
		}
		return len(n.subs) > 0
	case reGroup:
		return startsAnchored(n.body)
	}
	return false
}

func (p *reParser) peek() (rune, bool) {
	if p.pos < len(p.src) {
		return p.src[p.pos], true
	}
	return 0, false
}

func (p *reParser) disjunction() (*reNode, error) {
	var branches []*reNode
	for {
		alt, err := p.alternative()
		if err != nil {
			return nil, err
		}
		branches = append(branches, alt)
		if c, ok := p.peek(); ok && c == '|' {
			p.pos++
			continue
		}
		break
	}
	if len(branches) == 1 {
		return branches[0], nil
	}
	return &reNode{kind: reAlt, subs: branches}, nil
}

func (p *reParser) alternative() (*reNode, error) {
	seq := &reNode{kind: reSeq}
	for {
		c, ok := p.peek()
		if !ok || c == '|' || c == ')' {
			return seq, nil
		}
		term, quantifiable, err := p.term()
		if err != nil {
			return nil, err
		}
		min, max, greedy, has, err := p.quantifier()
		if err != nil {
			return nil, err
		}
		if has {
			if !quantifiable {
				return nil, errNothingToRepeat
			}
			term = &reNode{kind: reRepeat, body: term, min: min, max: max, greedy: greedy}
		}
		seq.subs = append(seq.subs, term)
	}
}

// quantifier reads *, +, ?, {n}, {n,}, {n,m} and a following ? (lazy).
func (p *reParser) quantifier() (min, max int, greedy, ok bool, err error) {
	c, has := p.peek()
	if !has {
		return 0, 0, false, false, nil
	}
	switch c {
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
		lo, hi, n, valid := p.braceQuantifier(p.pos)
		if !valid {
			if p.unicode {
				return 0, 0, false, false, errors.New("incomplete quantifier")
			}
			return 0, 0, false, false, nil
		}
		if hi >= 0 && hi < lo {
			return 0, 0, false, false, errors.New("numbers out of order in {} quantifier")
		}
		min, max = lo, hi
		p.pos += n
	default:
		return 0, 0, false, false, nil
	}
	greedy = true
	if c2, has := p.peek(); has && c2 == '?' {
		greedy = false
		p.pos++
	}
	return min, max, greedy, true, nil
}

func (p *reParser) braceQuantifier(at int) (lo, hi, n int, ok bool) {
	i := at + 1
	readInt := func() (int, bool) {
		start := i
		v := 0
		for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
			if v < 1<<30 {
				v = v*10 + int(p.src[i]-'0')
			}
			i++
		}
		return v, i > start
	}
	lo, okLo := readInt()
	if !okLo {
		return 0, 0, 0, false
	}
	hi = lo
	if i < len(p.src) && p.src[i] == ',' {
		i++
		if v, okHi := readInt(); okHi {
			hi = v
		} else {
			hi = -1
		}
	}
	if i >= len(p.src) || p.src[i] != '}' {
		return 0, 0, 0, false
	}
	return lo, hi, i + 1 - at, true
}

func (p *reParser) term() (node *reNode, quantifiable bool, err error) {
	c := p.src[p.pos]
	switch c {
	case '^':
		p.pos++
		return &reNode{kind: reBOL}, false, nil
	case '$':
		p.pos++
		return &reNode{kind: reEOL}, false, nil
	case '*', '+', '?':
		return nil, false, errNothingToRepeat
	case '{':
		if p.unicode {
			return nil, false, errNothingToRepeat
		}
		if _, _, _, ok := p.braceQuantifier(p.pos); ok {
			return nil, false, errNothingToRepeat
		}
		p.pos++
		return &reNode{kind: reChar, ch: c}, true, nil
	case '}', ']':
		if p.unicode {
			return nil, false, fmt.Errorf("lone quantifier brackets")
		}
		p.pos++
		return &reNode{kind: reChar, ch: c}, true, nil
	case '.':
		p.pos++
		return &reNode{kind: reAny}, true, nil
	case '[':
		cls, err := p.class()
		if err != nil {
			return nil, false, err
		}
		return &reNode{kind: reClass, cls: cls}, true, nil
	case '(':
		return p.group()
	case '\\':
		return p.atomEscape()
	}
	if p.unicode && c >= 0xD800 && c <= 0xDFFF {
		// a lone surrogate in a u-mode source stays a single code point
		p.pos++
		return &reNode{kind: reChar, ch: c}, true, nil
	}
	p.pos++
	return &reNode{kind: reChar, ch: c}, true, nil
}

func (p *reParser) group() (*reNode, bool, error) {
	p.pos++ // (
	kind := reGroup
	neg := false
	lookahead := false
	if p.pos+1 < len(p.src) && p.src[p.pos] == '?' {
		switch p.src[p.pos+1] {
		case ':':
			p.pos += 2
		case '=':
			p.pos += 2
			kind, lookahead = reLook, true
		case '!':
			p.pos += 2
			kind, lookahead, neg = reLook, true, true
		default:
			return nil, false, errors.New("invalid group")
		}
	} else {
		p.groups++
	}
	body, err := p.disjunction()
	if err != nil {
		return nil, false, err
	}
	if c, ok := p.peek(); !ok || c != ')' {
		return nil, false, errors.New("unterminated group")
	}
	p.pos++
	// Annex B lets a lookahead take a quantifier only without the u flag.
	return &reNode{kind: kind, body: body, neg: neg}, !lookahead || !p.unicode, nil
}

func isSyntaxChar(c rune) bool {
	switch c {
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/':
		return true
	}
	return false
}

func (p *reParser) atomEscape() (*reNode, bool, error) {
	p.pos++ // backslash
	c, ok := p.peek()
	if !ok {
		return nil, false, errors.New(`\ at end of pattern`)
	}
	switch c {
	case 'b':
		p.pos++
		return &reNode{kind: reWordB}, false, nil
	case 'B':
		p.pos++
		return &reNode{kind: reNotWordB}, false, nil
	case 'd', 'D', 's', 'S', 'w', 'W':
		p.pos++
		return &reNode{kind: reClass, cls: &charClass{escs: []rune{c}}}, true, nil
	case 'p', 'P':
		if p.unicode {
			t, err := p.property()
			if err != nil {
				return nil, false, err
			}
			cls := &charClass{}
			if c == 'p' {
				cls.tables = []*unicode.RangeTable{t}
			} else {
				cls.ntable = []*unicode.RangeTable{t}
			}
			return &reNode{kind: reClass, cls: cls}, true, nil
		}
	}
	r, err := p.characterEscape(false)
	if err != nil {
		return nil, false, err
	}
	return &reNode{kind: reChar, ch: r}, true, nil
}

// characterEscape reads the escape after a backslash (p.pos at the escaped character).
func (p *reParser) characterEscape(inClass bool) (rune, error) {
	c := p.src[p.pos]
	p.pos++
	switch c {
	case 't':
		return '\t', nil
	case 'n':
		return '\n', nil
	case 'v':
		return '\v', nil
	case 'f':
		return '\f', nil
	case 'r':
		return '\r', nil
	case '0':
		if n, ok := p.peek(); !ok || n < '0' || n > '9' {
			return 0, nil
		}
		if p.unicode {
			return 0, errors.New("invalid decimal escape")
		}
		return p.legacyOctal(0), nil
	case 'x':
		if v, ok := p.hex(2); ok {
			return v, nil
		}
		if p.unicode {
			return 0, errors.New("invalid escape")
		}
		return 'x', nil
	case 'u':
		if p.unicode {
			if n, ok := p.peek(); ok && n == '{' {
				save := p.pos
				p.pos++
				v := rune(0)
				digits := 0
				for p.pos < len(p.src) && isHex(p.src[p.pos]) {
					v = v*16 + hexVal(p.src[p.pos])
					if v > 0x10FFFF {
						return 0, errors.New("invalid unicode escape")
					}
					p.pos++
					digits++
				}
				if digits > 0 && p.pos < len(p.src) && p.src[p.pos] == '}' {
					p.pos++
					return v, nil
				}
				p.pos = save
				return 0, errors.New("invalid unicode escape")
			}
		}
		if v, ok := p.hex(4); ok {
			if p.unicode && v >= 0xD800 && v <= 0xDBFF && p.pos+5 < len(p.src) && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
				save := p.pos
				p.pos += 2
				if lo, ok := p.hex(4); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					return utf16.DecodeRune(v, lo), nil
				}
				p.pos = save
			}
			return v, nil
		}
		if p.unicode {
			return 0, errors.New("invalid unicode escape")
		}
		return 'u', nil
	case 'c':
		if n, ok := p.peek(); ok && (n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z') {
			p.pos++
			return n % 32, nil
		}
		if p.unicode {
			return 0, errors.New("invalid unicode escape")
		}
		p.pos-- // the backslash stands for itself
		return '\\', nil
	case 'b':
		if inClass {
			return '\b', nil
		}
	case '-':
		if inClass {
			return '-', nil
		}
	}
	if c >= '1' && c <= '9' {
		if p.unicode {
			return 0, errors.New("invalid escape")
		}
		if c <= '7' {
			return p.legacyOctal(c - '0'), nil
		}
		return c, nil
	}
	if p.unicode && !isSyntaxChar(c) {
		return 0, errors.New("invalid escape")
	}
	return c, nil
}

func (p *reParser) legacyOctal(first rune) rune {
	v := first
	for n := 0; n < 2 && p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '7'; n++ {
		next := v*8 + (p.src[p.pos] - '0')
		if next > 0377 {
			break
		}
		v = next
		p.pos++
	}
	return v
}

func isHex(c rune) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c rune) rune {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func (p *reParser) hex(n int) (rune, bool) {
	if p.pos+n > len(p.src) {
		return 0, false
	}
	v := rune(0)
	for i := 0; i < n; i++ {
		c := p.src[p.pos+i]
		if !isHex(c) {
			return 0, false
		}
		v = v*16 + hexVal(c)
	}
	p.pos += n
	return v, true
}

// property reads {Name} or {Name=Value} after \p.
func (p *reParser) property() (*unicode.RangeTable, error) {
	p.pos++ // p or P
	if c, ok := p.peek(); !ok || c != '{' {
		return nil, errors.New("invalid property name")
	}
	p.pos++
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] != '}' {
		p.pos++
	}
	if p.pos >= len(p.src) {
		return nil, errors.New("invalid property name")
	}
	name := string(p.src[start:p.pos])
	p.pos++
	if t := unicodeProperty(name); t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("invalid property name %q", name)
}

var propertyAliases = map[string]string{
	"Letter": "L", "Lowercase_Letter": "Ll", "Uppercase_Letter": "Lu", "Titlecase_Letter": "Lt",
	"Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Number": "N",
	"Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Separator": "Z",
	"Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C",
	"Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Symbol": "S", "Math_Symbol": "Sm",
	"Currency_Symbol": "Sc",
}

func unicodeProperty(name string) *unicode.RangeTable {
	if k, v, ok := cutEq(name); ok {
		switch k {
		case "General_Category", "gc":
			name = v
		case "Script", "sc", "Script_Extensions", "scx":
			return unicode.Scripts[v]
		default:
			return nil
		}
	}
	if a, ok := propertyAliases[name]; ok {
		name = a
	}
	if t, ok := unicode.Categories[name]; ok {
		return t
	}
	if t, ok := unicode.Properties[name]; ok {
		return t
	}
	return nil
}

func cutEq(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// class parses [ ... ] starting at '['.
func (p *reParser) class() (*charClass, error) {
	p.pos++
	cls := &charClass{}
	if c, ok := p.peek(); ok && c == '^' {
		cls.negate = true
		p.pos++
	}
	for {
		c, ok := p.peek()
		if !ok {
			return nil, errors.New("unterminated character class")
		}
		if c == ']' {
			p.pos++
			return cls, nil
		}
		lo, loSet, err := p.classAtom(cls)
		if err != nil {
			return nil, err
		}
		if c2, ok := p.peek(); ok && c2 == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
			p.pos++ // -
			var tmp charClass
			hi, hiSet, err := p.classAtom(&tmp)
			if err != nil {
				return nil, err
			}
			if !loSet || !hiSet {
				if p.unicode {
					return nil, errors.New("invalid character class")
				}
				// Annex B: a class escape on either side makes the dash literal.
				cls.escs = append(cls.escs, tmp.escs...)
				cls.tables = append(cls.tables, tmp.tables...)
				cls.ntable = append(cls.ntable, tmp.ntable...)
				if loSet {
					cls.ranges = append(cls.ranges, classRange{lo, lo})
				}
				cls.ranges = append(cls.ranges, classRange{'-', '-'})
				if hiSet {
					cls.ranges = append(cls.ranges, classRange{hi, hi})
				}
				continue
			}
			if hi < lo {
				return nil, errors.New("range out of order in character class")
			}
			cls.ranges = append(cls.ranges, classRange{lo, hi})
			continue
		}
		if loSet {
			cls.ranges = append(cls.ranges, classRange{lo, lo})
		}
	}
}

// classAtom reads one class member; a class escape (\d, \p{…}) is added to cls directly and
// reported with set=false.
func (p *reParser) classAtom(cls *charClass) (r rune, set bool, err error) {
	c := p.src[p.pos]
	if c != '\\' {
		p.pos++
		return c, true, nil
	}
	p.pos++
	n, ok := p.peek()
	if !ok {
		return 0, false, errors.New(`\ at end of pattern`)
	}
	switch n {
	case 'd', 'D', 's', 'S', 'w', 'W':
		p.pos++
		cls.escs = append(cls.escs, n)
		return 0, false, nil
	case 'p', 'P':
		if p.unicode {
			t, err := p.property()
			if err != nil {
				return 0, false, err
			}
			if n == 'p' {
				cls.tables = append(cls.tables, t)
			} else {
				cls.ntable = append(cls.ntable, t)
			}
			return 0, false, nil
		}
	}
	if !p.unicode && n == 'c' {
		// Annex B: \c followed by a digit or _ inside a class is a control character.
		if p.pos+1 < len(p.src) {
			d := p.src[p.pos+1]
			if d >= '0' && d <= '9' || d == '_' {
				p.pos += 2
				return d % 32, true, nil
			}
		}
	}
	r, err = p.characterEscape(true)
	return r, err == nil, err
}

// --- matching ---

type reMatcher struct {
	re    *jsRegexp
	in    []rune
	steps int
	out   bool // budget exhausted
}

func (re *jsRegexp) subject(s string) []rune {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		rs := make([]rune, len(s))
		for i := 0; i < len(s); i++ {
			rs[i] = rune(s[i])
		}
		return rs
	}
	if re.unicode {
		return []rune(s)
	}
	us := utf16.Encode([]rune(s))
	rs := make([]rune, len(us))
	for i, u := range us {
		rs[i] = rune(u)
	}
	return rs
}

// test is RegExp.prototype.test: a match starting anywhere.
func (re *jsRegexp) test(s string) bool {
	if re.hasLit {
		return re.testLiteral(s)
	}
	m := &reMatcher{re: re, in: re.subject(s)}
	accept := func(int) bool { return true }
	for start := 0; start <= len(m.in); start++ {
		if m.match(re.root, start, accept) {
			return true
		}
		if m.out || re.anchorS {
			return false
		}
	}
	return false
}

func (m *reMatcher) match(n *reNode, i int, k func(int) bool) bool {
	m.steps++
	if m.steps > stepBudget {
		m.out = true
	}
	if m.out {
		return false
	}
	switch n.kind {
	case reEmpty:
		return k(i)
	case reChar:
		if i < len(m.in) && m.eqChar(n.ch, m.in[i]) {
			return k(i + 1)
		}
		return false
	case reAny:
		if i < len(m.in) && !isLineTerminator(m.in[i]) {
			return k(i + 1)
		}
		return false
	case reClass:
		if i < len(m.in) && m.classMatch(n.cls, m.in[i]) {
			return k(i + 1)
		}
		return false
	case reSeq:
		return m.seq(n.subs, 0, i, k)
	case reAlt:
		for _, b := range n.subs {
			if m.match(b, i, k) {
				return true
			}
			if m.out {
				return false
			}
		}
		return false
	case reGroup:
		return m.match(n.body, i, k)
	case reLook:
		found := m.match(n.body, i, func(int) bool { return true })
		if m.out {
			return false
		}
		if found == n.neg {
			return false
		}
		return k(i)
	case reBOL:
		return i == 0 && k(i)
	case reEOL:
		return i == len(m.in) && k(i)
	case reWordB, reNotWordB:
		a := i > 0 && isWordChar(m.in[i-1])
		b := i < len(m.in) && isWordChar(m.in[i])
		if (a != b) == (n.kind == reWordB) {
			return k(i)
		}
		return false
	case reRepeat:
		return m.repeat(n, 0, i, k)
	}
	return false
}

func (m *reMatcher) seq(items []*reNode, idx, i int, k func(int) bool) bool {
	if idx == len(items) {
		return k(i)
	}
	return m.match(items[idx], i, func(j int) bool { return m.seq(items, idx+1, j, k) })
}

func (m *reMatcher) repeat(n *reNode, count, i int, k func(int) bool) bool {
	if count < n.min {
		return m.match(n.body, i, func(j int) bool {
			return m.repeat(n, count+1, j, k)
		})
	}
	more := func() bool {
		if n.max >= 0 && count >= n.max {
			return false
		}
		return m.match(n.body, i, func(j int) bool {
			if j == i {
				return false // an empty iteration past the minimum fails, as in JavaScript
			}
			return m.repeat(n, count+1, j, k)
		})
	}
	if n.greedy {
		if more() {
			return true
		}
		return !m.out && k(i)
	}
	if k(i) {
		return true
	}
	return !m.out && more()
}

func isWordChar(c rune) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// canonicalize is the Canonicalize operation of the i flag without u: the single-character
// upper case, unless that maps a non-ASCII character to ASCII.
func canonicalize(c rune) rune {
	if c >= 0xD800 && c <= 0xDFFF {
		return c
	}
	u := unicode.ToUpper(c)
	if c >= 128 && u < 128 {
		return c
	}
	if u > 0xFFFF {
		return c
	}
	return u
}

func (m *reMatcher) eqChar(pc, c rune) bool {
	if pc == c {
		return true
	}
	if !m.re.icase {
		return false
	}
	if m.re.unicode {
		return sameFold(pc, c)
	}
	return canonicalize(pc) == canonicalize(c)
}

func sameFold(a, b rune) bool {
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

func (m *reMatcher) classMatch(cl *charClass, c rune) bool {
	found := cl.has(c)
	if !found && m.re.icase {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if !m.re.unicode && canonicalize(f) != canonicalize(c) {
				continue
			}
			if cl.has(f) {
				found = true
				break
			}
		}
	}
	return found != cl.negate
}

func (cl *charClass) has(c rune) bool {
	for _, r := range cl.ranges {
		if c >= r.lo && c <= r.hi {
			return true
		}
	}
	for _, t := range cl.tables {
		if unicode.Is(t, c) {
			return true
		}
	}
	for _, t := range cl.ntable {
		if !unicode.Is(t, c) {
			return true
		}
	}
	for _, e := range cl.escs {
		var in bool
		switch e {
		case 'd', 'D':
			in = c >= '0' && c <= '9'
		case 's', 'S':
			in = IsJSWhitespace(c)
		case 'w', 'W':
			in = isWordChar(c)
		}
		if in == (e == 'd' || e == 's' || e == 'w') {
			return true
		}
	}
	return false
}
