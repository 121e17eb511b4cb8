package schema

import (
	"fmt"
	"strings"
)

// schemaTypeOK is validSchemaType for the keyword's schemaType.
func schemaTypeOK(v any, types string) bool {
	if types == "" {
		return true
	}
	for _, t := range strings.Split(types, ",") {
		switch t {
		case "array":
			if _, ok := v.(*array); ok {
				return true
			}
		case "object":
			if _, ok := v.(*object); ok {
				return true
			}
		case "number":
			if _, ok := v.(float64); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "undefined":
		}
	}
	return false
}

var keywordSchemaTypes = map[string]string{
	"$ref": "string", "maximum": "number", "minimum": "number", "exclusiveMaximum": "number", "exclusiveMinimum": "number",
	"multipleOf": "number", "maxLength": "number", "minLength": "number", "pattern": "string", "maxProperties": "number",
	"minProperties": "number", "required": "array", "maxItems": "number", "minItems": "number", "uniqueItems": "boolean",
	"type": "string,array", "nullable": "boolean", "enum": "array", "not": "object,boolean", "anyOf": "array",
	"oneOf": "array", "allOf": "array", "if": "object,boolean", "then": "object,boolean", "else": "object,boolean",
	"propertyNames": "object,boolean", "additionalProperties": "boolean,object", "dependencies": "object",
	"properties": "object", "patternProperties": "object", "additionalItems": "boolean,object",
	"items": "object,array,boolean", "contains": "object,boolean", "format": "string", "formatMaximum": "string",
	"formatMinimum": "string", "formatExclusiveMaximum": "string", "formatExclusiveMinimum": "string",
}

func schemaTypeJSON(types string) string {
	parts := strings.Split(types, ",")
	for i, p := range parts {
		parts[i] = `"` + p + `"`
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// keyword compiles one keyword (keywordCode), returning nil when it generates no code. The
// keywords are compiled by family: keywords_logic.go (not, anyOf, oneOf, allOf, if/then/else),
// keywords_value.go (const, enum, the limits, pattern, format), keywords_object.go and
// keywords_array.go; $ref in refs.go.
func (c *compiler) keyword(it *cctx, o *object, kw string, v any, ruleType string) kwNode {
	if !c.keywordValueOK(it, o, kw, v) {
		return nil
	}
	ptr := it.ptr + "/" + escapePointer(kw)
	switch kw {
	case "$comment", "type", "nullable":
		return nil
	case "id":
		c.fault(ptr, "id", `"id" is draft-04; draft-07 spells it "$id"`, `NOT SUPPORTED: keyword "id", use "$id" for schema ID`)
		return nil
	case "$ref":
		return c.ref(it, v.(string))

	case "not":
		return c.not(it, v, ptr)
	case "anyOf", "oneOf":
		return c.union(it, kw, v.(*array), ptr)
	case "allOf":
		return c.allOf(it, v.(*array), ptr)
	case "if":
		return c.ifThenElse(it, o, v, ptr)
	case "then", "else":
		c.thenElse(it, o, kw, ptr)
		return nil

	case "const":
		return &kwConst{value: v, path: kwPath(it, kw)}
	case "enum":
		return c.enum(it, v.(*array), ptr)
	case "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum":
		return &kwLimit{kw: kw, limit: v.(float64), path: kwPath(it, kw)}
	case "multipleOf":
		return &kwMultipleOf{by: v.(float64), path: kwPath(it, kw)}
	case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
		return &kwCount{kw: kw, limit: v.(float64), path: kwPath(it, kw)}
	case "pattern":
		return c.patternKeyword(it, v.(string), ptr)
	case "format":
		return c.format(it, v.(string), ptr, ruleType)
	case "formatMaximum", "formatMinimum", "formatExclusiveMaximum", "formatExclusiveMinimum":
		return c.formatLimit(it, o, kw, v.(string), ptr)

	case "required":
		return c.required(it, v.(*array))
	case "properties":
		return c.properties(it, o, v.(*object), ptr)
	case "patternProperties":
		return c.patternProperties(it, o, v.(*object), ptr)
	case "additionalProperties":
		return c.additionalProperties(it, o, v, ptr)
	case "dependencies":
		return c.dependencies(it, v.(*object), ptr)
	case "propertyNames":
		return c.propertyNames(it, v, ptr)

	case "items":
		return c.items(it, v, ptr)
	case "additionalItems":
		return c.additionalItems(it, o, v, ptr)
	case "contains":
		return c.contains(it, v, ptr)
	case "uniqueItems":
		return c.uniqueItems(it, o, v)
	}
	return nil
}

// keywordValueOK refuses, as Ajv does before generating a keyword's code, a format keyword
// without "format" next to it and a keyword value of the wrong type.
func (c *compiler) keywordValueOK(it *cctx, o *object, kw string, v any) bool {
	if strings.HasPrefix(kw, "format") && kw != "format" {
		if !o.Has("format") {
			c.fault(it.ptr+"/"+kw, kw, fmt.Sprintf("%q needs a \"format\" next to it", kw), fmt.Sprintf("parent schema must have dependencies of %s: format", kw))
			return false
		}
	}
	if st, ok := keywordSchemaTypes[kw]; ok && !schemaTypeOK(v, st) {
		c.fault(it.ptr+"/"+kw, kw, fmt.Sprintf("the value of %q has the wrong type", kw), fmt.Sprintf("%s value must be %s", kw, schemaTypeJSON(st)))
		return false
	}
	return true
}
