package bridge

import (
	"encoding/json"

	"github.com/plaios/plaios/internal/jsonpos"
)

// object is a JavaScript object that keeps its keys in order (jsonpos's one ordered object).
type object = jsonpos.OrderedObject

// parseOrdered reads JSON as JSON.parse does, keeping the order of keys; numbers stay as
// written (json.Number).
func parseOrdered(data []byte) (any, error) {
	v, err := jsonpos.Parse(data)
	if err != nil {
		return nil, err
	}
	return jsonpos.FromValue(v), nil
}

// stringify writes v as JSON.stringify(v, null, 2) does, and a final newline.
func stringify(v any) []byte {
	return append(jsonpos.Stringify(v, "  "), '\n')
}

// sameJSON compares two values as typebox's deep equality does: objects by their keys in any
// order, arrays item by item, numbers by value.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case *object:
		y, ok := b.(*object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys() {
			yv, ok := y.Get(k)
			if !ok || !sameJSON(x.At(k), yv) {
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
