package schema

import (
	"fmt"

	"github.com/plaios/plaios/internal/jsregexp"
)

// The keywords that validate a value itself: enum (const needs no compiling), the numeric
// limits, pattern, format and the format limits of ajv-formats.

func (c *compiler) enum(it *cctx, a *array, ptr string) kwNode {
	if len(a.items) == 0 {
		c.fault(ptr, "enum", `"enum" is empty`, "enum must have non-empty array")
		return nil
	}
	return &kwEnum{values: a.items, path: kwPath(it, "enum")}
}

func (c *compiler) patternKeyword(it *cctx, src, ptr string) kwNode {
	re := c.pattern(it, ptr, "pattern", src)
	if re == nil {
		return nil
	}
	return &kwPattern{re: re, source: src, path: kwPath(it, "pattern")}
}

// pattern compiles a regular expression as usePattern does (u flag).
func (c *compiler) pattern(it *cctx, ptr, kw, src string) *jsregexp.Regexp {
	re, err := jsregexp.Compile(src, "u")
	if err != nil {
		c.fault(ptr, kw, fmt.Sprintf("%q is not a JavaScript regular expression with the u flag", src), err.Error())
		return nil
	}
	return re
}

// format compiles "format" for the rule type being compiled; strict mode refuses a format
// ajv-formats does not know.
func (c *compiler) format(it *cctx, name, ptr, ruleType string) kwNode {
	if !it.opts.validateFormats {
		return nil
	}
	f, ok := formats[name]
	if !ok {
		c.fault(ptr, "format", fmt.Sprintf("%q is not a format ajv-formats knows, and Ajv's strict mode refuses unknown formats", name),
			fmt.Sprintf("unknown format %q ignored in schema at path %q", name, it.errSchemaPath))
		return nil
	}
	if f.always || f.typ != ruleType {
		return nil
	}
	return &kwFormat{name: name, f: f, path: kwPath(it, "format")}
}

// formatLimit compiles formatMaximum and its kin, for the formats that can be compared.
func (c *compiler) formatLimit(it *cctx, o *object, kw, limit, ptr string) kwNode {
	if !it.opts.validateFormats {
		return nil
	}
	fv, _ := o.Get("format")
	name, _ := fv.(string)
	f, ok := formats[name]
	if !ok || f.always {
		return nil
	}
	if f.compare == nil {
		c.fault(ptr, kw, fmt.Sprintf("format %q cannot be compared", name), fmt.Sprintf("%q: format %q does not define \"compare\" function", kw, name))
		return nil
	}
	return &kwFormatLimit{kw: kw, limit: limit, f: f, path: kwPath(it, kw)}
}
