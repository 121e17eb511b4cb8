package minimatch

import (
	"math"
	"strconv"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/jsregexp"
)

// This file ports brace-expansion 5.0.9 and balanced-match 3 (the versions npm 11 bundles), so
// that `{a,b}`, `{1..3}` and their odd corners expand exactly as they do for npm.

const (
	expansionMax       = 100_000
	expansionMaxLength = 4_000_000
)

// Placeholders for escaped brace syntax. brace-expansion uses NUL-delimited random tokens; these
// are NUL-delimited fixed tokens, which no ignore line or path can contain in practice.
const (
	escSlash  = "\x00SLASH\x00"
	escOpen   = "\x00OPEN\x00"
	escClose  = "\x00CLOSE\x00"
	escComma  = "\x00COMMA\x00"
	escPeriod = "\x00PERIOD\x00"
)

// hasBraceSet reports whether pattern matches /\{(?:(?!\{).)*\}/: a "{" followed, with no other
// "{" or line terminator in between, by a "}". Minimatch skips expansion otherwise.
func hasBraceSet(pattern string) bool {
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		if rs[i] != '{' {
			continue
		}
		for j := i + 1; j < len(rs); j++ {
			if rs[j] == '}' {
				return true
			}
			if rs[j] == '{' || jsregexp.IsLineTerminator(rs[j]) {
				break
			}
		}
	}
	return false
}

// braceExpand is minimatch's braceExpand with default options.
func braceExpand(pattern string) []string {
	if !hasBraceSet(pattern) {
		return []string{pattern}
	}
	return expandBraces(pattern)
}

func expandBraces(str string) []string {
	if str == "" {
		return nil
	}
	if strings.HasPrefix(str, "{}") {
		str = `\{\}` + str[2:]
	}
	out := expandInner(escapeBraces(str), true)
	for i, s := range out {
		out[i] = unescapeBraces(s)
	}
	return out
}

func escapeBraces(s string) string {
	s = strings.ReplaceAll(s, `\\`, escSlash)
	s = strings.ReplaceAll(s, `\{`, escOpen)
	s = strings.ReplaceAll(s, `\}`, escClose)
	s = strings.ReplaceAll(s, `\,`, escComma)
	s = strings.ReplaceAll(s, `\.`, escPeriod)
	return s
}

func unescapeBraces(s string) string {
	s = strings.ReplaceAll(s, escSlash, `\`)
	s = strings.ReplaceAll(s, escOpen, "{")
	s = strings.ReplaceAll(s, escClose, "}")
	s = strings.ReplaceAll(s, escComma, ",")
	s = strings.ReplaceAll(s, escPeriod, ".")
	return s
}

type balancedMatch struct {
	pre, body, post string
}

// balanced is balanced-match's balanced('{', '}', str).
func balanced(str string) (balancedMatch, bool) {
	r, ok := braceRange(str)
	if !ok {
		return balancedMatch{}, false
	}
	return balancedMatch{pre: str[:r[0]], body: str[r[0]+1 : r[1]], post: str[r[1]+1:]}, true
}

func indexFrom(s string, b byte, from int) int {
	if from > len(s) {
		return -1
	}
	if from < 0 {
		from = 0
	}
	i := strings.IndexByte(s[from:], b)
	if i < 0 {
		return -1
	}
	return i + from
}

// braceRange is balanced-match's range('{', '}', str).
func braceRange(str string) ([2]int, bool) {
	ai := strings.IndexByte(str, '{')
	bi := indexFrom(str, '}', ai+1)
	i := ai
	if !(ai >= 0 && bi > 0) {
		return [2]int{}, false
	}
	var begs []int
	left := len(str)
	right := -1
	var result [2]int
	found := false
	for i >= 0 && !found {
		if i == ai {
			begs = append(begs, i)
			ai = indexFrom(str, '{', i+1)
		} else if len(begs) == 1 {
			r := begs[len(begs)-1]
			begs = begs[:len(begs)-1]
			result = [2]int{r, bi}
			found = true
		} else {
			if len(begs) > 0 {
				beg := begs[len(begs)-1]
				begs = begs[:len(begs)-1]
				if beg < left {
					left = beg
					right = bi
				}
			}
			bi = indexFrom(str, '}', i+1)
		}
		if ai < bi && ai >= 0 {
			i = ai
		} else {
			i = bi
		}
	}
	if len(begs) > 0 && right >= 0 {
		result = [2]int{left, right}
		found = true
	}
	return result, found
}

func parseCommaParts(str string) []string {
	if str == "" {
		return []string{""}
	}
	m, ok := balanced(str)
	if !ok {
		return strings.Split(str, ",")
	}
	p := strings.Split(m.pre, ",")
	p[len(p)-1] += "{" + m.body + "}"
	postParts := parseCommaParts(m.post)
	if len(m.post) > 0 {
		p[len(p)-1] += postParts[0]
		p = append(p, postParts[1:]...)
	}
	return p
}

func combine(acc []string, pre string, values []string, dropEmpties bool) []string {
	var out []string
	length := 0
	for _, a := range acc {
		for _, v := range values {
			if len(out) >= expansionMax {
				return out
			}
			e := a + pre + v
			if dropEmpties && e == "" {
				continue
			}
			n := utf16Len(e)
			if length+n > expansionMaxLength {
				return out
			}
			out = append(out, e)
			length += n
		}
	}
	return out
}

var noValues = []string{""}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isSignedInt matches -?\d+.
func isSignedInt(s string) bool {
	return isDigits(strings.TrimPrefix(s, "-"))
}

// isNumericSequence matches /^-?\d+\.\.-?\d+(?:\.\.-?\d+)?$/.
func isNumericSequence(body string) bool {
	parts := strings.Split(body, "..")
	if len(parts) != 2 && len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if !isSignedInt(p) {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isAlphaSequence matches /^[a-zA-Z]\.\.[a-zA-Z](?:\.\.-?\d+)?$/.
func isAlphaSequence(body string) bool {
	if len(body) < 4 || !isASCIILetter(body[0]) || body[1:3] != ".." || !isASCIILetter(body[3]) {
		return false
	}
	rest := body[4:]
	if rest == "" {
		return true
	}
	return strings.HasPrefix(rest, "..") && isSignedInt(rest[2:])
}

// numeric is brace-expansion's numeric(): parseInt for the numeric bodies a sequence can hold
// (optionally signed digits), else the first UTF-16 code unit (the letters of {a..e}).
func numeric(s string) float64 {
	if !isSignedInt(s) {
		u := toUTF16(s)
		if len(u) == 0 {
			return math.NaN()
		}
		return float64(u[0])
	}
	neg := strings.HasPrefix(s, "-")
	f, _ := strconv.ParseFloat(strings.TrimPrefix(s, "-"), 64)
	if neg {
		f = -f
	}
	return f
}

func isPadded(el string) bool {
	s := strings.TrimPrefix(el, "-")
	return len(s) >= 2 && s[0] == '0' && s[1] >= '0' && s[1] <= '9'
}

func expandSequence(body string, alpha bool) []string {
	n := strings.Split(body, "..")
	var out []string
	x := numeric(n[0])
	y := numeric(n[1])
	width := max(utf16Len(n[0]), utf16Len(n[1]))
	incr := 1.0
	if len(n) == 3 {
		incr = math.Max(math.Abs(numeric(n[2])), 1)
	}
	reverse := y < x
	if reverse {
		incr = -incr
	}
	test := func(i float64) bool {
		if reverse {
			return i >= y
		}
		return i <= y
	}
	pad := false
	for _, s := range n {
		if isPadded(s) {
			pad = true
		}
	}
	length := 0
	for i := x; test(i) && len(out) < expansionMax; i += incr {
		var c string
		if alpha {
			c = string(rune(uint16(int64(i))))
			if c == `\` {
				c = ""
			}
		} else {
			c = jsonpos.JSNumberString(i)
			if pad {
				need := width - utf16Len(c)
				if need > 0 {
					z := strings.Repeat("0", need)
					if i < 0 {
						c = "-" + z + c[1:]
					} else {
						c = z + c
					}
				}
			}
		}
		n := utf16Len(c)
		if length+n > expansionMaxLength {
			break
		}
		out = append(out, c)
		length += n
	}
	return out
}

// postHasCommaGroup matches m.post against /,(?!,).*\}/.
func postHasCommaGroup(post string) bool {
	rs := []rune(post)
	for i, r := range rs {
		if r != ',' || (i+1 < len(rs) && rs[i+1] == ',') {
			continue
		}
		for j := i + 1; j < len(rs); j++ {
			if rs[j] == '}' {
				return true
			}
			if jsregexp.IsLineTerminator(rs[j]) {
				break
			}
		}
	}
	return false
}

func expandInner(str string, isTop bool) []string {
	acc := []string{""}
	dropEmpties := false
	firstGroup := true
	for {
		m, ok := balanced(str)
		if !ok {
			return combine(acc, str, noValues, dropEmpties)
		}
		pre := m.pre
		if strings.HasSuffix(pre, "$") {
			acc = combine(acc, pre+"{"+m.body+"}", noValues, dropEmpties && m.post == "")
			firstGroup = false
			if m.post == "" {
				break
			}
			str = m.post
			continue
		}
		numSeq := isNumericSequence(m.body)
		alphaSeq := isAlphaSequence(m.body)
		isSequence := numSeq || alphaSeq
		isOptions := strings.Contains(m.body, ",")
		if !isSequence && !isOptions {
			if postHasCommaGroup(m.post) {
				str = m.pre + "{" + m.body + escClose + m.post
				isTop = true
				continue
			}
			return combine(acc, pre+"{"+m.body+"}"+m.post, noValues, dropEmpties)
		}
		if firstGroup {
			dropEmpties = isTop && !isSequence
			firstGroup = false
		}
		var values []string
		if isSequence {
			values = expandSequence(m.body, alphaSeq)
		} else {
			n := parseCommaParts(m.body)
			if len(n) == 1 {
				inner := expandInner(n[0], false)
				n = make([]string, len(inner))
				for i, s := range inner {
					n[i] = "{" + s + "}"
				}
				if len(n) == 1 {
					acc = combine(acc, pre+n[0], noValues, dropEmpties && m.post == "")
					if m.post == "" {
						break
					}
					str = m.post
					continue
				}
			}
			dropsEmpties := dropEmpties && m.post == "" && pre == ""
			for _, a := range acc {
				if a != "" {
					dropsEmpties = false
					break
				}
			}
			valuesLength := 0
		outer:
			for _, part := range n {
				for _, v := range expandInner(part, false) {
					if dropsEmpties && v == "" {
						continue
					}
					if len(values) >= expansionMax || valuesLength+utf16Len(v) > expansionMaxLength {
						break outer
					}
					values = append(values, v)
					valuesLength += utf16Len(v)
				}
			}
		}
		acc = combine(acc, pre, values, dropEmpties && m.post == "")
		if m.post == "" {
			break
		}
		str = m.post
	}
	return acc
}
