// Package jsonpos parses JSON (as JSON.parse reads it) and JSON5 (as OpenClaw reads
// openclaw.plugin.json) into a tree that remembers where every value and key stands: byte
// offsets, 1-based lines and 1-based columns counted in characters. Checks need those positions
// to point at the offending value, and release-plan needs the byte spans to rewrite a version
// without touching the rest of a file. encoding/json keeps neither, and no maintained JSON5
// library for Go reports positions, so this one is written here; it is small and fuzzed.
package jsonpos

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the type of a JSON value.
type Kind int

// The kinds of value.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "unknown"
}

// Pos is a place in a file.
type Pos struct {
	Offset int // byte offset from the start of the file
	Line   int // 1-based
	Col    int // 1-based, in characters
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Value is one parsed value with its position.
type Value struct {
	Kind    Kind
	Pos     Pos    // where the value starts
	End     int    // byte offset just after the value
	Str     string // String: the decoded text
	Raw     string // Number: the text as written
	Boolean bool
	Items   []*Value
	Members []*Member
}

// Member is one key of an object.
type Member struct {
	Key    string
	KeyPos Pos
	Value  *Value
}

// Get returns the value of key, or nil. As JSON.parse does, the last of duplicate keys wins.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Member returns the member for key (the last one when duplicated), or nil.
func (v *Value) Member(key string) *Member {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i]
		}
	}
	return nil
}

// Path follows object keys from v and returns the value found, or nil.
func (v *Value) Path(keys ...string) *Value {
	cur := v
	for _, k := range keys {
		cur = cur.Get(k)
		if cur == nil {
			return nil
		}
	}
	return cur
}

// IsString reports whether v is a string value.
func (v *Value) IsString() bool { return v != nil && v.Kind == String }

// Text returns the string value, or "" when v is not a string.
func (v *Value) Text() string {
	if v == nil || v.Kind != String {
		return ""
	}
	return v.Str
}

// Float returns the number as a float64 (JSON5 hex, Infinity and NaN included).
func (v *Value) Float() float64 {
	if v == nil || v.Kind != Number {
		return 0
	}
	return parseNumber(v.Raw)
}

// Interface converts the value to the Go types encoding/json produces (map[string]any,
// []any, float64, string, bool, nil). Duplicate keys keep the last value.
func (v *Value) Interface() any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.Boolean
	case Number:
		return parseNumber(v.Raw)
	case String:
		return v.Str
	case Array:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = it.Interface()
		}
		return out
	case Object:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Key] = m.Value.Interface()
		}
		return out
	}
	return nil
}

// Strings returns the string items of an array (non-strings are skipped).
func (v *Value) Strings() []string {
	if v == nil || v.Kind != Array {
		return nil
	}
	var out []string
	for _, it := range v.Items {
		if it.Kind == String {
			out = append(out, it.Str)
		}
	}
	return out
}

func parseNumber(raw string) float64 {
	s := raw
	neg := false
	if strings.HasPrefix(s, "+") {
		s = s[1:]
	} else if strings.HasPrefix(s, "-") {
		s = s[1:]
		neg = true
	}
	var f float64
	switch {
	case s == "Infinity":
		f = math.Inf(1)
	case s == "NaN":
		f = math.NaN()
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		n, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			f, _ = strconv.ParseFloat("0x"+s[2:]+"p0", 64)
		} else {
			f = float64(n)
		}
	default:
		f, _ = strconv.ParseFloat(s, 64)
	}
	if neg {
		f = -f
	}
	return f
}

// SyntaxError says where a document stops being JSON.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at line %d, column %d", e.Msg, e.Pos.Line, e.Pos.Col)
}

// MaxDepth bounds nesting so that hostile input cannot exhaust the stack.
const MaxDepth = 1000

// Parse reads data as strict JSON (RFC 8259, as JSON.parse does; a leading byte order mark is
// ignored, as npm ignores it).
func Parse(data []byte) (*Value, error) { return parse(data, false) }

// ParseJSON5 reads data as JSON5.
func ParseJSON5(data []byte) (*Value, error) { return parse(data, true) }

func parse(data []byte, json5 bool) (*Value, error) {
	p := &parser{src: data, json5: json5, line: 1, col: 1}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.off = 3
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.off >= len(p.src) {
		return nil, p.errf("empty document: expected a JSON value")
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.off < len(p.src) {
		return nil, p.errf("unexpected %s after the end of the JSON value", p.describe())
	}
	return v, nil
}

type parser struct {
	src   []byte
	off   int
	line  int
	col   int
	json5 bool
}

func (p *parser) pos() Pos { return Pos{Offset: p.off, Line: p.line, Col: p.col} }

func (p *parser) errf(format string, a ...any) error {
	return &SyntaxError{Pos: p.pos(), Msg: fmt.Sprintf(format, a...)}
}

// describe names the character at the current offset for an error message.
func (p *parser) describe() string {
	if p.off >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[p.off:])
	switch {
	case r == utf8.RuneError:
		return "an invalid UTF-8 byte"
	case r == '\n':
		return "a line break"
	case r < 0x20:
		return fmt.Sprintf("control character U+%04X", r)
	}
	return strconv.QuoteRune(r)
}

// advance moves over one character, keeping line and column.
func (p *parser) advance() rune {
	r, size := utf8.DecodeRune(p.src[p.off:])
	p.off += size
	if r == '\n' {
		p.line++
		p.col = 1
	} else if r == '\r' {
		if p.off < len(p.src) && p.src[p.off] == '\n' {
			p.col++
		} else {
			p.line++
			p.col = 1
		}
	} else {
		p.col++
	}
	return r
}

func (p *parser) peek() rune {
	if p.off >= len(p.src) {
		return -1
	}
	r, _ := utf8.DecodeRune(p.src[p.off:])
	return r
}

func isJSON5Space(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x2028, 0x2029, 0xFEFF:
		return true
	}
	return r > 0x7f && (r == 0x1680 || (r >= 0x2000 && r <= 0x200A) || r == 0x202F || r == 0x205F || r == 0x3000)
}

func (p *parser) space() error {
	for p.off < len(p.src) {
		c := p.src[p.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.advance()
		case p.json5 && c == '/' && p.off+1 < len(p.src) && p.src[p.off+1] == '/':
			for p.off < len(p.src) && p.src[p.off] != '\n' && p.src[p.off] != '\r' {
				p.advance()
			}
		case p.json5 && c == '/' && p.off+1 < len(p.src) && p.src[p.off+1] == '*':
			start := p.pos()
			p.advance()
			p.advance()
			closed := false
			for p.off < len(p.src) {
				if p.src[p.off] == '*' && p.off+1 < len(p.src) && p.src[p.off+1] == '/' {
					p.advance()
					p.advance()
					closed = true
					break
				}
				p.advance()
			}
			if !closed {
				return &SyntaxError{Pos: start, Msg: "unterminated /* comment"}
			}
		case p.json5 && c >= 0x80 || p.json5 && (c == '\v' || c == '\f'):
			r := p.peek()
			if !isJSON5Space(r) {
				return nil
			}
			p.advance()
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value(depth int) (*Value, error) {
	if depth > MaxDepth {
		return nil, p.errf("nesting deeper than %d levels", MaxDepth)
	}
	start := p.pos()
	c := p.peek()
	switch {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"' || (p.json5 && c == '\''):
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, Pos: start, End: p.off, Str: s}, nil
	case c == '-' || (c >= '0' && c <= '9') || (p.json5 && (c == '+' || c == '.' || c == 'I' || c == 'N')):
		raw, err := p.number()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: Number, Pos: start, End: p.off, Raw: raw}, nil
	case c == 't':
		if err := p.word("true"); err != nil {
			return nil, err
		}
		return &Value{Kind: Bool, Pos: start, End: p.off, Boolean: true}, nil
	case c == 'f':
		if err := p.word("false"); err != nil {
			return nil, err
		}
		return &Value{Kind: Bool, Pos: start, End: p.off}, nil
	case c == 'n':
		if err := p.word("null"); err != nil {
			return nil, err
		}
		return &Value{Kind: Null, Pos: start, End: p.off}, nil
	}
	return nil, p.errf("unexpected %s: expected a value", p.describe())
}

func (p *parser) word(w string) error {
	start := p.pos()
	if !strings.HasPrefix(string(p.src[p.off:min(len(p.src), p.off+len(w))]), w) {
		return p.errf("unexpected %s: expected a value", p.describe())
	}
	for range w {
		p.advance()
	}
	if p.off < len(p.src) && isIdentPart(p.peek()) {
		return &SyntaxError{Pos: start, Msg: fmt.Sprintf("unexpected word: expected %s", w)}
	}
	return nil
}

func (p *parser) object(depth int) (*Value, error) {
	v := &Value{Kind: Object, Pos: p.pos()}
	p.advance() // {
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.peek() == '}' {
			if len(v.Members) > 0 && !p.json5 {
				return nil, p.errf("unexpected \"}\": expected a key after the comma (trailing commas are not JSON)")
			}
			p.advance()
			v.End = p.off
			return v, nil
		}
		if p.off >= len(p.src) {
			return nil, p.errf("unexpected end of file: expected a key or \"}\"")
		}
		keyPos := p.pos()
		var key string
		var err error
		switch c := p.peek(); {
		case c == '"' || (p.json5 && c == '\''):
			key, err = p.str()
		case p.json5 && (isIdentStart(c) || c == '\\'):
			key, err = p.ident()
		default:
			return nil, p.errf("unexpected %s: expected a key in double quotes", p.describe())
		}
		if err != nil {
			return nil, err
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.peek() != ':' {
			return nil, p.errf("unexpected %s: expected \":\" after the key %q", p.describe(), key)
		}
		p.advance()
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.off >= len(p.src) {
			return nil, p.errf("unexpected end of file: expected the value of %q", key)
		}
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Members = append(v.Members, &Member{Key: key, KeyPos: keyPos, Value: val})
		if err := p.space(); err != nil {
			return nil, err
		}
		switch p.peek() {
		case ',':
			p.advance()
		case '}':
			p.advance()
			v.End = p.off
			return v, nil
		default:
			return nil, p.errf("unexpected %s: expected \",\" or \"}\"", p.describe())
		}
	}
}

func (p *parser) array(depth int) (*Value, error) {
	v := &Value{Kind: Array, Pos: p.pos()}
	p.advance() // [
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.peek() == ']' {
			if len(v.Items) > 0 && !p.json5 {
				return nil, p.errf("unexpected \"]\": expected a value after the comma (trailing commas are not JSON)")
			}
			p.advance()
			v.End = p.off
			return v, nil
		}
		if p.off >= len(p.src) {
			return nil, p.errf("unexpected end of file: expected a value or \"]\"")
		}
		item, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Items = append(v.Items, item)
		if err := p.space(); err != nil {
			return nil, err
		}
		switch p.peek() {
		case ',':
			p.advance()
		case ']':
			p.advance()
			v.End = p.off
			return v, nil
		default:
			return nil, p.errf("unexpected %s: expected \",\" or \"]\"", p.describe())
		}
	}
}

func (p *parser) str() (string, error) {
	start := p.pos()
	quote := p.advance()
	// Fast path: a run of printable ASCII with no escape, the common case, is sliced out
	// whole instead of being decoded rune by rune.
	i := p.off
	for i < len(p.src) {
		c := p.src[i]
		if c < 0x20 || c >= 0x80 || c == '\\' || rune(c) == quote {
			break
		}
		i++
	}
	run := p.src[p.off:i]
	p.col += i - p.off
	p.off = i
	if i < len(p.src) && rune(p.src[i]) == quote {
		p.advance()
		return string(run), nil
	}
	var b strings.Builder
	b.Write(run)
	for {
		if p.off >= len(p.src) {
			return "", &SyntaxError{Pos: start, Msg: "unterminated string"}
		}
		r, size := utf8.DecodeRune(p.src[p.off:])
		if r == utf8.RuneError && size == 1 {
			// JSON.parse works on already-decoded text; an invalid byte becomes U+FFFD.
			p.advance()
			b.WriteRune(utf8.RuneError)
			continue
		}
		if r == quote {
			p.advance()
			return b.String(), nil
		}
		if r == '\\' {
			p.advance()
			if err := p.escape(&b); err != nil {
				return "", err
			}
			continue
		}
		if r < 0x20 {
			if p.json5 && r != '\n' && r != '\r' {
				p.advance()
				b.WriteRune(r)
				continue
			}
			return "", p.errf("unexpected %s inside a string (escape it)", p.describe())
		}
		p.advance()
		b.WriteRune(r)
	}
}

func (p *parser) escape(b *strings.Builder) error {
	if p.off >= len(p.src) {
		return p.errf("unterminated string")
	}
	pos := p.pos()
	c := p.advance()
	switch c {
	case '"', '\\', '/':
		b.WriteRune(c)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, err := p.hex(4)
		if err != nil {
			return err
		}
		if utf16IsHigh(r) && p.off+1 < len(p.src) && p.src[p.off] == '\\' && p.src[p.off+1] == 'u' {
			save := *p
			p.advance()
			p.advance()
			lo, err := p.hex(4)
			if err == nil && utf16IsLow(lo) {
				b.WriteRune((r-0xD800)<<10 + (lo - 0xDC00) + 0x10000)
				return nil
			}
			*p = save
		}
		if utf16IsHigh(r) || utf16IsLow(r) {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteRune(r)
		}
	default:
		if !p.json5 {
			return &SyntaxError{Pos: pos, Msg: fmt.Sprintf("invalid escape \\%c in a string", c)}
		}
		switch c {
		case '\'':
			b.WriteByte('\'')
		case 'v':
			b.WriteByte('\v')
		case '0':
			if d := p.peek(); d >= '0' && d <= '9' {
				return p.errf("invalid escape \\0 followed by a digit")
			}
			b.WriteByte(0)
		case 'x':
			r, err := p.hex(2)
			if err != nil {
				return err
			}
			b.WriteRune(r)
		case '\n', 0x2028, 0x2029:
			// line continuation
		case '\r':
			if p.peek() == '\n' {
				p.advance()
			}
		default:
			if c >= '1' && c <= '9' {
				return &SyntaxError{Pos: pos, Msg: fmt.Sprintf("invalid escape \\%c in a string", c)}
			}
			b.WriteRune(c)
		}
	}
	return nil
}

func utf16IsHigh(r rune) bool { return r >= 0xD800 && r < 0xDC00 }
func utf16IsLow(r rune) bool  { return r >= 0xDC00 && r < 0xE000 }

func (p *parser) hex(n int) (rune, error) {
	var r rune
	for i := 0; i < n; i++ {
		if p.off >= len(p.src) {
			return 0, p.errf("unexpected end of file in an escape")
		}
		c := p.src[p.off]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, p.errf("unexpected %s: expected a hexadecimal digit", p.describe())
		}
		r = r*16 + rune(d)
		p.advance()
	}
	return r, nil
}

func (p *parser) number() (string, error) {
	start := p.off
	startPos := p.pos()
	c := p.peek()
	if c == '-' || (p.json5 && c == '+') {
		p.advance()
		c = p.peek()
	}
	if p.json5 && (c == 'I' || c == 'N') {
		w := "Infinity"
		if c == 'N' {
			w = "NaN"
		}
		if err := p.word(w); err != nil {
			return "", err
		}
		return string(p.src[start:p.off]), nil
	}
	digits := func() int {
		n := 0
		for p.off < len(p.src) && p.src[p.off] >= '0' && p.src[p.off] <= '9' {
			p.advance()
			n++
		}
		return n
	}
	if p.json5 && c == '0' && p.off+1 < len(p.src) && (p.src[p.off+1] == 'x' || p.src[p.off+1] == 'X') {
		p.advance()
		p.advance()
		n := 0
		for p.off < len(p.src) && isHex(p.src[p.off]) {
			p.advance()
			n++
		}
		if n == 0 {
			return "", p.errf("unexpected %s: expected a hexadecimal digit", p.describe())
		}
		return string(p.src[start:p.off]), nil
	}
	intDigits := 0
	if c == '0' {
		p.advance()
		intDigits = 1
		if d := p.peek(); d >= '0' && d <= '9' {
			return "", p.errf("unexpected %s: a number cannot have a leading zero", p.describe())
		}
	} else if c >= '1' && c <= '9' {
		intDigits = digits()
	} else if !(p.json5 && c == '.') {
		return "", p.errf("unexpected %s: expected a digit", p.describe())
	}
	if p.peek() == '.' {
		p.advance()
		frac := digits()
		if frac == 0 && (!p.json5 || intDigits == 0) {
			return "", p.errf("unexpected %s: expected a digit after the decimal point", p.describe())
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.advance()
		if c := p.peek(); c == '+' || c == '-' {
			p.advance()
		}
		if digits() == 0 {
			return "", p.errf("unexpected %s: expected a digit in the exponent", p.describe())
		}
	}
	if p.json5 && p.off < len(p.src) && isIdentPart(p.peek()) {
		return "", &SyntaxError{Pos: startPos, Msg: "invalid number"}
	}
	return string(p.src[start:p.off]), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isIdentStart(r rune) bool {
	return r == '$' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r > 0x7f && isLetter(r))
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || (r >= '0' && r <= '9') || r == 0x200C || r == 0x200D
}

func (p *parser) ident() (string, error) {
	var b strings.Builder
	first := true
	for p.off < len(p.src) {
		r := p.peek()
		if r == '\\' {
			p.advance()
			if p.peek() != 'u' {
				return "", p.errf("unexpected %s: expected \\u in an identifier", p.describe())
			}
			p.advance()
			u, err := p.hex(4)
			if err != nil {
				return "", err
			}
			b.WriteRune(u)
			first = false
			continue
		}
		if first && !isIdentStart(r) || !first && !isIdentPart(r) {
			break
		}
		p.advance()
		b.WriteRune(r)
		first = false
	}
	if b.Len() == 0 {
		return "", p.errf("unexpected %s: expected a key", p.describe())
	}
	return b.String(), nil
}

func isLetter(r rune) bool { return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) }
