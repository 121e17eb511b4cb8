package schema

import (
	"fmt"
	"strings"
)

// What Ajv's code generation decides for a schema object before its keywords: the known
// keywords and rules, when a schema is always valid, the types it names, the order its rule
// groups run in and the defaults it assigns.

// forInKeys lists what `for (const key in v)` visits.
func forInKeys(v any) []string {
	switch x := v.(type) {
	case *object:
		return x.JSKeys()
	case *array:
		ks := make([]string, len(x.items))
		for i := range x.items {
			ks[i] = fmt.Sprint(i)
		}
		return ks
	case string:
		n := len(utf16Units(x))
		ks := make([]string, n)
		for i := range ks {
			ks[i] = fmt.Sprint(i)
		}
		return ks
	}
	return nil
}

// schemaHasRules is schemaCxtHasRules / schemaHasRules with RULES.all.
func schemaHasRules(s any) bool {
	if b, ok := s.(bool); ok {
		return !b
	}
	for _, k := range forInKeys(s) {
		if ruleKeywords[k] {
			return true
		}
	}
	return false
}

func schemaHasRulesButRef(s any) bool {
	if b, ok := s.(bool); ok {
		return !b
	}
	for _, k := range forInKeys(s) {
		if k != "$ref" && ruleKeywords[k] {
			return true
		}
	}
	return false
}

// knownKeywords is Ajv's RULES.keywords with ajv-formats added.
var knownKeywords = map[string]bool{}

// ruleKeywords is RULES.all: the keywords that have a definition.
var ruleKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`$async $schema $id $defs $vocabulary $comment definitions id $ref maximum minimum
		exclusiveMaximum exclusiveMinimum multipleOf maxLength minLength pattern maxProperties minProperties required
		maxItems minItems uniqueItems type nullable const enum not anyOf oneOf allOf if then else propertyNames
		additionalProperties dependencies properties patternProperties additionalItems items contains format title
		description default deprecated readOnly writeOnly examples contentMediaType contentEncoding contentSchema
		formatMaximum formatMinimum formatExclusiveMaximum formatExclusiveMinimum`) {
		knownKeywords[k] = true
	}
	for _, k := range strings.Fields(`$comment id $ref maximum minimum exclusiveMaximum exclusiveMinimum multipleOf
		maxLength minLength pattern maxProperties minProperties required maxItems minItems uniqueItems type nullable
		const enum not anyOf oneOf allOf if then else propertyNames additionalProperties dependencies properties
		patternProperties additionalItems items contains format formatMaximum formatMinimum formatExclusiveMaximum
		formatExclusiveMinimum`) {
		ruleKeywords[k] = true
	}
}

func (c *compiler) checkUnknownRules(it *cctx, s any) {
	for _, k := range forInKeys(s) {
		if !knownKeywords[k] {
			c.fault(it.ptr+"/"+escapePointer(k), k, fmt.Sprintf("%q is not a keyword Ajv knows, and its strict mode refuses unknown keywords", k),
				fmt.Sprintf("strict mode: unknown keyword: %q", k))
		}
	}
}

// alwaysValid is alwaysValidSchema.
func (c *compiler) alwaysValid(it *cctx, s any, ptr string) bool {
	if b, ok := s.(bool); ok {
		return b
	}
	if o, ok := s.(*object); ok && o.Len() == 0 {
		return true
	}
	if len(forInKeys(s)) == 0 {
		if _, ok := s.(*object); ok {
			return true
		}
	}
	sub := *it
	sub.ptr = ptr
	c.checkUnknownRules(&sub, s)
	return !schemaHasRules(s)
}

var jsonTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "null": true, "object": true, "array": true}

// schemaTypes is getSchemaTypes.
func (c *compiler) schemaTypes(it *cctx, o *object) []string {
	var types []string
	tv, hasType := o.Get("type")
	switch x := tv.(type) {
	case string:
		if x != "" {
			types = []string{x}
		}
	case *array:
		for _, t := range x.items {
			s, _ := t.(string)
			types = append(types, s)
		}
	case nil:
	default:
		if hasType && jsTruthy(x) {
			types = []string{jsString(x)}
		}
	}
	bad := false
	var kept []string
	for _, t := range types {
		if !jsonTypes[t] {
			bad = true
		} else {
			kept = append(kept, t)
		}
	}
	if bad {
		names := make([]string, len(types))
		copy(names, types)
		if a, ok := tv.(*array); ok {
			names = make([]string, len(a.items))
			for i, t := range a.items {
				names[i] = jsString(t)
			}
		}
		c.fault(it.ptr+"/type", "type", "a type that is not a JSON Schema type", "type must be JSONType or JSONType[]: "+strings.Join(names, ","))
		types = kept
	}
	nullable, hasNullable := o.Get("nullable")
	hasNull := false
	for _, t := range types {
		if t == "null" {
			hasNull = true
		}
	}
	if hasNull {
		if nullable == false && hasNullable {
			c.fault(it.ptr+"/nullable", "nullable", `"type" allows null and "nullable" is false`, "type: null contradicts nullable: false")
		}
	} else {
		if len(types) == 0 && hasNullable {
			c.fault(it.ptr+"/nullable", "nullable", `"nullable" needs a "type"`, `"nullable" cannot be used without "type"`)
		}
		if nullable == true {
			types = append(types, "null")
		}
	}
	return types
}

// typeAndKeywords compiles an object schema with rules.
func (c *compiler) typeAndKeywords(it *cctx) *node {
	c.nodes++
	if c.nodes > maxNodes {
		c.fault(it.ptr, "", "the schema is too large to compile", "schema too large")
		return &node{kind: nodeTrue}
	}
	o, _ := it.schema.(*object)
	n := &node{kind: nodeObj, errSchemaPath: it.errSchemaPath, allErrors: it.allErrors,
		opts: it.opts}
	if o == nil {
		// A string or an array where a schema should be: its index keys were refused as
		// unknown keywords; there is nothing else to compile.
		return n
	}
	n.types = c.schemaTypes(it, o)
	n.typeValue, _ = o.Get("type")
	if len(n.types) == 1 {
		n.rulesForType = hasRulesForType(o, n.types[0])
	}
	if ref, ok := o.Get("$ref"); ok && !schemaHasRulesButRef(o) {
		if kw := c.keyword(it, o, "$ref", ref, ""); kw != nil {
			n.refOnly = kw
		}
		return n
	}
	for _, g := range ruleGroups {
		if !shouldUseGroup(o, g) {
			continue
		}
		gr := &group{typ: g.typ}
		if it.opts.useDefaults {
			c.assignDefaults(it, o, g.typ, gr)
		}
		for _, kw := range g.keywords {
			v, ok := o.Get(kw)
			if !ok {
				continue
			}
			if k := c.keyword(it, o, kw, v, g.typ); k != nil {
				gr.kws = append(gr.kws, k)
			}
		}
		n.groups = append(n.groups, gr)
	}
	return n
}

type ruleGroup struct {
	typ      string
	keywords []string
}

// ruleGroups is RULES.rules in Ajv's order (with ajv-formats' keywords).
var ruleGroups = []ruleGroup{
	{"", strings.Fields("$comment id $ref type nullable const enum not anyOf oneOf allOf if then else")},
	{"number", strings.Fields("maximum minimum exclusiveMaximum exclusiveMinimum multipleOf format")},
	{"string", strings.Fields("maxLength minLength pattern format formatMaximum formatMinimum formatExclusiveMaximum formatExclusiveMinimum")},
	{"array", strings.Fields("maxItems minItems additionalItems items contains uniqueItems")},
	{"object", strings.Fields("maxProperties minProperties required propertyNames additionalProperties dependencies properties patternProperties")},
}

func shouldUseGroup(o *object, g ruleGroup) bool {
	for _, k := range g.keywords {
		if o.Has(k) {
			return true
		}
	}
	return false
}

func hasRulesForType(o *object, t string) bool {
	for _, g := range ruleGroups {
		if g.typ == t && t != "" {
			return shouldUseGroup(o, g)
		}
	}
	return false
}

// assignDefaults is Ajv's assignDefaults at code generation: it notes the defaults to write,
// and Ajv's strict mode refuses a default where it would be ignored (inside anyOf, oneOf, not,
// if, contains, propertyNames).
func (c *compiler) assignDefaults(it *cctx, o *object, typ string, gr *group) {
	switch typ {
	case "object":
		pv, _ := o.Get("properties")
		props, ok := pv.(*object)
		if !ok || !jsTruthy(pv) {
			return
		}
		for _, k := range props.JSKeys() {
			sch, _ := props.At(k).(*object)
			if sch == nil {
				continue
			}
			d, ok := sch.Get("default")
			if !ok {
				continue
			}
			if it.composite {
				c.fault(it.ptr+"/properties/"+escapePointer(k)+"/default", "default",
					"Ajv ignores a default inside anyOf, oneOf, not, if, contains or propertyNames, and its strict mode refuses it",
					"strict mode: default is ignored for: "+it.dataVar+jsProperty(k))
				continue
			}
			gr.defaults = append(gr.defaults, defaultSpec{prop: k, value: d})
		}
	case "array":
		iv, _ := o.Get("items")
		items, ok := iv.(*array)
		if !ok {
			return
		}
		for i, s := range items.items {
			sch, _ := s.(*object)
			if sch == nil {
				continue
			}
			d, ok := sch.Get("default")
			if !ok {
				continue
			}
			if it.composite {
				c.fault(fmt.Sprintf("%s/items/%d/default", it.ptr, i), "default",
					"Ajv ignores a default inside anyOf, oneOf, not, if, contains or propertyNames, and its strict mode refuses it",
					fmt.Sprintf("strict mode: default is ignored for: %s[%d]", it.dataVar, i))
				continue
			}
			gr.defaults = append(gr.defaults, defaultSpec{index: i, isIndex: true, value: d})
		}
	}
}

// jsProperty is codegen's getProperty for a string key.
func jsProperty(k string) string {
	ok := k != ""
	for i, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '$' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			ok = false
		}
	}
	if ok {
		return "." + k
	}
	// Ajv's safeStringify: JSON.stringify, with U+2028 and U+2029 escaped.
	q := strings.NewReplacer("\u2028", `\u2028`, "\u2029", `\u2029`).Replace(jsonString(k))
	return "[" + q + "]"
}
