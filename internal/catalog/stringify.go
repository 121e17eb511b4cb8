package catalog

import (
	"bytes"
	"math"
	"sort"
	"strconv"

	"github.com/plaios/plaios/internal/jsonpos"
)

// writeValue writes v as JSON.stringify(v, null, 2) does.
func writeValue(b *bytes.Buffer, v any, indent string) {
	inner := indent + "  "
	switch x := v.(type) {
	case *obj:
		if len(x.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range x.keys {
			b.WriteString(inner)
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, x.vals[i], inner)
			if i < len(x.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case objList:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, o := range x {
			b.WriteString(inner)
			writeValue(b, o, inner)
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case *jsonpos.Value:
		writeJSON(b, x, indent)
	}
}

// writeJSON writes a parsed value as JavaScript would re-serialize the object JSON.parse made
// of it: duplicate keys keep their first place and last value, integer-like keys come first in
// ascending order, numbers are printed as JavaScript prints them.
func writeJSON(b *bytes.Buffer, v *jsonpos.Value, indent string) {
	inner := indent + "  "
	switch v.Kind {
	case jsonpos.Null:
		b.WriteString("null")
	case jsonpos.Bool:
		b.WriteString(strconv.FormatBool(v.Boolean))
	case jsonpos.Number:
		f := v.Float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			b.WriteString("null")
		} else {
			b.WriteString(formatNumber(f))
		}
	case jsonpos.String:
		writeString(b, v.Str)
	case jsonpos.Array:
		if len(v.Items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, it := range v.Items {
			b.WriteString(inner)
			writeJSON(b, it, inner)
			if i < len(v.Items)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case jsonpos.Object:
		keys, vals := jsOrder(v)
		if len(keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range keys {
			b.WriteString(inner)
			writeString(b, k)
			b.WriteString(": ")
			writeJSON(b, vals[i], inner)
			if i < len(keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	}
}

// jsOrder gives an object's own keys in JavaScript's order.
func jsOrder(v *jsonpos.Value) ([]string, []*jsonpos.Value) {
	var keys []string
	last := map[string]*jsonpos.Value{}
	for _, m := range v.Members {
		if _, seen := last[m.Key]; !seen {
			keys = append(keys, m.Key)
		}
		last[m.Key] = m.Value
	}
	var ints, rest []string
	for _, k := range keys {
		if isArrayIndex(k) {
			ints = append(ints, k)
		} else {
			rest = append(rest, k)
		}
	}
	sort.Slice(ints, func(i, j int) bool {
		a, _ := strconv.ParseUint(ints[i], 10, 64)
		b, _ := strconv.ParseUint(ints[j], 10, 64)
		return a < b
	})
	keys = append(ints, rest...)
	vals := make([]*jsonpos.Value, len(keys))
	for i, k := range keys {
		vals[i] = last[k]
	}
	return keys, vals
}

func isArrayIndex(k string) bool {
	if k == "" || (len(k) > 1 && k[0] == '0') {
		return false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < 1<<32-1
}

// formatNumber prints a float as JavaScript's Number#toString.
func formatNumber(f float64) string { return jsonpos.FormatJSNumber(f) }

// writeString quotes s as JSON.stringify does.
func writeString(b *bytes.Buffer, s string) { b.Write(jsonpos.AppendJSString(nil, s)) }
