package minimatch

import (
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
