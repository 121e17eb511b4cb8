package minimatch

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// JavaScript string semantics the port depends on: lengths in UTF-16 code units, the
// whitespace String.prototype.trim removes, the line terminators "." does not match, and
// Number.prototype.toString.

func isLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'
}

// IsJSWhitespace reports whether r is WhiteSpace or LineTerminator in ECMAScript (what trim
// removes and \s matches).
func IsJSWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

// JSTrim is String.prototype.trim.
func JSTrim(s string) string { return strings.TrimFunc(s, IsJSWhitespace) }

func jsTrim(s string) string { return JSTrim(s) }

func toUTF16(s string) []uint16 { return utf16.Encode([]rune(s)) }

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

// jsLower is String.prototype.toLowerCase for the purposes of suffix tests.
func jsLower(s string) string { return strings.Map(unicode.ToLower, s) }

// jsNumberString is Number.prototype.toString() for a finite or infinite float64.
func jsNumberString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	a := math.Abs(f)
	if a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes 1e+21 and 1.5e-07; JavaScript writes 1e+21 and 1.5e-7.
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		if exp == "" {
			exp = "0"
		}
		return mant + "e" + string(sign) + exp
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
