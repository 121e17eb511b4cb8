package jsonpos

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Stringify writes v as JSON.stringify(v, null, indent) does: indent "" gives the compact
// form, "  " the two-space layout package.json files and openclaw.plugin.json use. It writes
// no final newline. See Stringifier for the values it takes.
func Stringify(v any, indent string) []byte {
	return Stringifier{Indent: indent}.Append(nil, v, "")
}

// Stringifier is plaios's one JSON.stringify: every file plaios writes as JavaScript would
// (openclaw.plugin.json, registry.json, the values spliced into package.json) and every value
// it quotes in a message goes through it.
//
// It takes nil (null), bool, string, float64, int, json.Number (written as JavaScript prints
// the number it spells; NaN and the infinities as null, as JSON.stringify does), []any,
// *OrderedObject (keys in JavaScript's enumeration order) and *Value (as JSON.parse then
// JSON.stringify would write it: a duplicated key in its first place with its last value,
// array-index keys first). Any other Go value is written as encoding/json writes it.
type Stringifier struct {
	Indent  string // the gap: "" for the compact form
	Newline string // the line break of an indented layout; "" means "\n"
}

// Append appends v to b, nested at prefix (the indentation of the line v starts on).
func (s Stringifier) Append(b []byte, v any, prefix string) []byte {
	if s.Indent != "" && s.Newline == "" {
		s.Newline = "\n"
	}
	return s.value(b, v, prefix)
}

func (s Stringifier) value(b []byte, v any, prefix string) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return AppendJSString(b, x)
	case float64:
		return append(b, FormatJSNumber(x)...)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !isRangeError(err) {
			return append(b, x...)
		}
		return append(b, FormatJSNumber(f)...)
	case []any:
		return s.list(b, len(x), prefix, func(b []byte, i int, inner string) []byte { return s.value(b, x[i], inner) })
	case *OrderedObject:
		keys := x.JSKeys()
		return s.members(b, keys, prefix, func(b []byte, i int, inner string) []byte { return s.value(b, x.vals[keys[i]], inner) })
	case *Value:
		return s.parsed(b, x, prefix)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, data...)
}

// parsed writes a parsed value as JSON.stringify(JSON.parse(text)) would.
func (s Stringifier) parsed(b []byte, v *Value, prefix string) []byte {
	switch v.Kind {
	case Null:
		return append(b, "null"...)
	case Bool:
		return strconv.AppendBool(b, v.Boolean)
	case Number:
		return append(b, FormatJSNumber(v.Float())...)
	case String:
		return AppendJSString(b, v.Str)
	case Array:
		return s.list(b, len(v.Items), prefix, func(b []byte, i int, inner string) []byte { return s.parsed(b, v.Items[i], inner) })
	}
	var keys []string
	last := make(map[string]*Value, len(v.Members))
	for _, m := range v.Members {
		if _, seen := last[m.Key]; !seen {
			keys = append(keys, m.Key)
		}
		last[m.Key] = m.Value
	}
	keys = jsKeyOrder(keys)
	return s.members(b, keys, prefix, func(b []byte, i int, inner string) []byte { return s.parsed(b, last[keys[i]], inner) })
}

// list writes n items, each by item, between brackets.
func (s Stringifier) list(b []byte, n int, prefix string, item func(b []byte, i int, inner string) []byte) []byte {
	if n == 0 {
		return append(b, "[]"...)
	}
	inner := prefix + s.Indent
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		if s.Indent != "" {
			b = append(b, s.Newline...)
			b = append(b, inner...)
		}
		b = item(b, i, inner)
	}
	if s.Indent != "" {
		b = append(b, s.Newline...)
		b = append(b, prefix...)
	}
	return append(b, ']')
}

// members writes the keys and, by value, their values between braces.
func (s Stringifier) members(b []byte, keys []string, prefix string, value func(b []byte, i int, inner string) []byte) []byte {
	if len(keys) == 0 {
		return append(b, "{}"...)
	}
	inner := prefix + s.Indent
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		if s.Indent != "" {
			b = append(b, s.Newline...)
			b = append(b, inner...)
		}
		b = AppendJSString(b, k)
		b = append(b, ':')
		if s.Indent != "" {
			b = append(b, ' ')
		}
		b = value(b, i, inner)
	}
	if s.Indent != "" {
		b = append(b, s.Newline...)
		b = append(b, prefix...)
	}
	return append(b, '}')
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

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
