package schema

import (
	"fmt"
	"strings"
)

// validateSchema checks the schema against its meta-schema, as Ajv does before compiling.
func (c *compiler) validateSchema(e *env) {
	o, ok := e.schema.(*object)
	if !ok {
		if _, isArr := e.schema.(*array); !isArr {
			return
		}
	}
	if o != nil {
		if s, ok := o.Get("$schema"); ok {
			str, isStr := s.(string)
			if !isStr {
				c.fault("/$schema", "$schema", `"$schema" must be a string`, "$schema must be a string")
				return
			}
			if str != "" {
				id := normalizeID(str)
				ent, found := c.reg.refs[id]
				if found && ent.alias != "" {
					id = ent.alias
					ent, found = c.reg.refs[id]
				}
				if !found || ent.env == nil || id != metaID {
					c.fault("/$schema", "$schema", fmt.Sprintf("$schema %q is not draft-07, the only draft Ajv reads as the executor configures it", str),
						fmt.Sprintf("no schema with key or ref %q", str))
					return
				}
			}
		}
	}
	errs := validateAgainstMeta(e.schema)
	if len(errs) == 0 {
		return
	}
	texts := make([]string, len(errs))
	for i, er := range errs {
		texts[i] = "data" + er.InstancePath + " " + er.Message
	}
	ajv := "schema is invalid: " + strings.Join(texts, ", ")
	if !c.collect {
		first := errs[0]
		c.fault(first.InstancePath, lastToken(first.InstancePath), metaReason(errs), ajv)
		return
	}
	// In collect mode every faulty place is noted once.
	byPtr := map[string][]Error{}
	var order []string
	for _, er := range errs {
		if _, ok := byPtr[er.InstancePath]; !ok {
			order = append(order, er.InstancePath)
		}
		byPtr[er.InstancePath] = append(byPtr[er.InstancePath], er)
	}
	for _, p := range order {
		c.fault(p, lastToken(p), metaReason(byPtr[p]), ajv)
	}
}

func lastToken(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		return unescapePointer(ptr[i+1:])
	}
	return ""
}

// metaReason says in words what the meta-schema errors at one place mean.
func metaReason(errs []Error) string {
	p := errs[0].InstancePath
	kw := lastToken(p)
	var msgs []string
	for _, e := range errs {
		if e.InstancePath == p && e.Keyword != "anyOf" {
			msgs = append(msgs, e.Message)
		}
	}
	if len(msgs) == 0 {
		msgs = append(msgs, errs[0].Message)
	}
	if kw == "" {
		return "the schema " + strings.Join(msgs, " and ")
	}
	return fmt.Sprintf("%q %s", kw, strings.Join(msgs, " and "))
}
