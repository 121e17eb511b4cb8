package schema

import (
	"fmt"
	"strings"
	"sync"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/jsregexp"
)

// CompileError says why the AgentOS executor cannot compile a schema: Ajv throws while
// compiling it, so every call that reads the schema fails (SYS_CONFIGURATION_ERROR as the
// AgentOS guide names it; TOOL_EXECUTION_FAILED in @framers/agentos 0.9.164).
type CompileError struct {
	Pointer string // JSON Pointer of the (sub)schema at fault in the document ("" for the root)
	Keyword string // the keyword at fault, when one is
	Reason  string // one sentence for a person
	Ajv     string // the message Ajv throws
}

func (e *CompileError) Error() string {
	where := "the schema"
	if e.Pointer != "" {
		where = "the schema at " + e.Pointer
	}
	return fmt.Sprintf("%s does not compile: %s (Ajv: %s)", where, e.Reason, e.Ajv)
}

// Schema is a compiled schema, ready to validate as the AgentOS executor does.
type Schema struct {
	root  *env
	async bool
}

// Async reports a root `$async: true`: the executor then gets a promise from Ajv, which is
// always truthy, so it never rejects the arguments (the errors surface as an unhandled
// rejection instead).
func (s *Schema) Async() bool { return s.async }

// Registry is one Ajv instance: the executor keeps one for every tool it runs, and Ajv
// remembers every `$id` it has compiled, so a second, different schema object with an `$id`
// already seen fails to compile. Compile a pack's schemas through one Registry, in the order
// the executor would, to see that.
type Registry struct {
	mu    sync.Mutex
	refs  map[string]refEntry // Ajv's refs and schemas: id → schema, or an alias to a JSON-Pointer URL
	cache map[uintptr]*env    // compiled schemas by the identity of the value given
}

type refEntry struct {
	env   *env
	alias string
}

// NewRegistry returns an empty registry that knows the draft-07 meta-schema, as Ajv does.
func NewRegistry() *Registry {
	r := &Registry{refs: map[string]refEntry{}, cache: map[uintptr]*env{}}
	m := metaEnv()
	r.refs[metaID] = refEntry{env: m}
	r.refs["http://json-schema.org/schema"] = refEntry{alias: metaID}
	return r
}

// Compile compiles schema as a fresh Ajv instance configured like the AgentOS ToolExecutor
// would (see the package documentation). The schema is a JSON value: plain Go values as
// encoding/json decodes them, a *jsonpos.Value, or anything encoding/json can encode.
func Compile(schema any) (*Schema, error) { return NewRegistry().Compile(schema) }

// Compile compiles schema in this registry.
func (r *Registry) Compile(schema any) (*Schema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, faults, err := r.compile(schema, false)
	if err != nil {
		return nil, err
	}
	if len(faults) > 0 {
		return nil, faults[0]
	}
	return s, nil
}

// compileOpts are the Ajv options that change the generated code.
type compileOpts struct {
	useDefaults     bool // useDefaults: true
	coerce          bool // coerceTypes: true
	validateFormats bool
}

var userOpts = compileOpts{useDefaults: true, coerce: true, validateFormats: true}

// metaOpts are the options Ajv compiles meta-schemas with: useDefaults and coerceTypes
// removed, and validateFormats false (it is false while the constructor copies the options).
var metaOpts = compileOpts{}

// env is Ajv's SchemaEnv: a schema that a validating function is compiled for.
type env struct {
	schema    any
	root      *env
	baseID    string
	ptr       string // JSON Pointer of schema in its document; "meta:" prefix for the meta-schema
	async     bool
	localRefs map[string]localRef // root only
	refCache  map[string]*env     // root only: resolved references
	fn        *fnNode             // the compiled function, when it is one
	inMeta    bool
	compiled  bool // the root compiled without a fault
}

type localRef struct {
	schema any
	ptr    string
}

type fnNode struct {
	env  *env
	body *node
	opts compileOpts
}

// compiler walks a schema as Ajv's code generation does, building the nodes the evaluator
// runs and stopping at the first fault Ajv throws (or, in collect mode, noting every fault
// and going on as if Ajv only warned).
type compiler struct {
	reg      *Registry
	collect  bool
	faults   []*CompileError
	funcs    map[funcKey]*fnNode
	nodes    int
	opts     compileOpts
	seen     map[string]bool // collect mode: faults already noted (pointer + message)
	cacheKey uintptr         // identity of the value compiled, for the registry's cache
}

type funcKey struct {
	schema any
	root   *env
	baseID string
}

// abort stops a compilation at the first fault.
type abort struct{ err *CompileError }

const maxNodes = 200_000

func (c *compiler) fault(ptr, keyword, reason, ajv string) {
	e := &CompileError{Pointer: ptr, Keyword: keyword, Reason: reason, Ajv: ajv}
	if !c.collect {
		panic(abort{e})
	}
	k := ptr + "\x00" + ajv
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	c.faults = append(c.faults, e)
}

func (r *Registry) compile(schema any, collect bool) (s *Schema, faults []*CompileError, err error) {
	c := &compiler{reg: r, collect: collect, funcs: map[funcKey]*fnNode{}, opts: userOpts, seen: map[string]bool{}}
	var e *env
	defer func() {
		if x := recover(); x != nil {
			a, ok := x.(abort)
			if !ok {
				panic(x)
			}
			s, faults = nil, []*CompileError{a.err}
		}
		if e != nil && len(faults) > 0 {
			e.fn = nil // as Ajv deletes sch.validate when compiling throws
		}
	}()
	key := identity(schema)
	v, cerr := fromGo(schema)
	if cerr != nil {
		return nil, nil, cerr
	}
	if key != 0 && !collect {
		// Ajv caches a schema by its object before it checks it: the same object compiled
		// again is only compiled, not checked against the meta-schema nor its $id again.
		if cached, ok := r.cache[key]; ok {
			if cached.compiled {
				return &Schema{root: cached, async: cached.async}, nil, nil
			}
			e = cached
		}
		c.cacheKey = key
	}
	if e == nil {
		e = c.addSchema(v)
		if e == nil {
			return nil, c.faults, nil
		}
	}
	c.compileFunction(e)
	if len(c.faults) > 0 && !collect {
		return nil, c.faults, nil
	}
	e.compiled = len(c.faults) == 0
	return &Schema{root: e, async: e.async}, c.faults, nil
}

// addSchema is Ajv's _addSchema followed by validateSchema.
func (c *compiler) addSchema(v any) *env {
	switch v.(type) {
	case nil:
		c.fault("", "", "the schema is null", "Cannot read properties of null (reading '$id')")
		return nil
	case bool, *object, *array:
	default:
		c.fault("", "", "a schema is an object or a boolean", "schema must be object or boolean")
		return nil
	}
	baseID := ""
	if o, ok := v.(*object); ok {
		if id, ok := o.Get("$id"); ok {
			switch x := id.(type) {
			case string:
				baseID = normalizeID(x)
			case nil, bool, float64:
				if jsTruthy(x) {
					c.fault("", "$id", `"$id" must be a string`, "id.replace is not a function")
					return nil
				}
			default:
				c.fault("", "$id", `"$id" must be a string`, "id.replace is not a function")
				return nil
			}
		}
	}
	e := &env{schema: v, baseID: baseID, localRefs: map[string]localRef{}, refCache: map[string]*env{}}
	e.root = e
	if o, ok := v.(*object); ok {
		if a, ok := o.Get("$async"); ok && jsTruthy(a) {
			e.async = true
		}
	}
	c.schemaRefs(e)
	if c.cacheKey != 0 {
		c.reg.cache[c.cacheKey] = e
	}
	if !strings.HasPrefix(baseID, "#") {
		if baseID != "" {
			if _, dup := c.reg.refs[baseID]; dup {
				reason := fmt.Sprintf("another schema already has the $id %q", baseID)
				if baseID == metaID || baseID == "http://json-schema.org/schema" {
					reason = "the $id is the draft-07 meta-schema's own id"
				}
				c.fault("/$id", "$id", reason, fmt.Sprintf("schema with key or id %q already exists", baseID))
				if !c.collect {
					return nil
				}
			}
		}
		c.reg.refs[baseID] = refEntry{env: e}
	}
	c.validateSchema(e)
	return e
}

func jsTruthy(v any) bool {
	switch x := v.(type) {
	case nil, undefinedValue:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && x == x
	case string:
		return x != ""
	}
	return true
}

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

// cctx is Ajv's schema context ("it") during code generation.
type cctx struct {
	env           *env
	schema        any
	baseID        string
	errSchemaPath string
	ptr           string
	composite     bool // under anyOf, oneOf, not, if, contains or propertyNames (Ajv's compositeRule)
	allErrors     bool // false under not and if, where Ajv stops at the first error
	opts          compileOpts
	depth         int
	dataVar       string       // the name of the data variable in the generated code
	vars          *varCounters // per generated function
}

// varCounters number the variables Ajv's code generator names ("data0", "key0"…), which
// some of its messages quote.
type varCounters struct{ data, key int }

// dataSub builds the context of a subschema that validates a property or an item.
func (c *compiler) dataSub(it *cctx, schema any, errSchemaPath, ptr string) *cctx {
	s := c.sub(it, schema, errSchemaPath, ptr)
	s.dataVar = fmt.Sprintf("data%d", it.vars.data)
	it.vars.data++
	return s
}

func (it *cctx) newKey() string {
	k := fmt.Sprintf("key%d", it.vars.key)
	it.vars.key++
	return k
}

const maxDepth = 1000

// compileFunction compiles the validating function of e (Ajv's compileSchema).
func (c *compiler) compileFunction(e *env) *fnNode {
	k := funcKey{schema: schemaKey(e.schema), root: e.root, baseID: e.baseID}
	if f, ok := c.funcs[k]; ok {
		return f
	}
	if e.fn != nil {
		return e.fn
	}
	opts := c.opts
	if e.inMeta && e == e.root {
		opts = metaOpts // the meta-schema itself is compiled with Ajv's meta options
	}
	f := &fnNode{env: e, opts: opts}
	c.funcs[k] = f
	if e == e.root {
		e.fn = f
	}
	baseID := e.baseID
	if baseID == "" {
		baseID = fullPath(e.root.baseID)
	}
	it := &cctx{env: e, schema: e.schema, baseID: baseID, errSchemaPath: "#", ptr: e.ptr, allErrors: true, opts: opts,
		dataVar: "data", vars: &varCounters{}}
	f.body = c.topCode(it)
	return f
}

// schemaKey makes a comparable key out of a schema value (objects by identity).
func schemaKey(v any) any {
	switch x := v.(type) {
	case *object, *array:
		return x
	case bool, float64, string, nil:
		return x
	}
	return fmt.Sprintf("%T", v)
}

// topCode is validateFunctionCode.
func (c *compiler) topCode(it *cctx) *node {
	if isSchemaObj(it.schema) {
		c.checkUnknownRules(it, it.schema)
		if schemaHasRules(it.schema) {
			if o, ok := it.schema.(*object); ok && it.opts.useDefaults {
				if _, has := o.Get("default"); has {
					c.fault(it.ptr+"/default", "default", "Ajv ignores a default at the root of a schema, and its strict mode refuses it", "strict mode: default is ignored in the schema root")
				}
			}
			return c.typeAndKeywords(it)
		}
	}
	return c.boolOrEmpty(it)
}

// subschemaCode compiles a subschema in its context.
func (c *compiler) subschemaCode(it *cctx) *node {
	if it.depth > maxDepth {
		c.fault(it.ptr, "", "the schema nests too deeply", "Maximum call stack size exceeded")
		return &node{kind: nodeTrue}
	}
	if isSchemaObj(it.schema) {
		c.checkUnknownRules(it, it.schema)
		if schemaHasRules(it.schema) {
			if o, ok := it.schema.(*object); ok {
				if id, ok := o.Get("$id"); ok && jsTruthy(id) {
					if s, ok := id.(string); ok {
						it.baseID = resolveURL(it.baseID, s)
					}
				}
				if a, ok := o.Get("$async"); ok && jsTruthy(a) && !it.env.async {
					c.fault(it.ptr+"/$async", "$async", "an $async subschema inside a schema that is not $async", "async schema in sync schema")
				}
			}
			return c.typeAndKeywords(it)
		}
	}
	return c.boolOrEmpty(it)
}

func (c *compiler) boolOrEmpty(it *cctx) *node {
	c.nodes++
	if b, ok := it.schema.(bool); ok && !b {
		return &node{kind: nodeFalse, errSchemaPath: it.errSchemaPath, allErrors: it.allErrors}
	}
	return &node{kind: nodeTrue}
}

// isSchemaObj is `typeof schema != "boolean"`.
func isSchemaObj(s any) bool { _, b := s.(bool); return !b }

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

// sub builds the context of a subschema (KeywordCxt.subschema).
func (c *compiler) sub(it *cctx, schema any, errSchemaPath, ptr string) *cctx {
	s := *it
	s.schema = schema
	s.errSchemaPath = errSchemaPath
	s.ptr = ptr
	s.depth = it.depth + 1
	return &s
}

func kwPath(it *cctx, kw string) string { return it.errSchemaPath + "/" + kw }
func kwPropPath(it *cctx, kw, prop string) string {
	return it.errSchemaPath + "/" + kw + "/" + encodeURIComponent(escapePointer(prop))
}

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

// keyword compiles one keyword (keywordCode), returning nil when it generates no code.
func (c *compiler) keyword(it *cctx, o *object, kw string, v any, ruleType string) kwNode {
	if strings.HasPrefix(kw, "format") && kw != "format" {
		if !o.Has("format") {
			c.fault(it.ptr+"/"+kw, kw, fmt.Sprintf("%q needs a \"format\" next to it", kw), fmt.Sprintf("parent schema must have dependencies of %s: format", kw))
			return nil
		}
	}
	if st, ok := keywordSchemaTypes[kw]; ok && !schemaTypeOK(v, st) {
		c.fault(it.ptr+"/"+kw, kw, fmt.Sprintf("the value of %q has the wrong type", kw), fmt.Sprintf("%s value must be %s", kw, schemaTypeJSON(st)))
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
	case "const":
		return &kwConst{value: v, path: kwPath(it, kw)}
	case "enum":
		a := v.(*array)
		if len(a.items) == 0 {
			c.fault(ptr, kw, `"enum" is empty`, "enum must have non-empty array")
			return nil
		}
		return &kwEnum{values: a.items, path: kwPath(it, kw)}
	case "not":
		if c.alwaysValid(it, v, ptr) {
			return &kwNot{always: true, path: kwPath(it, kw)}
		}
		s := c.sub(it, v, kwPath(it, kw), ptr)
		s.composite, s.allErrors = true, false
		return &kwNot{body: c.subschemaCode(s), path: kwPath(it, kw)}
	case "anyOf", "oneOf":
		a := v.(*array)
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
	case "allOf":
		a := v.(*array)
		k := &kwAllOf{}
		for i, sch := range a.items {
			p := fmt.Sprintf("%s/%d", ptr, i)
			if c.alwaysValid(it, sch, p) {
				continue
			}
			k.parts = append(k.parts, c.subschemaCode(c.sub(it, sch, kwPropPath(it, kw, fmt.Sprint(i)), p)))
		}
		if len(k.parts) == 0 {
			return nil
		}
		return k
	case "if":
		if !o.Has("then") && !o.Has("else") {
			c.fault(ptr, kw, `"if" has no "then" nor "else"`, `strict mode: "if" without "then" and "else" is ignored`)
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
		k := &kwIf{path: kwPath(it, kw)}
		s := c.sub(it, v, kwPath(it, kw), ptr)
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
	case "then", "else":
		if !o.Has("if") {
			c.fault(ptr, kw, fmt.Sprintf("%q has no \"if\"", kw), fmt.Sprintf("strict mode: %q without \"if\" is ignored", kw))
		}
		return nil
	case "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum":
		return &kwLimit{kw: kw, limit: v.(float64), path: kwPath(it, kw)}
	case "multipleOf":
		return &kwMultipleOf{by: v.(float64), path: kwPath(it, kw)}
	case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
		return &kwCount{kw: kw, limit: v.(float64), path: kwPath(it, kw)}
	case "pattern":
		re := c.pattern(it, ptr, kw, v.(string))
		if re == nil {
			return nil
		}
		return &kwPattern{re: re, source: v.(string), path: kwPath(it, kw)}
	case "format":
		if !it.opts.validateFormats {
			return nil
		}
		name := v.(string)
		f, ok := formats[name]
		if !ok {
			c.fault(ptr, kw, fmt.Sprintf("%q is not a format ajv-formats knows, and Ajv's strict mode refuses unknown formats", name),
				fmt.Sprintf("unknown format %q ignored in schema at path %q", name, it.errSchemaPath))
			return nil
		}
		if f.always || f.typ != ruleType {
			return nil
		}
		return &kwFormat{name: name, f: f, path: kwPath(it, kw)}
	case "formatMaximum", "formatMinimum", "formatExclusiveMaximum", "formatExclusiveMinimum":
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
		return &kwFormatLimit{kw: kw, limit: v.(string), f: f, path: kwPath(it, kw)}
	case "required":
		a := v.(*array)
		if len(a.items) == 0 {
			return nil
		}
		k := &kwRequired{path: kwPath(it, kw)}
		for _, p := range a.items {
			k.props = append(k.props, jsString(p))
		}
		return k
	case "uniqueItems":
		if v != true {
			return nil
		}
		var itemTypes []string
		if iv, ok := o.Get("items"); ok && jsTruthy(iv) {
			if io, ok := iv.(*object); ok {
				itemTypes = c.schemaTypes(c.sub(it, io, "", it.ptr+"/items"), io)
			}
		}
		return &kwUnique{itemTypes: itemTypes, path: kwPath(it, kw)}
	case "properties":
		return c.properties(it, o, v.(*object), ptr)
	case "patternProperties":
		return c.patternProperties(it, o, v.(*object), ptr)
	case "additionalProperties":
		return c.additionalProperties(it, o, v, ptr)
	case "dependencies":
		return c.dependencies(it, v.(*object), ptr)
	case "propertyNames":
		if c.alwaysValid(it, v, ptr) {
			return nil
		}
		s := c.sub(it, v, kwPath(it, kw), ptr)
		s.dataVar = it.newKey()
		s.composite = true
		return &kwPropertyNames{body: c.subschemaCode(s), path: kwPath(it, kw)}
	case "additionalItems":
		items, ok := o.Get("items")
		tuple, isTuple := items.(*array)
		if !ok || !isTuple {
			c.fault(ptr, kw, `"additionalItems" without an array of schemas in "items"`, `strict mode: "additionalItems" is ignored when "items" is not an array of schemas`)
			return nil
		}
		if v == false {
			return &kwAdditionalItems{never: true, from: len(tuple.items), path: kwPath(it, kw)}
		}
		if _, isObj := v.(*object); isObj && !c.alwaysValid(it, v, ptr) {
			return &kwAdditionalItems{from: len(tuple.items), body: c.subschemaCode(c.dataSub(it, v, kwPath(it, kw), ptr)), path: kwPath(it, kw)}
		}
		return nil
	case "items":
		if a, ok := v.(*array); ok {
			k := &kwItems{tuple: true}
			for i, sch := range a.items {
				p := fmt.Sprintf("%s/%d", ptr, i)
				if c.alwaysValid(it, sch, p) {
					k.parts = append(k.parts, nil)
					continue
				}
				k.parts = append(k.parts, c.subschemaCode(c.dataSub(it, sch, kwPropPath(it, kw, fmt.Sprint(i)), p)))
			}
			return k
		}
		if c.alwaysValid(it, v, ptr) {
			return nil
		}
		return &kwItems{all: c.subschemaCode(c.dataSub(it, v, kwPath(it, kw), ptr))}
	case "contains":
		if c.alwaysValid(it, v, ptr) {
			return &kwContains{path: kwPath(it, kw)}
		}
		s := c.dataSub(it, v, kwPath(it, kw), ptr)
		s.composite = true
		return &kwContains{body: c.subschemaCode(s), path: kwPath(it, kw)}
	}
	return nil
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
	if sameValue(t.schema, t.root.schema) {
		return nil
	}
	return t
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case *object:
		y, ok := b.(*object)
		return ok && x == y
	case *array:
		y, ok := b.(*array)
		return ok && x == y
	}
	return jsStrictEqual(a, b)
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
