package schema

import "fmt"

// The keywords that combine subschemas: not, anyOf, oneOf, allOf and if/then/else.

func (c *compiler) not(it *cctx, v any, ptr string) kwNode {
	if c.alwaysValid(it, v, ptr) {
		return &kwNot{always: true, path: kwPath(it, "not")}
	}
	s := c.sub(it, v, kwPath(it, "not"), ptr)
	s.composite, s.allErrors = true, false
	return &kwNot{body: c.subschemaCode(s), path: kwPath(it, "not")}
}

// union compiles anyOf and oneOf; an anyOf with an always-valid branch is always valid.
func (c *compiler) union(it *cctx, kw string, a *array, ptr string) kwNode {
	k := &kwUnion{one: kw == "oneOf", path: kwPath(it, kw)}
	if kw == "anyOf" {
		for i, sch := range a.items {
			if c.alwaysValid(it, sch, fmt.Sprintf("%s/%d", ptr, i)) {
				return nil
			}
		}
	}
	for i, sch := range a.items {
		p := fmt.Sprintf("%s/%d", ptr, i)
		if kw == "oneOf" && c.alwaysValid(it, sch, p) {
			k.branches = append(k.branches, nil)
			continue
		}
		s := c.sub(it, sch, kwPropPath(it, kw, fmt.Sprint(i)), p)
		s.composite = true
		k.branches = append(k.branches, c.subschemaCode(s))
	}
	return k
}

func (c *compiler) allOf(it *cctx, a *array, ptr string) kwNode {
	k := &kwAllOf{}
	for i, sch := range a.items {
		p := fmt.Sprintf("%s/%d", ptr, i)
		if c.alwaysValid(it, sch, p) {
			continue
		}
		k.parts = append(k.parts, c.subschemaCode(c.sub(it, sch, kwPropPath(it, "allOf", fmt.Sprint(i)), p)))
	}
	if len(k.parts) == 0 {
		return nil
	}
	return k
}

// ifThenElse compiles "if" with the "then" and "else" next to it; strict mode refuses an "if"
// with neither.
func (c *compiler) ifThenElse(it *cctx, o *object, v any, ptr string) kwNode {
	if !o.Has("then") && !o.Has("else") {
		c.fault(ptr, "if", `"if" has no "then" nor "else"`, `strict mode: "if" without "then" and "else" is ignored`)
		return nil
	}
	hasSchema := func(name string) bool {
		s, ok := o.Get(name)
		return ok && !c.alwaysValid(it, s, it.ptr+"/"+name)
	}
	hasThen, hasElse := hasSchema("then"), hasSchema("else")
	if !hasThen && !hasElse {
		return nil
	}
	k := &kwIf{path: kwPath(it, "if")}
	s := c.sub(it, v, kwPath(it, "if"), ptr)
	s.composite, s.allErrors = true, false
	k.cond = c.subschemaCode(s)
	if hasThen {
		t, _ := o.Get("then")
		k.then = c.subschemaCode(c.sub(it, t, kwPath(it, "then"), it.ptr+"/then"))
	}
	if hasElse {
		e, _ := o.Get("else")
		k.els = c.subschemaCode(c.sub(it, e, kwPath(it, "else"), it.ptr+"/else"))
	}
	return k
}

// thenElse: "then" and "else" are compiled with their "if"; strict mode refuses them alone.
func (c *compiler) thenElse(it *cctx, o *object, kw, ptr string) {
	if !o.Has("if") {
		c.fault(ptr, kw, fmt.Sprintf("%q has no \"if\"", kw), fmt.Sprintf("strict mode: %q without \"if\" is ignored", kw))
	}
}
