package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
)

// object is a JSON object that keeps its keys in order, as JavaScript objects do (string
// keys; the integer-like keys JavaScript puts first do not occur in the files written here).
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// set assigns k, keeping its place when it exists, appending it otherwise.
func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
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

func (o *object) clone() *object {
	c := newObject()
	if o != nil {
		for _, k := range o.keys {
			c.set(k, o.vals[k])
		}
	}
	return c
}

// parseOrdered reads JSON keeping the order of keys; numbers stay as written.
func parseOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
	}
	return tok, nil
}

// fromPos converts a parsed (JSON or JSON5) value, keeping the order of keys.
func fromPos(v *jsonpos.Value) any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case jsonpos.Object:
		o := newObject()
		for _, m := range v.Members {
			o.set(m.Key, fromPos(m.Value))
		}
		return o
	case jsonpos.Array:
		arr := []any{}
		for _, it := range v.Items {
			arr = append(arr, fromPos(it))
		}
		return arr
	case jsonpos.String:
		return v.Str
	case jsonpos.Number:
		if json.Valid([]byte(v.Raw)) {
			return json.Number(v.Raw)
		}
		return json.Number(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case jsonpos.Bool:
		return v.Boolean
	}
	return nil
}

// stringify writes v as JSON.stringify(v, null, 2) does, and a final newline.
func stringify(v any) []byte {
	var b strings.Builder
	writeJS(&b, v, "")
	b.WriteByte('\n')
	return []byte(b.String())
}

func writeJS(b *strings.Builder, v any, indent string) {
	inner := indent + "  "
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(jsNumber(x))
	case string:
		writeJSString(b, x)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, it := range x {
			b.WriteString(inner)
			writeJS(b, it, inner)
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case *object:
		if len(x.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range x.keys {
			b.WriteString(inner)
			writeJSString(b, k)
			b.WriteString(": ")
			writeJS(b, x.vals[k], inner)
			if i < len(x.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	default:
		data, _ := json.Marshal(x)
		b.Write(data)
	}
}

// jsNumber is a number as JavaScript prints it.
func jsNumber(n json.Number) string {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return string(n)
	}
	return jsonpos.FormatJSNumber(f)
}

// writeJSString quotes as JSON.stringify does.
func writeJSString(b *strings.Builder, s string) { b.Write(jsonpos.AppendJSString(nil, s)) }

// sameJSON compares two values as typebox's deep equality does: objects by their keys in any
// order, arrays item by item, numbers by value.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case *object:
		y, ok := b.(*object)
		if !ok || len(x.keys) != len(y.keys) {
			return false
		}
		for _, k := range x.keys {
			yv, ok := y.vals[k]
			if !ok || !sameJSON(x.vals[k], yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		fx, e1 := x.Float64()
		fy, e2 := y.Float64()
		return e1 == nil && e2 == nil && fx == fy
	}
	return a == b
}
