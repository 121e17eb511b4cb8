package schema

import "fmt"

// The keywords that validate arrays: items (a schema or a tuple), additionalItems, contains
// and uniqueItems.

func (c *compiler) items(it *cctx, v any, ptr string) kwNode {
	if a, ok := v.(*array); ok {
		k := &kwItems{tuple: true}
		for i, sch := range a.items {
			p := fmt.Sprintf("%s/%d", ptr, i)
			if c.alwaysValid(it, sch, p) {
				k.parts = append(k.parts, nil)
				continue
			}
			k.parts = append(k.parts, c.subschemaCode(c.dataSub(it, sch, kwPropPath(it, "items", fmt.Sprint(i)), p)))
		}
		return k
	}
	if c.alwaysValid(it, v, ptr) {
		return nil
	}
	return &kwItems{all: c.subschemaCode(c.dataSub(it, v, kwPath(it, "items"), ptr))}
}

// additionalItems applies past a tuple of "items"; strict mode refuses it anywhere else.
func (c *compiler) additionalItems(it *cctx, o *object, v any, ptr string) kwNode {
	items, ok := o.Get("items")
	tuple, isTuple := items.(*array)
	if !ok || !isTuple {
		c.fault(ptr, "additionalItems", `"additionalItems" without an array of schemas in "items"`, `strict mode: "additionalItems" is ignored when "items" is not an array of schemas`)
		return nil
	}
	if v == false {
		return &kwAdditionalItems{never: true, from: len(tuple.items), path: kwPath(it, "additionalItems")}
	}
	if _, isObj := v.(*object); isObj && !c.alwaysValid(it, v, ptr) {
		return &kwAdditionalItems{from: len(tuple.items), body: c.subschemaCode(c.dataSub(it, v, kwPath(it, "additionalItems"), ptr)), path: kwPath(it, "additionalItems")}
	}
	return nil
}

func (c *compiler) contains(it *cctx, v any, ptr string) kwNode {
	if c.alwaysValid(it, v, ptr) {
		return &kwContains{path: kwPath(it, "contains")}
	}
	s := c.dataSub(it, v, kwPath(it, "contains"), ptr)
	s.composite = true
	return &kwContains{body: c.subschemaCode(s), path: kwPath(it, "contains")}
}

// uniqueItems compares items as Ajv does, knowing the item types "items" names.
func (c *compiler) uniqueItems(it *cctx, o *object, v any) kwNode {
	if v != true {
		return nil
	}
	var itemTypes []string
	if iv, ok := o.Get("items"); ok && jsTruthy(iv) {
		if io, ok := iv.(*object); ok {
			itemTypes = c.schemaTypes(c.sub(it, io, "", it.ptr+"/items"), io)
		}
	}
	return &kwUnique{itemTypes: itemTypes, path: kwPath(it, "uniqueItems")}
}
