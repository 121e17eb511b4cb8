package jsregexp

import (
	"unicode"
	"unicode/utf16"
)

// MatchString is RegExp.prototype.test with lastIndex 0: is there a match anywhere in s? A
// match that would take more than StepBudget steps is reported as no match.
func (re *Regexp) MatchString(s string) (matched bool) {
	if re.hasLit {
		return re.testLiteral(s)
	}
	in := re.subject(s)
	m := &reMatcher{re: re, in: in, caps: make([]int, 2*(re.ngroups+1))}
	defer func() {
		if r := recover(); r != nil {
			if r != errReBudget {
				panic(r)
			}
			matched = false
		}
	}()
	last := len(in)
	if re.anchored {
		last = 0
	}
	for start := 0; start <= last; start++ {
		for i := range m.caps {
			m.caps[i] = -1
		}
		if m.alt(re.root, start, 1, func(int) bool { return true }) {
			return true
		}
	}
	return false
}

// subject is s as the matcher reads it: code points with the u flag, else UTF-16 code units.
func (re *Regexp) subject(s string) []rune {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		in := make([]rune, len(s))
		for i := 0; i < len(s); i++ {
			in[i] = rune(s[i])
		}
		return in
	}
	if re.unicode {
		return []rune(s)
	}
	units := utf16.Encode([]rune(s))
	in := make([]rune, len(units))
	for i, u := range units {
		in[i] = rune(u)
	}
	return in
}

// testLiteral compares s with an ASCII literal. Without the u flag no non-ASCII character
// canonicalizes to an ASCII one, so a non-ASCII byte never matches.
func (re *Regexp) testLiteral(s string) bool {
	if len(s) != len(re.lit) {
		return false
	}
	for i := 0; i < len(s); i++ {
		a, b := s[i], re.lit[i]
		if a >= 0x80 {
			return false
		}
		if a != b && (!re.ignoreCase || asciiUpper(a) != asciiUpper(b)) {
			return false
		}
	}
	return true
}

func asciiUpper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 32
	}
	return c
}

var errReBudget = &struct{ s string }{"regular expression step budget exceeded"}

type reMatcher struct {
	re    *Regexp
	in    []rune
	caps  []int
	steps int
}

func (m *reMatcher) step() {
	m.steps++
	if m.steps > StepBudget {
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
			return (pos == 0 || m.re.multiline && IsLineTerminator(m.in[pos-1])) && k(pos)
		case '$':
			return (pos == len(m.in) || m.re.multiline && IsLineTerminator(m.in[pos])) && k(pos)
		}
		word := isWordChar
		if m.re.unicode && m.re.ignoreCase {
			word = isWordCharUnicodeIgnoreCase
		}
		a := pos > 0 && word(m.in[pos-1])
		b := pos < len(m.in) && word(m.in[pos])
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
	if c >= 128 && u < 128 || u > 0xFFFF {
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
