package minimatch

import (
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/plaios/plaios/internal/jsregexp"
)

// JavaScript string semantics the port depends on: lengths in UTF-16 code units, the
// whitespace String.prototype.trim removes, the line terminators "." does not match, and
// Number.prototype.toString.

// JSTrim is String.prototype.trim.
func JSTrim(s string) string { return strings.TrimFunc(s, jsregexp.IsSpace) }

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
