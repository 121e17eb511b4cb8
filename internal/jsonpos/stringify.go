package jsonpos

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AppendJSString appends s quoted as JavaScript's JSON.stringify quotes it: '"', '\\' and
// control characters escaped, everything else (U+2028 and U+2029 included) written as is. A
// byte that is not UTF-8 (which a JavaScript string cannot hold) is written as \u00XX.
func AppendJSString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b = append(b, '\\', '"')
		case r == '\\':
			b = append(b, '\\', '\\')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
		case r == utf8.RuneError && size == 1:
			c := s[i]
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// FormatJSNumber prints a number as JSON.stringify writes it: as Number#toString does, with
// NaN and the infinities written as null.
func FormatJSNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	return JSNumberString(f)
}

// JSNumberString is JavaScript's Number#toString (what `"" + n` writes): integers without a
// fraction, exponents from 1e21 and below 1e-6, "NaN", "Infinity" and "-Infinity".
func JSNumberString(f float64) string {
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
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // Go writes 1.5e-07; JavaScript 1.5e-7
	mant, exp, _ := strings.Cut(s, "e")
	digits := strings.TrimLeft(exp[1:], "0")
	if digits == "" {
		digits = "0"
	}
	return mant + "e" + exp[:1] + digits
}
