package jsregexp

import (
	"strings"
	"unicode/utf16"
)

type reParser struct {
	flags     string
	source    string
	src       []rune
	pos       int
	u         bool // u flag
	i         bool // i flag
	ngroups   int
	total     int // capturing groups in the whole pattern
	hasNamed  bool
	names     map[string]int
	namedRefs []*reBackref
}

func (p *reParser) err(msg string) error {
	return &SyntaxError{Source: p.source, Flags: p.flags, Msg: msg}
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
			atom = &reSet{match: func(r rune) bool { return !IsLineTerminator(r) }}
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

// groupBody parses a group's disjunction and its closing parenthesis.
func (p *reParser) groupBody(depth int) (*reAlt, error) {
	body, err := p.parseDisjunction(depth + 1)
	if err != nil {
		return nil, err
	}
	if p.peek() != ')' {
		return nil, p.err("Unterminated group")
	}
	p.pos++
	return body, nil
}

func (p *reParser) parseGroup(depth int) (reNode, bool, error) {
	p.pos++ // (
	if p.peek() != '?' {
		p.ngroups++
		idx := p.ngroups
		body, err := p.groupBody(depth)
		if err != nil {
			return nil, false, err
		}
		return &reGroup{idx: idx, body: body}, true, nil
	}
	p.pos++ // ?
	switch p.peek() {
	case ':':
		p.pos++
		body, err := p.groupBody(depth)
		if err != nil {
			return nil, false, err
		}
		return &reGroup{body: body}, true, nil
	case '=', '!':
		neg := p.peek() == '!'
		p.pos++
		body, err := p.groupBody(depth)
		if err != nil {
			return nil, false, err
		}
		return &reLook{neg: neg, body: body}, !p.u, nil
	case '<':
		if n := p.peekAt(1); n == '=' || n == '!' {
			p.pos += 2
			body, err := p.groupBody(depth)
			if err != nil {
				return nil, false, err
			}
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
		body, err := p.groupBody(depth)
		if err != nil {
			return nil, false, err
		}
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
		f = IsSpace
	case 'S':
		f = func(r rune) bool { return !IsSpace(r) }
	case 'w':
		f = isWordChar
		if p.u && p.i {
			f = isWordCharUnicodeIgnoreCase
		}
	case 'W':
		word := isWordChar
		if p.u && p.i {
			word = isWordCharUnicodeIgnoreCase
		}
		f = func(r rune) bool { return !word(r) }
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
