package jsonpos

import (
	"encoding/json"
	"sort"
	"strconv"
)

// OrderedObject is a JavaScript object built from JSON: string keys that keep the order they
// were first set in, with their values (nil, bool, float64, json.Number, int, string, []any,
// *OrderedObject, *Value, or a caller's own types that the caller converts before writing).
// Keys gives that insertion order; JSKeys the order JavaScript enumerates them in
// (array-index keys first), which is what JSON.stringify writes. The zero value is not ready:
// use NewOrderedObject. Get, Has, At, Len, Keys, JSKeys and Clone accept a nil object (an empty
// one).
type OrderedObject struct {
	keys []string
	vals map[string]any
}

// NewOrderedObject returns an empty object.
func NewOrderedObject() *OrderedObject { return &OrderedObject{vals: map[string]any{}} }

// Len returns the number of keys.
func (o *OrderedObject) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys returns the keys in insertion order. The slice belongs to the object: do not change it.
func (o *OrderedObject) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Get returns the value of k and whether k is set.
func (o *OrderedObject) Get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// At returns the value of k, nil when k is not set.
func (o *OrderedObject) At(k string) any {
	if o == nil {
		return nil
	}
	return o.vals[k]
}

// Has reports whether k is set (to any value, null included).
func (o *OrderedObject) Has(k string) bool {
	if o == nil {
		return false
	}
	_, ok := o.vals[k]
	return ok
}

// Set assigns k, keeping its place when it exists and appending it otherwise, as assignment
// to a JavaScript object does.
func (o *OrderedObject) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Delete removes k, as the delete operator does.
func (o *OrderedObject) Delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, have := range o.keys {
		if have == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Clone returns a shallow copy: the same keys in the same order, the same values (an empty
// object for nil).
func (o *OrderedObject) Clone() *OrderedObject {
	c := &OrderedObject{keys: make([]string, 0, o.Len()), vals: make(map[string]any, o.Len())}
	for _, k := range o.Keys() {
		c.keys = append(c.keys, k)
		c.vals[k] = o.vals[k]
	}
	return c
}

// JSKeys returns the keys in the order JavaScript enumerates an object's own properties
// (Object.keys, for…in, JSON.stringify): array-index keys ("0", "7", not "07") in ascending
// numeric order, then the others in insertion order.
func (o *OrderedObject) JSKeys() []string { return jsKeyOrder(o.Keys()) }

// jsKeyOrder puts keys (distinct, in insertion order) in JavaScript's enumeration order.
func jsKeyOrder(keys []string) []string {
	var idx, rest []string
	for _, k := range keys {
		if IsArrayIndex(k) {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	if len(idx) == 0 {
		return keys
	}
	sort.Slice(idx, func(i, j int) bool {
		a, _ := strconv.ParseUint(idx[i], 10, 64)
		b, _ := strconv.ParseUint(idx[j], 10, 64)
		return a < b
	})
	return append(idx, rest...)
}

// IsArrayIndex reports whether a property key is an array index in JavaScript: the canonical
// decimal form of an integer below 2³²−1. Objects enumerate such keys first.
func IsArrayIndex(k string) bool {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < 1<<32-1
}

// FromValue converts a parsed value into the values OrderedObject holds, as JSON.parse builds
// them: objects as *OrderedObject (a duplicated key keeps its first place and its last value),
// arrays as []any, numbers as json.Number spelling the number as written (JSON5's hexadecimal,
// Infinity and NaN are spelled as Go writes them), strings, bools and nil.
func FromValue(v *Value) any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case Object:
		o := NewOrderedObject()
		for _, m := range v.Members {
			o.Set(m.Key, FromValue(m.Value))
		}
		return o
	case Array:
		arr := make([]any, 0, len(v.Items))
		for _, it := range v.Items {
			arr = append(arr, FromValue(it))
		}
		return arr
	case String:
		return v.Str
	case Number:
		if json.Valid([]byte(v.Raw)) {
			return json.Number(v.Raw)
		}
		return json.Number(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case Bool:
		return v.Boolean
	}
	return nil
}
