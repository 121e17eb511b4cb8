// Package jsregexp is ECMAScript's RegExp, for the two places plaios must read a regular
// expression exactly as JavaScript does: JSON Schema patterns (Ajv compiles `pattern` and
// patternProperties keys with `new RegExp(source, "u")`, ajv-formats checks formats with
// `new RegExp(source)`) and the expressions minimatch builds from npm's ignore rules (with the
// i and u flags). Go's regexp package (RE2) has another syntax (no lookaround, no
// backreferences, other escapes) and other meanings (\s, ., $), and no library reads
// ECMAScript's syntax with V8's errors, so the syntax is parsed here as ECMAScript 2023 defines
// it (Annex B when the u flag is absent), refusing what V8 refuses with V8's message, and
// matching is a backtracking matcher as V8's is, bounded by a step budget so that a hostile
// pattern cannot hang the caller. Without the u flag, patterns and subjects are sequences of
// UTF-16 code units, as in JavaScript. The tests hold it to V8 (node's `new RegExp`).
package jsregexp

import (
	"fmt"
	"strings"
	"unicode/utf16"
)

// Regexp is a compiled JavaScript regular expression. It is safe for concurrent use.
type Regexp struct {
	source     string
	flags      string
	unicode    bool // u flag
	ignoreCase bool // i flag
	multiline  bool // m flag
	root       *reAlt
	ngroups    int

	// anchored is set when every alternative starts with ^ outside multiline mode: a match
	// can then only start at 0.
	anchored bool
	// lit is set when the expression is ^literal$ over ASCII without the u flag: a test is then
	// a (case-insensitive) comparison, which is what most ignore rules come down to.
	lit    []byte
	hasLit bool
}

// StepBudget bounds the work of one match; a match that needs more is taken as not matching.
const StepBudget = 2_000_000

// SyntaxError is a pattern `new RegExp` refuses; its message is V8's ("Invalid regular
// expression: /(/: Unterminated group").
type SyntaxError struct {
	Source string
	Flags  string
	Msg    string // V8's reason, such as "Unterminated group"
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("Invalid regular expression: /%s/%s: %s", e.Source, e.Flags, e.Msg)
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

// Compile parses source as `new RegExp(source, flags)` does; flags may hold u, i, m and g (g
// changes nothing for MatchString, which always starts at the beginning as test does with
// lastIndex 0). The error is a *SyntaxError.
func Compile(source, flags string) (*Regexp, error) {
	unicode := strings.Contains(flags, "u")
	p := &reParser{u: unicode, i: strings.Contains(flags, "i"), source: source, flags: flags}
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
	re := &Regexp{source: source, flags: flags, unicode: unicode, ignoreCase: strings.Contains(flags, "i"),
		multiline: strings.Contains(flags, "m"), root: root, ngroups: p.ngroups}
	re.anchored = !re.multiline && startsAnchored(root)
	re.lit, re.hasLit = asciiLiteral(root, unicode, re.multiline)
	return re, nil
}

// String returns the source text, as RegExp.prototype.source does.
func (re *Regexp) String() string { return re.source }

// startsAnchored reports whether every alternative of a begins with ^.
func startsAnchored(a *reAlt) bool {
	if len(a.alts) == 0 {
		return false
	}
	for _, s := range a.alts {
		if len(s.terms) == 0 {
			return false
		}
		switch t := s.terms[0].(type) {
		case *reAssert:
			if t.kind != '^' {
				return false
			}
		case *reGroup:
			if !startsAnchored(t.body) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// asciiLiteral recognizes ^c1c2…cn$ where every c is an ASCII character.
func asciiLiteral(a *reAlt, unicode, multiline bool) ([]byte, bool) {
	if unicode || multiline || len(a.alts) != 1 {
		return nil, false
	}
	terms := a.alts[0].terms
	if len(terms) < 2 {
		return nil, false
	}
	if first, ok := terms[0].(*reAssert); !ok || first.kind != '^' {
		return nil, false
	}
	if last, ok := terms[len(terms)-1].(*reAssert); !ok || last.kind != '$' {
		return nil, false
	}
	lit := make([]byte, 0, len(terms)-2)
	for _, t := range terms[1 : len(terms)-1] {
		c, ok := t.(*reChar)
		if !ok || c.c >= 0x80 {
			return nil, false
		}
		lit = append(lit, byte(c.c))
	}
	return lit, true
}
