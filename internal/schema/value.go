package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/jsregexp"
)

// The package works on its own model of JavaScript values, because Ajv's behaviour depends on
// what Go's plain values lose: the order of an object's keys (JSON.parse keeps insertion order,
// integer-like keys first), array holes (a tuple default written past the end of an array),
// and the properties every object inherits from Object.prototype (`data.toString !==
// undefined` is true in JavaScript, so Ajv treats such a property as present).
//
// Values are: nil (null), bool, float64, string, *object, *array, and, only while validating,
// undefinedValue (an array hole), jsFunction (an inherited method) and protoValue
// (Object.prototype, what data.__proto__ finds).

// object is a JavaScript object: jsonpos's ordered object (keys in insertion order; JSKeys
// gives JavaScript's enumeration order).
type object = jsonpos.OrderedObject

type array struct {
	items []any
}

// undefinedValue is JavaScript's undefined, found in array holes.
type undefinedValue struct{}

// jsFunction is an inherited Object.prototype method, as `data[key]` finds it.
type jsFunction struct{ name string }

// protoValue is Object.prototype, as `data.__proto__` finds it.
type protoValue struct{}

var undef = undefinedValue{}

// objectPrototype lists what every plain JavaScript object inherits.
var objectPrototype = map[string]bool{
	"constructor": true, "__defineGetter__": true, "__defineSetter__": true, "hasOwnProperty": true,
	"__lookupGetter__": true, "__lookupSetter__": true, "isPrototypeOf": true,
	"propertyIsEnumerable": true, "toString": true, "valueOf": true, "toLocaleString": true,
}

// lookup returns what JavaScript's `o[k]` reads: an own property, or an inherited one.
func lookup(o *object, k string) (any, bool) {
	if v, ok := o.Get(k); ok {
		return v, true
	}
	if k == "__proto__" {
		return protoValue{}, true
	}
	if objectPrototype[k] {
		return jsFunction{k}, true
	}
	return nil, false
}

// fromJSONPos converts a parsed document into the value model, as JSON.parse would build it
// (a duplicated key keeps its first place and its last value).
func fromJSONPos(v *jsonpos.Value) any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case jsonpos.Null:
		return nil
	case jsonpos.Bool:
		return v.Boolean
	case jsonpos.Number:
		return v.Float()
	case jsonpos.String:
		return v.Str
	case jsonpos.Array:
		a := &array{items: make([]any, len(v.Items))}
		for i, it := range v.Items {
			a.items[i] = fromJSONPos(it)
		}
		return a
	case jsonpos.Object:
		o := jsonpos.NewOrderedObject()
		for _, m := range v.Members {
			o.Set(m.Key, fromJSONPos(m.Value))
		}
		return o
	}
	return nil
}

// errNotJSON says a Go value has no JSON form.
type errNotJSON struct{ err error }

func (e errNotJSON) Error() string { return "the value is not JSON: " + e.err.Error() }

// fromGo converts plain Go values (as encoding/json produces them, or anything it can encode)
// into the value model. Keys of Go maps have no order; they are taken in sorted order.
func fromGo(v any) (any, error) { return fromGoDepth(v, 0) }

const maxValueDepth = 10000

func fromGoDepth(v any, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, errNotJSON{fmt.Errorf("nesting deeper than %d levels", maxValueDepth)}
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	case int:
		return float64(x), nil
	case int8:
		return float64(x), nil
	case int16:
		return float64(x), nil
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint:
		return float64(x), nil
	case uint8:
		return float64(x), nil
	case uint16:
		return float64(x), nil
	case uint32:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !isRangeErr(err) {
			return nil, errNotJSON{err}
		}
		return f, nil
	case string:
		return x, nil
	case []any:
		a := &array{items: make([]any, len(x))}
		for i, it := range x {
			c, err := fromGoDepth(it, depth+1)
			if err != nil {
				return nil, err
			}
			a.items[i] = c
		}
		return a, nil
	case map[string]any:
		o := jsonpos.NewOrderedObject()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c, err := fromGoDepth(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			o.Set(k, c)
		}
		return o, nil
	case *jsonpos.Value:
		return fromJSONPos(x), nil
	case *object, *array:
		return deepCopy(x), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, errNotJSON{err}
	}
	var plain any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(&plain); err != nil {
		return nil, errNotJSON{err}
	}
	return fromGoDepth(plain, depth)
}

func isRangeErr(err error) bool {
	var ne *strconv.NumError
	if e, ok := err.(*strconv.NumError); ok {
		ne = e
	}
	return ne != nil && ne.Err == strconv.ErrRange
}

// toGo converts a value back to plain Go values. Holes become nil, as JSON.stringify writes
// them; numbers stay float64 (an Infinity that coercion produced stays +Inf).
func toGo(v any) any {
	switch x := v.(type) {
	case *object:
		m := make(map[string]any, x.Len())
		for _, k := range x.Keys() {
			m[k] = toGo(x.At(k))
		}
		return m
	case *array:
		out := make([]any, len(x.items))
		for i, it := range x.items {
			out[i] = toGo(it)
		}
		return out
	case undefinedValue, jsFunction, protoValue:
		return nil
	}
	return v
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case *object:
		o := jsonpos.NewOrderedObject()
		for _, k := range x.Keys() {
			o.Set(k, deepCopy(x.At(k)))
		}
		return o
	case *array:
		a := &array{items: make([]any, len(x.items))}
		for i, it := range x.items {
			a.items[i] = deepCopy(it)
		}
		return a
	}
	return v
}

// identity returns a key that stands for a Go value's identity (maps and pointers), as a
// JavaScript object's identity: Ajv caches compiled schemas by object identity.
func identity(v any) uintptr {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Pointer, reflect.Slice:
		return rv.Pointer()
	}
	return 0
}

// jsTypeof returns JavaScript's typeof.
func jsTypeof(v any) string {
	switch v.(type) {
	case nil, *object, *array, protoValue:
		return "object"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case jsFunction:
		return "function"
	case undefinedValue:
		return "undefined"
	}
	return "undefined"
}

// jsEqual is fast-deep-equal, which Ajv uses for const, enum and uniqueItems.
func jsEqual(a, b any) bool {
	switch x := a.(type) {
	case *object:
		y, ok := b.(*object)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		if x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys() {
			w, ok := y.Get(k)
			if !ok || !jsEqual(x.At(k), w) {
				return false
			}
		}
		return true
	case *array:
		y, ok := b.(*array)
		if !ok {
			return false
		}
		if len(x.items) != len(y.items) {
			return false
		}
		for i := range x.items {
			if !jsEqual(x.items[i], y.items[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || (x != x && y != y))
	case protoValue:
		_, ok := b.(protoValue)
		return ok
	}
	switch b.(type) {
	case *object, *array, float64:
		return false
	}
	return a == b
}

// jsStrictEqual is JavaScript's ===.
func jsStrictEqual(a, b any) bool {
	switch x := a.(type) {
	case *object:
		y, ok := b.(*object)
		return ok && x == y
	case *array:
		y, ok := b.(*array)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	}
	switch b.(type) {
	case *object, *array, float64:
		return false
	}
	return a == b
}

// stringToNumber is JavaScript's Number(string): NaN when the text is not a number.
func stringToNumber(s string) float64 {
	s = strings.TrimFunc(s, jsregexp.IsSpace)
	if s == "" {
		return 0
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			n, ok := new(big.Int).SetString(s[2:], base)
			if !ok || strings.ContainsAny(s[2:], "_+-") {
				return math.NaN()
			}
			f, _ := new(big.Float).SetInt(n).Float64()
			return f
		}
	}
	body := s
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	if body == "Infinity" {
		if s[0] == '-' {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	if !isDecimalLiteral(body) {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return math.NaN()
	}
	return f
}

// isDecimalLiteral checks StrUnsignedDecimalLiteral without Infinity: digits [. digits]
// [exponent], or . digits [exponent], or digits . [exponent].
func isDecimalLiteral(s string) bool {
	i, n := 0, len(s)
	intDigits := 0
	for i < n && s[i] >= '0' && s[i] <= '9' {
		i++
		intDigits++
	}
	frac := 0
	if i < n && s[i] == '.' {
		i++
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
			frac++
		}
	}
	if intDigits == 0 && frac == 0 {
		return false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ed := 0
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
			ed++
		}
		if ed == 0 {
			return false
		}
	}
	return i == n
}

// jsMod1IsZero is `!(n % 1)` for a number.
func jsMod1IsZero(n float64) bool {
	m := math.Mod(n, 1)
	return m == 0 || m != m // NaN is falsy too
}

// ucs2length counts characters as Ajv's minLength/maxLength do (code points).
func ucs2length(s string) int { return utf8.RuneCountInString(s) }

// escapePointer escapes one JSON Pointer token.
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// encodeURIComponent is JavaScript's encodeURIComponent (Ajv writes schema paths with it).
func encodeURIComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// jsString writes a value as JavaScript's template literals would (for messages).
func jsString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return jsonpos.JSNumberString(x)
	case string:
		return x
	case *array:
		parts := make([]string, len(x.items))
		for i, it := range x.items {
			switch it.(type) {
			case nil, undefinedValue:
			default:
				parts[i] = jsString(it)
			}
		}
		return strings.Join(parts, ",")
	case *object:
		return "[object Object]"
	}
	return ""
}

// jsonString writes a value as JSON.stringify would (for messages): holes as null, an
// inherited method or Object.prototype left out of an object and null in an array.
func jsonString(v any) string { return string(jsonpos.Stringify(stringifiable(v), "")) }

// stringifiable converts a value to those jsonpos.Stringify takes.
func stringifiable(v any) any {
	switch x := v.(type) {
	case *object:
		o := jsonpos.NewOrderedObject()
		for _, k := range x.Keys() {
			switch val := x.At(k); val.(type) {
			case undefinedValue, jsFunction, protoValue:
			default:
				o.Set(k, stringifiable(val))
			}
		}
		return o
	case *array:
		out := make([]any, len(x.items))
		for i, it := range x.items {
			out[i] = stringifiable(it)
		}
		return out
	case undefinedValue, jsFunction, protoValue:
		return nil
	}
	return v
}

// utf16Units returns the UTF-16 code units of s, as JavaScript strings hold them.
func utf16Units(s string) []uint16 { return utf16.Encode([]rune(s)) }
