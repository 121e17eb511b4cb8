package schema

import (
	"fmt"

	"github.com/plaios/plaios/internal/jsregexp"
)

// The keywords that validate objects: properties, patternProperties, additionalProperties,
// dependencies, required and propertyNames.

func (c *compiler) required(it *cctx, a *array) kwNode {
	if len(a.items) == 0 {
		return nil
	}
	k := &kwRequired{path: kwPath(it, "required")}
	for _, p := range a.items {
		k.props = append(k.props, jsString(p))
	}
	return k
}

func (c *compiler) propertyNames(it *cctx, v any, ptr string) kwNode {
	if c.alwaysValid(it, v, ptr) {
		return nil
	}
	s := c.sub(it, v, kwPath(it, "propertyNames"), ptr)
	s.dataVar = it.newKey()
	s.composite = true
	return &kwPropertyNames{body: c.subschemaCode(s), path: kwPath(it, "propertyNames")}
}

func (c *compiler) properties(it *cctx, o, props *object, ptr string) kwNode {
	k := &kwProperties{}
	for _, p := range props.JSKeys() {
		if p == "__proto__" {
			continue
		}
		sch := props.At(p)
		pp := ptr + "/" + escapePointer(p)
		if c.alwaysValid(it, sch, pp) {
			continue
		}
		hasDefault := false
		if so, ok := sch.(*object); ok && it.opts.useDefaults && !it.composite {
			_, hasDefault = so.Get("default")
		}
		body := c.subschemaCode(c.dataSub(it, sch, kwPropPath(it, "properties", p), pp))
		k.props = append(k.props, propNode{name: p, body: body, hasDefault: hasDefault})
	}
	if len(k.props) == 0 {
		return nil
	}
	return k
}

func (c *compiler) patternProperties(it *cctx, o, pats *object, ptr string) kwNode {
	patterns := pats.JSKeys()
	var filtered []string
	for _, p := range patterns {
		if p != "__proto__" {
			filtered = append(filtered, p)
		}
	}
	patterns = filtered
	always := map[string]bool{}
	for _, p := range patterns {
		always[p] = c.alwaysValid(it, pats.At(p), ptr+"/"+escapePointer(p))
	}
	n := 0
	for _, p := range patterns {
		if always[p] {
			n++
		}
	}
	if len(patterns) == 0 || n == len(patterns) {
		return nil
	}
	pv, _ := o.Get("properties")
	checkProps, _ := pv.(*object)
	k := &kwPatternProperties{}
	for _, p := range patterns {
		pp := ptr + "/" + escapePointer(p)
		if checkProps != nil && jsTruthy(pv) {
			re, err := jsregexp.Compile(p, "")
			if err != nil {
				c.fault(pp, "patternProperties", fmt.Sprintf("%q is not a JavaScript regular expression", p), err.Error())
				continue
			}
			for _, prop := range checkProps.JSKeys() {
				if re.MatchString(prop) {
					c.fault(pp, "patternProperties", fmt.Sprintf("the property %q also matches the pattern %q, which Ajv's strict mode refuses", prop, p),
						fmt.Sprintf("strict mode: property %s matches pattern %s (use allowMatchingProperties)", prop, p))
				}
			}
		}
		re := c.pattern(it, pp, "patternProperties", p)
		if re == nil {
			continue
		}
		pn := patternNode{re: re}
		it.newKey()
		if !always[p] {
			pn.body = c.subschemaCode(c.dataSub(it, pats.At(p), kwPropPath(it, "patternProperties", p), pp))
		}
		k.patterns = append(k.patterns, pn)
	}
	return k
}

func (c *compiler) additionalProperties(it *cctx, o *object, v any, ptr string) kwNode {
	if c.alwaysValid(it, v, ptr) {
		return nil
	}
	k := &kwAdditionalProperties{path: kwPath(it, "additionalProperties")}
	if pv, ok := o.Get("properties"); ok {
		if po, ok := pv.(*object); ok {
			for _, p := range po.JSKeys() {
				if p != "__proto__" {
					k.props = append(k.props, p)
				}
			}
			k.propsObj = po
		}
	}
	if pv, ok := o.Get("patternProperties"); ok {
		if po, ok := pv.(*object); ok {
			for _, p := range po.JSKeys() {
				if p == "__proto__" {
					continue
				}
				re := c.pattern(it, it.ptr+"/patternProperties/"+escapePointer(p), "patternProperties", p)
				if re != nil {
					k.patterns = append(k.patterns, re)
				}
			}
		}
	}
	it.newKey()
	if v == false {
		k.never = true
		return k
	}
	if _, ok := v.(*object); ok {
		k.body = c.subschemaCode(c.dataSub(it, v, kwPath(it, "additionalProperties"), ptr))
		return k
	}
	return nil
}

func (c *compiler) dependencies(it *cctx, deps *object, ptr string) kwNode {
	k := &kwDependencies{path: kwPath(it, "dependencies")}
	for _, p := range deps.JSKeys() {
		if p == "__proto__" {
			continue
		}
		v := deps.At(p)
		if a, ok := v.(*array); ok {
			var names []string
			for _, it := range a.items {
				names = append(names, jsString(it))
			}
			k.propDeps = append(k.propDeps, propDep{prop: p, deps: names})
		}
	}
	for _, p := range deps.JSKeys() {
		if p == "__proto__" {
			continue
		}
		v := deps.At(p)
		if _, ok := v.(*array); ok {
			continue
		}
		pp := ptr + "/" + escapePointer(p)
		if c.alwaysValid(it, v, pp) {
			continue
		}
		k.schemaDeps = append(k.schemaDeps, schemaDep{prop: p, body: c.subschemaCode(c.sub(it, v, kwPropPath(it, "dependencies", p), pp))})
	}
	if len(k.propDeps) == 0 && len(k.schemaDeps) == 0 {
		return nil
	}
	return k
}
