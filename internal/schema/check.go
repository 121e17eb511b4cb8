package schema

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/plaios/plaios/internal/jsregexp"

	"github.com/plaios/plaios/internal/jsonpos"
)

// The rule IDs of RULES.md, section "Tool schemas", that findings carry.
const (
	RuleInvalid        = "schema-invalid"
	RuleTypeUnknown    = "schema-type-unknown"
	RuleDraft          = "schema-draft"
	RuleMetaID         = "schema-meta-id"
	RuleAsync          = "schema-async"
	RuleFormatUnknown  = "schema-format-unknown"
	RuleKeywordUnknown = "schema-keyword-unknown"
	RuleDefaultInvalid = "schema-default-invalid"
	RuleNotStrict      = "schema-not-strict"
	RuleToolName       = "tool-name-invalid"
)

// Finding is one fault of a schema. The caller decides its severity from Rule (and may raise
// it when Fatal: a keyword or format that RULES.md lists as a warning breaks every call in
// AgentOS, whose Ajv runs in strict mode).
type Finding struct {
	Rule    string
	Pointer string      // JSON Pointer into the schema document ("" for the root)
	Pos     jsonpos.Pos // where in the file; zero when the schema did not come from a file
	Message string      // one sentence
	Hint    string      // how to fix it, when there is something to say
	Fatal   bool        // the AgentOS executor cannot compile the schema: every call that reads it fails
}

// Options selects the optional checks.
type Options struct {
	// Strict adds schema-not-strict: every object closed with "additionalProperties": false
	// and every property listed in "required" ("not given" written as null), as OpenAI-style
	// strict function calling, and so PLAIOS capabilities, need.
	Strict bool
	// Reader names what reads the schema, for messages ("OpenClaw", "the PLAIOS host"). Empty
	// means the AgentOS executor, whose Ajv runs in strict mode: only then do an unknown
	// keyword or format break the schema (Fatal); other readers pass over them.
	Reader string
}

// agentOS reports whether the schema is read by the AgentOS executor.
func (k *checker) agentOS() bool { return k.opts.Reader == "" }

// unreached words a fault in a subschema that Ajv's compile did not reach.
func (k *checker) unreached(fault, it string) string {
	if k.agentOS() {
		return fault + " (the AgentOS executor never reads this subschema, other validators ignore " + it + ")."
	}
	return fault + "; " + k.reader() + " passes over " + it + "."
}

func (k *checker) asyncMessage() string {
	if k.agentOS() {
		return "The schema is $async: the AgentOS executor calls Ajv's validator without awaiting it, so arguments are never rejected, and a rejected promise nobody handles can stop the host."
	}
	return "The schema is $async: a validator that runs synchronously never rejects a value with it."
}

// reader names what reads the schema.
func (k *checker) reader() string {
	if k.opts.Reader == "" {
		return "the AgentOS executor"
	}
	return k.opts.Reader
}

// Check returns the findings of a schema given as plain values (encoding/json's, or anything
// encoding/json can encode). Findings have no positions. A nil schema is reported as not a
// schema; a tool that has none is the caller's business (the AgentOS executor then skips
// validation).
func Check(schema any, opts Options) []Finding {
	v, err := fromGo(schema)
	if err != nil {
		return []Finding{{Rule: RuleInvalid, Message: "The schema is not JSON: " + err.Error() + ".", Fatal: true}}
	}
	return check(v, nil, opts)
}

// CheckFile returns the findings of a schema parsed from a file, each with its position.
func CheckFile(schema *jsonpos.Value, opts Options) []Finding {
	if schema == nil {
		return []Finding{{Rule: RuleInvalid, Message: "The schema is missing.", Fatal: true}}
	}
	return check(fromJSONPos(schema), schema, opts)
}

type checker struct {
	root     any
	doc      *jsonpos.Value
	opts     Options
	findings []Finding
	seen     map[string]bool // rule + pointer

	defaults    *compiler // compiles the subschemas whose defaults are checked
	defaultsEnv *env
}

func (k *checker) add(f Finding, atKey bool) {
	id := f.Rule + "\x00" + f.Pointer
	if k.seen[id] {
		return
	}
	k.seen[id] = true
	if k.doc != nil {
		f.Pos = position(k.doc, f.Pointer, atKey)
	}
	k.findings = append(k.findings, f)
}

func check(v any, doc *jsonpos.Value, opts Options) []Finding {
	k := &checker{root: v, doc: doc, opts: opts, seen: map[string]bool{}}
	reg := NewRegistry()
	reg.mu.Lock()
	_, faults, err := reg.compile(v, true)
	reg.mu.Unlock()
	if err != nil {
		k.add(Finding{Rule: RuleInvalid, Message: "The schema is not JSON: " + err.Error() + ".", Fatal: true}, false)
		return k.findings
	}
	for _, f := range faults {
		k.fault(f)
	}
	k.walk(v)
	k.spec(v)
	sort.SliceStable(k.findings, func(i, j int) bool {
		a, b := k.findings[i], k.findings[j]
		if a.Pos.Offset != b.Pos.Offset {
			return a.Pos.Offset < b.Pos.Offset
		}
		return a.Pointer < b.Pointer
	})
	return k.findings
}

// fault turns what Ajv would throw into a finding.
func (k *checker) fault(f *CompileError) {
	msg := f.Ajv
	fd := Finding{Pointer: f.Pointer, Fatal: true}
	atKey := false
	switch {
	case strings.HasPrefix(msg, "strict mode: unknown keyword"):
		fd.Rule = RuleKeywordUnknown
		fd.Message = fmt.Sprintf("%q is not a draft-07 keyword; the AgentOS executor (Ajv in strict mode) refuses the schema because of it.", f.Keyword)
		if !k.agentOS() {
			fd.Message = fmt.Sprintf("%q is not a draft-07 keyword; %s passes over it, so the schema checks less than it reads.", f.Keyword, k.reader())
			fd.Fatal = false
		}
		fd.Hint = keywordHint(f.Keyword)
		atKey = true
	case strings.HasPrefix(msg, "unknown format"):
		name, _ := k.valueAt(f.Pointer).(string)
		fd.Rule = RuleFormatUnknown
		fd.Message = "The format " + quoteOr(name, "given") + " is not one ajv-formats knows; the AgentOS executor (Ajv in strict mode) refuses the schema because of it."
		if !k.agentOS() {
			fd.Message = "The format " + quoteOr(name, "given") + " is not one ajv-formats knows; " + k.reader() + " does not check it."
			fd.Fatal = false
		}
		fd.Hint = formatHint(name)
	case strings.HasPrefix(msg, "no schema with key or ref") || strings.HasPrefix(msg, "$schema must be a string"):
		fd.Rule = RuleDraft
		fd.Message = "\"$schema\" names another draft than draft-07, the only one Ajv reads by default: " + k.reader() + " cannot use the schema."
		fd.Hint = `Write "$schema": "http://json-schema.org/draft-07/schema#", or leave "$schema" out.`
	case (strings.Contains(msg, "already exists") || strings.Contains(msg, "resolves to more than one schema")) && strings.Contains(f.Reason, "meta-schema"):
		fd.Rule = RuleMetaID
		fd.Message = "\"$id\" is the draft-07 meta-schema's own id, which Ajv already holds: every call fails."
		fd.Hint = "Give the schema an id of its own (or none)."
	case strings.HasPrefix(msg, "async schema"):
		fd.Rule = RuleAsync
		fd.Message = "An \"$async\" subschema inside a schema that is not $async: " + k.reader() + " cannot compile it."
		fd.Hint = `Remove "$async".`
	case strings.HasPrefix(msg, "type must be JSONType") || strings.HasPrefix(msg, "schema is invalid") && typePointer(f.Pointer) != "":
		if p := typePointer(f.Pointer); p != "" {
			fd.Pointer = p
		}
		fd.Rule = RuleTypeUnknown
		fd.Message = fmt.Sprintf("%s is not a JSON Schema type (%s); %s cannot use the schema.", typeText(k, f.Pointer), "string, number, integer, boolean, null, object, array", k.reader())
		fd.Hint = typeHint(k, f.Pointer)
	default:
		fd.Rule = RuleInvalid
		fd.Message = sentence(f.Reason) + " The AgentOS executor cannot compile the schema (Ajv: " + msg + ")."
		if !k.agentOS() {
			fd.Message = sentence(f.Reason) + " The schema does not compile as JSON Schema draft-07 (Ajv: " + msg + "), so " + k.reader() + " cannot rely on it."
		}
	}
	k.add(fd, atKey)
}

// typePointer returns the pointer of the "type" keyword a meta-schema error at ptr is about
// (ptr itself, or its parent for an entry of a type array), or "" when it is about something
// else, such as a property that happens to be named "type".
func typePointer(ptr string) string {
	p := ptr
	if i := strings.LastIndexByte(p, '/'); i >= 0 && jsonpos.IsArrayIndex(p[i+1:]) {
		p = p[:i]
	}
	if lastToken(p) != "type" {
		return ""
	}
	parent := strings.TrimSuffix(p, "/type")
	for _, s := range []string{"/properties", "/definitions", "/$defs", "/patternProperties", "/dependencies"} {
		if strings.HasSuffix(parent, s) {
			return ""
		}
	}
	return p
}

// valueAt finds the value at ptr in the checked schema.
func (k *checker) valueAt(ptr string) any {
	cur := k.root
	if ptr == "" {
		return cur
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		next, ok := childOf(cur, unescapePointer(tok))
		if !ok {
			return nil
		}
		cur = next
	}
	return cur
}

func typeText(k *checker, ptr string) string {
	return fmt.Sprintf("\"type\" %s", jsonOf(k.valueAt(ptr)))
}

func jsonOf(v any) string {
	s := jsonString(v)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func quoteOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return fmt.Sprintf("%q", s)
}

func sentence(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// walk visits every subschema, for the checks that do not depend on Ajv reaching it.
func (k *checker) walk(root any) {
	var visit func(v any, ptr string, depth int, isRoot bool)
	visit = func(v any, ptr string, depth int, isRoot bool) {
		o, ok := v.(*object)
		if !ok || depth > maxDepth {
			return
		}
		for _, kw := range o.JSKeys() {
			if !knownKeywords[kw] {
				k.add(Finding{Rule: RuleKeywordUnknown, Pointer: ptr + "/" + escapePointer(kw),
					Message: k.unreached(fmt.Sprintf("%q is not a draft-07 keyword", kw), "the keyword"),
					Hint:    keywordHint(kw)}, true)
			}
		}
		if fv, ok := o.Get("format"); ok {
			if name, ok := fv.(string); ok {
				if _, known := formats[name]; !known {
					k.add(Finding{Rule: RuleFormatUnknown, Pointer: ptr + "/format",
						Message: k.unreached(fmt.Sprintf("The format %q is not one ajv-formats knows", name), "it"),
						Hint:    formatHint(name)}, false)
				}
			}
		}
		if sv, ok := o.Get("$schema"); ok && !isRoot {
			if s, ok := sv.(string); ok && s != "" && normalizeID(s) != metaID && normalizeID(s) != "http://json-schema.org/schema" {
				k.add(Finding{Rule: RuleDraft, Pointer: ptr + "/$schema",
					Message: fmt.Sprintf("\"$schema\" %q inside a subschema names another draft; Ajv ignores it there and reads draft-07.", s),
					Hint:    `Remove the nested "$schema".`}, false)
			}
		}
		if av, ok := o.Get("$async"); ok && jsTruthy(av) {
			if isRoot {
				k.add(Finding{Rule: RuleAsync, Pointer: "/$async",
					Message: k.asyncMessage(),
					Hint:    `Remove "$async": true.`}, false)
			} else {
				k.add(Finding{Rule: RuleAsync, Pointer: ptr + "/$async",
					Message: "An \"$async\" subschema inside a schema that is not $async: Ajv cannot compile it when it reaches it.",
					Hint:    `Remove "$async".`}, false)
			}
		}
		if d, ok := o.Get("default"); ok && !isRoot {
			k.checkDefault(root, o, ptr, d)
		}
		if k.opts.Strict {
			k.strict(o, ptr)
		}
		forEachSubschema(o, ptr, func(sub any, p string) { visit(sub, p, depth+1, false) })
	}
	visit(root, "", 0, true)
}

// forEachSubschema calls f for every draft-07 subschema of o.
func forEachSubschema(o *object, ptr string, f func(any, string)) {
	for _, kw := range o.JSKeys() {
		v := o.At(kw)
		p := ptr + "/" + escapePointer(kw)
		switch kw {
		case "properties", "patternProperties", "definitions", "$defs", "dependencies":
			if m, ok := v.(*object); ok {
				for _, name := range m.JSKeys() {
					if _, isArr := m.At(name).(*array); kw == "dependencies" && isArr {
						continue
					}
					f(m.At(name), p+"/"+escapePointer(name))
				}
			}
		case "items", "allOf", "anyOf", "oneOf":
			if a, ok := v.(*array); ok {
				for i, it := range a.items {
					f(it, fmt.Sprintf("%s/%d", p, i))
				}
			} else if kw == "items" {
				f(v, p)
			}
		case "additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else":
			f(v, p)
		}
	}
}

// checkDefault reports a default its own schema rejects, as Ajv would validate it once
// written (coerced, with nested defaults).
func (k *checker) checkDefault(root any, o *object, ptr string, d any) {
	if k.defaults == nil {
		reg := NewRegistry()
		k.defaults = &compiler{reg: reg, collect: true, funcs: map[funcKey]*fnNode{}, opts: userOpts, seen: map[string]bool{}}
		k.defaultsEnv = k.defaults.addSchema(root)
	}
	if k.defaultsEnv == nil {
		return
	}
	c := k.defaults
	it := &cctx{env: k.defaultsEnv, schema: o, baseID: baseIDAt(root, ptr), errSchemaPath: "#", ptr: ptr, allErrors: true,
		opts: userOpts, dataVar: "data", vars: &varCounters{}}
	n := c.subschemaCode(it)
	ev := &evaluator{coerce: true, defaults: true}
	s := &Schema{root: &env{fn: &fnNode{body: n, opts: userOpts}}}
	_, errs := ev.call(s, deepCopy(d))
	if len(errs) == 0 {
		return
	}
	var msgs []string
	for i, e := range errs {
		if i == 3 {
			msgs = append(msgs, "…")
			break
		}
		msgs = append(msgs, e.String())
	}
	k.add(Finding{Rule: RuleDefaultInvalid, Pointer: ptr + "/default",
		Message: fmt.Sprintf("The default %s fails its own schema (%s): a call that leaves the value out fails.", jsonOf(d), strings.Join(msgs, "; ")),
		Hint:    "Change the default so that it satisfies the schema next to it."}, false)
}

// baseIDAt computes the base URI in force at ptr, as Ajv's code generation tracks it.
func baseIDAt(root any, ptr string) string {
	base := ""
	if o, ok := root.(*object); ok {
		if s, ok := o.Get("$id"); ok {
			if str, ok := s.(string); ok {
				base = normalizeID(str)
			}
		}
	}
	if base == "" {
		base = "#"
	}
	cur := root
	if ptr == "" {
		return base
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		next, ok := childOf(cur, unescapePointer(tok))
		if !ok {
			break
		}
		cur = next
		if o, ok := cur.(*object); ok {
			if s, ok := o.Get("$id"); ok {
				if str, ok := s.(string); ok && str != "" {
					base = resolveURL(base, str)
				}
			}
		}
	}
	return base
}

// strict reports what OpenAI-style strict mode refuses in one object schema.
func (k *checker) strict(o *object, ptr string) {
	isObject := o.Has("properties")
	switch t := o.At("type").(type) {
	case string:
		isObject = isObject || t == "object"
	case *array:
		for _, x := range t.items {
			isObject = isObject || x == "object"
		}
	}
	if !isObject {
		return
	}
	if ap, ok := o.Get("additionalProperties"); !ok || ap != false {
		p := ptr
		if ok {
			p = ptr + "/additionalProperties"
		}
		k.add(Finding{Rule: RuleNotStrict, Pointer: p,
			Message: "The object does not close with \"additionalProperties\": false, which strict mode requires.",
			Hint:    `Add "additionalProperties": false.`}, ok)
	}
	props, _ := o.At("properties").(*object)
	if props == nil {
		return
	}
	required := map[string]bool{}
	if r, ok := o.At("required").(*array); ok {
		for _, x := range r.items {
			if s, ok := x.(string); ok {
				required[s] = true
			}
		}
	}
	for _, name := range props.JSKeys() {
		if required[name] {
			continue
		}
		hint := fmt.Sprintf("Add %q to \"required\".", name)
		if !allowsNull(props.At(name)) {
			hint = fmt.Sprintf("Add %q to \"required\" and let it be null when it is not given (\"type\": [\"…\", \"null\"]).", name)
		}
		k.add(Finding{Rule: RuleNotStrict, Pointer: ptr + "/properties/" + escapePointer(name),
			Message: fmt.Sprintf("The property %q is not in \"required\"; strict mode needs every property listed.", name),
			Hint:    hint}, true)
	}
}

// allowsNull says whether a property schema lets null through.
func allowsNull(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case *object:
		if t, ok := x.Get("type"); ok {
			switch tt := t.(type) {
			case string:
				if tt == "null" {
					return true
				}
			case *array:
				for _, it := range tt.items {
					if it == "null" {
						return true
					}
				}
			}
			if n, ok := x.Get("nullable"); ok && n == true {
				return true
			}
			return false
		}
		for _, kw := range []string{"anyOf", "oneOf"} {
			if a, ok := x.At(kw).(*array); ok {
				for _, b := range a.items {
					if allowsNull(b) {
						return true
					}
				}
				return false
			}
		}
		if e, ok := x.At("enum").(*array); ok {
			for _, it := range e.items {
				if it == nil {
					return true
				}
			}
			return false
		}
		if c, ok := x.Get("const"); ok {
			return c == nil
		}
		return true
	}
	return false
}

// spec looks where Ajv's compilation may never reach (an unreferenced definition, an anyOf
// branch after an always-valid one) for what breaks any draft-07 validator there: a "$ref"
// that leads nowhere or outside the schema, and a pattern that is not a regular expression.
// The meta-schema itself was already checked over the whole document by the compile.
func (k *checker) spec(root any) {
	ids := map[string]bool{}
	var collect func(v any, depth int)
	collect = func(v any, depth int) {
		if depth > maxDepth {
			return
		}
		switch x := v.(type) {
		case *object:
			for _, key := range []string{"$id", "id"} {
				if id, ok := x.At(key).(string); ok && id != "" {
					ids[strings.TrimSuffix(id, "#")] = true
				}
			}
			for _, kw := range x.JSKeys() {
				collect(x.At(kw), depth+1)
			}
		case *array:
			for _, it := range x.items {
				collect(it, depth+1)
			}
		}
	}
	collect(root, 0)
	var visit func(v any, ptr string, depth int)
	visit = func(v any, ptr string, depth int) {
		if depth > maxDepth {
			return
		}
		switch x := v.(type) {
		case *object:
			if ref, ok := x.At("$ref").(string); ok {
				k.specRef(root, ref, ptr+"/$ref", ids)
			}
			if pat, ok := x.At("pattern").(string); ok {
				k.specPattern(pat, ptr+"/pattern")
			}
			if pp, ok := x.At("patternProperties").(*object); ok {
				for _, key := range pp.JSKeys() {
					k.specPattern(key, ptr+"/patternProperties/"+escapePointer(key))
				}
			}
			for _, kw := range x.JSKeys() {
				if kw == "enum" || kw == "const" || kw == "default" || kw == "examples" {
					continue // data, not schemas
				}
				visit(x.At(kw), ptr+"/"+escapePointer(kw), depth+1)
			}
		case *array:
			for i, it := range x.items {
				visit(it, fmt.Sprintf("%s/%d", ptr, i), depth+1)
			}
		}
	}
	visit(root, "", 0)
}

func (k *checker) specRef(root any, ref, ptr string, ids map[string]bool) {
	if k.seenPointer(ptr) {
		return
	}
	switch {
	case ref == "#" || ref == "":
		return
	case strings.HasPrefix(ref, "#/"):
		if _, ok := resolveLocal(root, ref[1:]); !ok {
			k.add(Finding{Rule: RuleInvalid, Pointer: ptr, Message: fmt.Sprintf("The reference %q leads nowhere in the schema.", ref)}, false)
		}
	case strings.HasPrefix(ref, "#"):
		return // a plain-name fragment; the compile resolves anchors it reaches
	default:
		base := ref
		if i := strings.IndexByte(base, '#'); i >= 0 {
			base = base[:i]
		}
		if ids[base] || normalizeID(base) == metaID {
			return
		}
		for id := range ids {
			if strings.HasSuffix(id, "/"+base) || strings.HasSuffix(id, base) {
				return // relative to an $id of the document
			}
		}
		k.add(Finding{Rule: RuleInvalid, Pointer: ptr, Message: fmt.Sprintf("The reference %q points outside the schema; validators do not fetch it.", ref),
			Hint: "Put the referenced schema under \"definitions\" and refer to it with \"#/definitions/…\"."}, false)
	}
}

func (k *checker) specPattern(pat, ptr string) {
	if k.seenPointer(ptr) {
		return
	}
	if _, err := jsregexp.Compile(pat, "u"); err != nil {
		k.add(Finding{Rule: RuleInvalid, Pointer: ptr, Message: fmt.Sprintf("%q is not a regular expression: %v.", pat, err)}, false)
	}
}

// resolveLocal follows a JSON pointer ("/definitions/x", percent-decoded) from the root.
func resolveLocal(root any, ptr string) (any, bool) {
	if dec, err := url.PathUnescape(ptr); err == nil {
		ptr = dec
	}
	cur := root
	if ptr == "" {
		return cur, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapePointer(tok)
		switch x := cur.(type) {
		case *object:
			next, ok := x.Get(tok)
			if !ok {
				return nil, false
			}
			cur = next
		case *array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x.items) || !jsonpos.IsArrayIndex(tok) {
				return nil, false
			}
			cur = x.items[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// seenPointer says whether some finding already stands at ptr or below it.
func (k *checker) seenPointer(ptr string) bool {
	for _, f := range k.findings {
		if f.Pointer == ptr || strings.HasPrefix(f.Pointer, ptr+"/") || strings.HasPrefix(ptr, f.Pointer+"/") && f.Rule != RuleNotStrict {
			return true
		}
	}
	return false
}

// refSite finds the $ref whose value is ref, or the root.
func refSite(v any, ref string) string {
	found := ""
	var visit func(v any, ptr string, depth int)
	visit = func(v any, ptr string, depth int) {
		if found != "" || depth > maxDepth {
			return
		}
		switch x := v.(type) {
		case *object:
			for _, kw := range x.JSKeys() {
				if kw == "$ref" && x.At(kw) == ref {
					found = ptr + "/$ref"
					return
				}
				visit(x.At(kw), ptr+"/"+escapePointer(kw), depth+1)
			}
		case *array:
			for i, it := range x.items {
				visit(it, fmt.Sprintf("%s/%d", ptr, i), depth+1)
			}
		}
	}
	visit(v, "", 0)
	return found
}

// lookupPointer finds the value at ptr in a parsed document.
func lookupPointer(doc *jsonpos.Value, ptr string) (*jsonpos.Value, bool) {
	if doc == nil {
		return nil, false
	}
	cur := doc
	if ptr == "" {
		return cur, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapePointer(tok)
		switch cur.Kind {
		case jsonpos.Object:
			next := cur.Get(tok)
			if next == nil {
				return nil, false
			}
			cur = next
		case jsonpos.Array:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(cur.Items) || !jsonpos.IsArrayIndex(tok) {
				return nil, false
			}
			cur = cur.Items[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// position is where a finding points in the file: the key of the last member when atKey,
// else the value (the nearest existing ancestor when the pointer goes past the document).
func position(doc *jsonpos.Value, ptr string, atKey bool) jsonpos.Pos {
	for {
		if atKey && ptr != "" {
			i := strings.LastIndexByte(ptr, '/')
			if parent, ok := lookupPointer(doc, ptr[:i]); ok {
				if m := parent.Member(unescapePointer(ptr[i+1:])); m != nil {
					return m.KeyPos
				}
			}
		}
		if v, ok := lookupPointer(doc, ptr); ok {
			return v.Pos
		}
		if ptr == "" {
			return doc.Pos
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
		atKey = false
	}
}
