package schema

import (
	"fmt"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
)

// Ajv's schema references: collecting the $id of every subschema, compiling $ref, and
// resolving a reference to the schema it names.

// schemaRefs is Ajv's getSchemaRefs: it collects the $id of every subschema before
// compiling, failing when two subschemas claim one id.
func (c *compiler) schemaRefs(root *env) {
	o, ok := root.schema.(*object)
	if !ok {
		return
	}
	schID := root.baseID
	prefix := fullPathNoNormalize(schID)
	seen := map[string]bool{}
	var walk func(v any, ptr, parentBase string, depth int)
	walk = func(v any, ptr, parentBase string, depth int) {
		so, ok := v.(*object)
		if !ok || depth > maxDepth {
			return
		}
		base := parentBase
		if ptr != "" {
			if id, ok := so.Get("$id"); ok {
				if s, ok := id.(string); ok {
					ref := s
					if base != "" {
						ref = resolveURI(base, s)
					}
					ref = normalizeID(ref)
					if seen[ref] {
						c.fault(ptr+"/$id", "$id", fmt.Sprintf("two subschemas have the $id %q", ref), fmt.Sprintf("reference %q resolves to more than one schema", ref))
					}
					seen[ref] = true
					full := prefix + ptr
					if ent, ok := c.reg.refs[ref]; ok && (ent.env != nil || c.reg.refs[ent.alias].env != nil) {
						target := ent.env
						if target == nil {
							target = c.reg.refs[ent.alias].env
						}
						if !jsEqual(so, target.schema) {
							reason := fmt.Sprintf("the $id %q names another schema", ref)
							if ref == metaID {
								reason = "the $id is the draft-07 meta-schema's own id"
							}
							c.fault(ptr+"/$id", "$id", reason, fmt.Sprintf("reference %q resolves to more than one schema", ref))
						}
					} else if ref != normalizeID(full) {
						if strings.HasPrefix(ref, "#") {
							if prev, ok := root.localRefs[ref]; ok && !jsEqual(prev.schema, so) {
								c.fault(ptr+"/$id", "$id", fmt.Sprintf("two subschemas have the $id %q", ref), fmt.Sprintf("reference %q resolves to more than one schema", ref))
							}
							root.localRefs[ref] = localRef{schema: so, ptr: ptr}
						} else {
							c.reg.refs[ref] = refEntry{alias: full}
						}
					}
					base = ref
				}
			}
			for _, k := range []string{"$anchor", "$dynamicAnchor"} {
				if a, ok := so.Get(k); ok {
					if s, ok := a.(string); ok && !isAnchorName(s) {
						c.fault(ptr+"/"+k, k, fmt.Sprintf("%q is not an anchor name", s), fmt.Sprintf("invalid anchor %q", s))
					}
				}
			}
		}
		for _, k := range so.JSKeys() {
			sub := so.At(k)
			if a, ok := sub.(*array); ok {
				if arrayKeywords[k] {
					for i, it := range a.items {
						walk(it, fmt.Sprintf("%s/%s/%d", ptr, k, i), base, depth+1)
					}
				}
			} else if propsKeywords[k] {
				if po, ok := sub.(*object); ok {
					for _, pk := range po.JSKeys() {
						walk(po.At(pk), ptr+"/"+k+"/"+escapePointer(pk), base, depth+1)
					}
				}
			} else if !skipKeywords[k] {
				walk(sub, ptr+"/"+k, base, depth+1)
			}
		}
	}
	walk(o, "", schID, 0)
}

func isAnchorName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '.')
		if !ok {
			return false
		}
	}
	return true
}

func fullPathNoNormalize(id string) string {
	u := parseURI(id)
	u.fragment, u.hasFragment = "", false
	return u.String() + "#"
}

var arrayKeywords = map[string]bool{"items": true, "allOf": true, "anyOf": true, "oneOf": true}
var propsKeywords = map[string]bool{"$defs": true, "definitions": true, "properties": true, "patternProperties": true, "dependencies": true}
var skipKeywords = map[string]bool{"default": true, "enum": true, "const": true, "required": true, "maximum": true,
	"minimum": true, "exclusiveMaximum": true, "exclusiveMinimum": true, "multipleOf": true, "maxLength": true,
	"minLength": true, "pattern": true, "format": true, "maxItems": true, "minItems": true, "uniqueItems": true,
	"maxProperties": true, "minProperties": true}

// ref compiles $ref: the target is inlined when it holds no $ref, else called as a function.
func (c *compiler) ref(it *cctx, ref string) kwNode {
	root := it.env.root
	ptr := it.ptr + "/$ref"
	if (ref == "#" || ref == "#/") && it.baseID == root.baseID {
		if root.async && !it.env.async {
			c.fault(ptr, "$ref", "a reference to an $async schema from a schema that is not $async", "async schema referenced by sync schema")
			return nil
		}
		return &kwRef{fn: c.compileFunction(root)}
	}
	target := c.resolveRef(root, it.baseID, ref, 0)
	if target == nil {
		c.fault(ptr, "$ref", fmt.Sprintf("the reference %q leads nowhere", ref), fmt.Sprintf("can't resolve reference %s from id %s", ref, it.baseID))
		return nil
	}
	if _, b := target.schema.(bool); b || !hasRef(target.schema, 0) {
		s := c.sub(it, target.schema, ref, target.ptr)
		return &kwRef{inline: c.subschemaCode(s)}
	}
	if o, ok := target.schema.(*object); ok {
		if a, ok := o.Get("$async"); ok && jsTruthy(a) && !it.env.async {
			c.fault(ptr, "$ref", "a reference to an $async schema from a schema that is not $async", "async schema referenced by sync schema")
			return nil
		}
	}
	return &kwRef{fn: c.compileFunction(target)}
}

var refKeywords = map[string]bool{"$ref": true, "$recursiveRef": true, "$recursiveAnchor": true, "$dynamicRef": true, "$dynamicAnchor": true}

// hasRef reports a $ref anywhere inside a value (Ajv's inlineRef test).
func hasRef(v any, depth int) bool {
	if depth > maxDepth {
		return true
	}
	switch x := v.(type) {
	case *object:
		for _, k := range x.Keys() {
			if refKeywords[k] {
				return true
			}
			if hasRef(x.At(k), depth+1) {
				return true
			}
		}
	case *array:
		for _, it := range x.items {
			if hasRef(it, depth+1) {
				return true
			}
		}
	}
	return false
}

// resolveRef is Ajv's resolveRef.
func (c *compiler) resolveRef(root *env, baseID, ref string, depth int) *env {
	full := resolveURL(baseID, ref)
	if t, ok := root.refCache[full]; ok {
		return t
	}
	t := c.resolve(root, full, depth)
	if t == nil {
		if l, ok := root.localRefs[full]; ok {
			t = &env{schema: l.schema, root: root, baseID: baseID, ptr: l.ptr}
		}
	}
	if t != nil {
		root.refCache[full] = t
	}
	return t
}

func (c *compiler) resolve(root *env, ref string, depth int) *env {
	for i := 0; i < 100; i++ {
		ent, ok := c.reg.refs[ref]
		if !ok {
			break
		}
		if ent.alias == "" {
			return ent.env
		}
		ref = ent.alias
	}
	return c.resolveSchema(root, ref, depth)
}

func (c *compiler) resolveSchema(root *env, ref string, depth int) *env {
	if depth > 50 {
		c.fault(root.ptr, "$ref", "references that lead to each other without end", "Maximum call stack size exceeded")
		return nil
	}
	p := parseURI(ref)
	refPath := uriFullPath(p)
	base := fullPath(root.baseID)
	if len(forInKeys(root.schema)) > 0 && refPath == base {
		return c.jsonPointer(p, root, depth)
	}
	id := normalizeID(refPath)
	ent, ok := c.reg.refs[id]
	if !ok {
		return nil
	}
	if ent.alias != "" {
		sch := c.resolveSchema(root, ent.alias, depth+1)
		if sch == nil {
			return nil
		}
		if _, ok := sch.schema.(*object); !ok {
			return nil
		}
		return c.jsonPointer(p, sch, depth)
	}
	target := ent.env
	if _, ok := target.schema.(*object); !ok {
		return nil
	}
	if id == normalizeID(ref) {
		b := base
		if o := target.schema.(*object); o != nil {
			if s, ok := o.Get("$id"); ok {
				if str, ok := s.(string); ok && str != "" {
					b = resolveURL(b, str)
				}
			}
		}
		if target.inMeta {
			return target
		}
		return &env{schema: target.schema, root: root, baseID: b, ptr: target.ptr}
	}
	return c.jsonPointer(p, target, depth)
}

var preventScopeChange = map[string]bool{"properties": true, "patternProperties": true, "enum": true, "dependencies": true, "definitions": true}

// jsonPointer is Ajv's getJsonPointer.
func (c *compiler) jsonPointer(p uriParts, e *env, depth int) *env {
	if !p.hasFragment || !strings.HasPrefix(p.fragment, "/") {
		return nil
	}
	schema := e.schema
	baseID := e.baseID
	ptr := e.ptr
	for _, part := range strings.Split(p.fragment[1:], "/") {
		if _, ok := schema.(bool); ok {
			return nil
		}
		key, ok := unescapeFragment(part)
		if !ok {
			c.fault(e.ptr, "$ref", "a reference with a malformed percent escape", "URI malformed")
			return nil
		}
		next, found := childOf(schema, key)
		if !found {
			return nil
		}
		schema = next
		ptr += "/" + escapePointer(key)
		if o, ok := schema.(*object); ok && !preventScopeChange[part] {
			if s, ok := o.Get("$id"); ok {
				if str, ok := s.(string); ok && str != "" {
					baseID = resolveURL(baseID, str)
				}
			}
		}
	}
	var t *env
	if o, ok := schema.(*object); ok {
		if r, ok := o.Get("$ref"); ok && jsTruthy(r) && !schemaHasRulesButRef(o) {
			if rs, ok := r.(string); ok {
				t = c.resolveSchema(e.root, resolveURL(baseID, rs), depth+1)
			}
		}
	}
	if t == nil {
		t = &env{schema: schema, root: e.root, baseID: baseID, ptr: ptr, inMeta: e.inMeta}
	}
	if jsStrictEqual(t.schema, t.root.schema) {
		return nil
	}
	return t
}

// childOf reads schema[key] as JavaScript would for a JSON value.
func childOf(v any, key string) (any, bool) {
	switch x := v.(type) {
	case *object:
		return x.Get(key)
	case *array:
		if jsonpos.IsArrayIndex(key) {
			var i int
			fmt.Sscan(key, &i)
			if i < len(x.items) {
				return x.items[i], true
			}
		}
		if key == "length" {
			return float64(len(x.items)), true
		}
	case string:
		u := utf16Units(x)
		if jsonpos.IsArrayIndex(key) {
			var i int
			fmt.Sscan(key, &i)
			if i < len(u) {
				return string(rune(u[i])), true
			}
		}
		if key == "length" {
			return float64(len(u)), true
		}
	}
	return nil, false
}
