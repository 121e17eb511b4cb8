package schema

import (
	"fmt"
	"strings"
	"sync"
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
