package schema

import (
	"fmt"
	"math"
	"strings"

	"github.com/plaios/plaios/internal/jsregexp"

	"github.com/plaios/plaios/internal/jsonpos"
)

// Error is one validation error, as Ajv reports it.
type Error struct {
	InstancePath string // JSON Pointer of the value at fault ("" for the arguments themselves)
	SchemaPath   string // where the failing keyword stands, as Ajv writes it ("#/properties/q/type")
	Keyword      string // the failing keyword ("type", "required", …); "" when Ajv's validator throws
	Message      string // Ajv's message ("must be integer", "must have required property 'query'")
	PropertyName string // the property name at fault, for errors under propertyNames
}

func (e Error) String() string {
	if e.InstancePath == "" {
		return e.Message
	}
	return e.InstancePath + " " + e.Message
}

type nodeKind int

const (
	nodeTrue nodeKind = iota
	nodeFalse
	nodeObj
)

// node is one compiled subschema in its context (the code Ajv generates for it).
type node struct {
	kind          nodeKind
	errSchemaPath string
	allErrors     bool
	opts          compileOpts
	types         []string
	typeValue     any
	rulesForType  bool
	refOnly       kwNode
	groups        []*group
}

type group struct {
	typ      string
	defaults []defaultSpec
	kws      []kwNode
}

type defaultSpec struct {
	prop    string
	index   int
	isIndex bool
	value   any
}

type kwNode interface {
	eval(e *evaluator, n *node, l *loc) bool
}

// evaluator runs compiled nodes on a value, coercing and filling defaults as the compiled
// code would.
type evaluator struct {
	coerce   bool
	defaults bool
	errs     []Error
	steps    int
	depth    int
}

// loc is the value being validated and where it sits: Ajv's data, parentData,
// parentDataProperty and instancePath.
type loc struct {
	val      any
	path     string
	parent   any    // *object or *array holding val, nil at the top of a call
	key      string // val's key in parent (object)
	index    int    // val's index in parent (array)
	selfKey  string // parentDataProperty as a property key ("undefined" at the top)
	keyConst bool   // val is a for-in key constant: assigning it throws
	inName   bool   // under propertyNames
	name     string // the property name there
}

// jsThrow is an exception Ajv's generated code would throw while validating.
type jsThrow struct{ msg string }

const (
	maxSteps     = 5_000_000
	maxCallDepth = 5000
)

func (e *evaluator) tick() {
	e.steps++
	if e.steps > maxSteps {
		panic(jsThrow{fmt.Sprintf("validation stopped after %d steps", maxSteps)})
	}
}

func (e *evaluator) addError(l *loc, keyword, schemaPath, message string) {
	er := Error{InstancePath: l.path, SchemaPath: schemaPath, Keyword: keyword, Message: message}
	if l.inName {
		er.PropertyName = l.name
	}
	e.errs = append(e.errs, er)
}

func (e *evaluator) reset(n int) { e.errs = e.errs[:n] }

// runFn calls a compiled function (a separate validate function in Ajv).
func (e *evaluator) runFn(f *fnNode, l *loc) bool {
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > maxCallDepth {
		panic(jsThrow{"Maximum call stack size exceeded"})
	}
	if f.body == nil {
		return true
	}
	cl := *l
	cl.keyConst = false
	cl.inName = false
	cl.name = ""
	return e.run(f.body, &cl)
}

func (e *evaluator) run(n *node, l *loc) bool {
	e.tick()
	switch n.kind {
	case nodeTrue:
		return true
	case nodeFalse:
		e.addError(l, "false schema", n.errSchemaPath+"/false schema", "boolean schema is false")
		return false
	}
	start := len(e.errs)
	var coerceTo []string
	if e.coerce && n.opts.coerce {
		for _, t := range n.types {
			switch t {
			case "string", "number", "integer", "boolean", "null":
				coerceTo = append(coerceTo, t)
			}
		}
	}
	checkTypes := len(n.types) > 0 && !(len(coerceTo) == 0 && len(n.types) == 1 && n.rulesForType)
	if checkTypes && !typesMatch(n.types, l.val) {
		if len(coerceTo) > 0 {
			e.coerceData(n, l, coerceTo)
		} else {
			e.typeError(n, l)
		}
	}
	if n.refOnly != nil {
		n.refOnly.eval(e, n, l)
		return len(e.errs) == start
	}
	for _, g := range n.groups {
		if g.typ != "" {
			if isType(g.typ, l.val) {
				if e.defaults && n.opts.useDefaults {
					e.assignDefaults(g, l)
				}
				e.iterate(n, g, l)
			} else if len(n.types) == 1 && n.types[0] == g.typ && !checkTypes {
				e.typeError(n, l)
			}
		} else {
			e.iterate(n, g, l)
		}
		if !n.allErrors && len(e.errs) > start {
			break
		}
	}
	return len(e.errs) == start
}

func (e *evaluator) iterate(n *node, g *group, l *loc) {
	for _, k := range g.kws {
		if !k.eval(e, n, l) && !n.allErrors {
			return
		}
	}
}

func (e *evaluator) typeError(n *node, l *loc) {
	e.addError(l, "type", n.errSchemaPath+"/type", "must be "+jsString(n.typeValue))
}

// isType is Ajv's checkDataType with strictNumbers.
func isType(t string, v any) bool {
	switch t {
	case "null":
		return v == nil
	case "array":
		_, ok := v.(*array)
		return ok
	case "object":
		switch v.(type) {
		case *object, protoValue:
			return true
		}
		return false
	case "integer":
		f, ok := v.(float64)
		return ok && !math.IsInf(f, 0) && f == f && f == math.Trunc(f)
	case "number":
		f, ok := v.(float64)
		return ok && !math.IsInf(f, 0) && f == f
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	}
	return false
}

func typesMatch(types []string, v any) bool {
	for _, t := range types {
		if isType(t, v) {
			return true
		}
	}
	return false
}

// coerceData is Ajv's coerceData for coerceTypes: true.
func (e *evaluator) coerceData(n *node, l *loc, coerceTo []string) {
	dataType := jsTypeof(l.val)
	var coerced any
	done := false
	for _, t := range coerceTo {
		switch t {
		case "string":
			if dataType == "number" || dataType == "boolean" {
				coerced, done = jsString(l.val), true
			} else if l.val == nil {
				coerced, done = "", true
			}
		case "number", "integer":
			switch x := l.val.(type) {
			case bool:
				coerced, done = 0.0, true
				if x {
					coerced = 1.0
				}
			case nil:
				coerced, done = 0.0, true
			case string:
				if x != "" {
					f := stringToNumber(x)
					if f == f && (t == "number" || jsMod1IsZero(f)) {
						coerced, done = f, true
					}
				}
			}
		case "boolean":
			switch x := l.val.(type) {
			case string:
				if x == "false" {
					coerced, done = false, true
				} else if x == "true" {
					coerced, done = true, true
				}
			case float64:
				if x == 0 {
					coerced, done = false, true
				} else if x == 1 {
					coerced, done = true, true
				}
			case nil:
				coerced, done = false, true
			}
		case "null":
			switch x := l.val.(type) {
			case string:
				done = x == ""
			case float64:
				done = x == 0
			case bool:
				done = !x
			}
			coerced = nil
		}
		if done {
			break
		}
	}
	if !done {
		e.typeError(n, l)
		return
	}
	if l.keyConst {
		panic(jsThrow{"Assignment to constant variable."})
	}
	l.val = coerced
	switch p := l.parent.(type) {
	case *object:
		p.Set(l.key, coerced)
	case *array:
		if l.index < len(p.items) {
			p.items[l.index] = coerced
		}
	}
}

func (e *evaluator) assignDefaults(g *group, l *loc) {
	for _, d := range g.defaults {
		if d.isIndex {
			a, ok := l.val.(*array)
			if !ok {
				continue
			}
			if d.index < len(a.items) {
				if _, hole := a.items[d.index].(undefinedValue); !hole {
					continue
				}
			}
			for len(a.items) <= d.index {
				a.items = append(a.items, undef)
			}
			a.items[d.index] = deepCopy(d.value)
			continue
		}
		o, ok := l.val.(*object)
		if !ok {
			continue
		}
		if _, present := lookup(o, d.prop); present {
			continue
		}
		o.Set(d.prop, deepCopy(d.value))
	}
}

func childLoc(l *loc, parent any, key string, val any) *loc {
	return &loc{val: val, path: l.path + "/" + escapePointer(key), parent: parent, key: key, selfKey: key, inName: l.inName, name: l.name}
}

func itemLoc(l *loc, a *array, i int) *loc {
	var v any = undef
	if i < len(a.items) {
		v = a.items[i]
	}
	s := fmt.Sprint(i)
	return &loc{val: v, path: l.path + "/" + s, parent: a, index: i, selfKey: s, inName: l.inName, name: l.name}
}

// --- keywords ---

type kwRef struct {
	inline *node
	fn     *fnNode
}

func (k *kwRef) eval(e *evaluator, n *node, l *loc) bool {
	if k.inline != nil {
		return e.run(k.inline, l)
	}
	return e.runFn(k.fn, l)
}

type kwConst struct {
	value any
	path  string
}

func (k *kwConst) eval(e *evaluator, n *node, l *loc) bool {
	if jsEqual(l.val, k.value) {
		return true
	}
	e.addError(l, "const", k.path, "must be equal to constant")
	return false
}

type kwEnum struct {
	values []any
	path   string
}

func (k *kwEnum) eval(e *evaluator, n *node, l *loc) bool {
	for _, v := range k.values {
		if jsEqual(l.val, v) {
			return true
		}
	}
	e.addError(l, "enum", k.path, "must be equal to one of the allowed values")
	return false
}

type kwNot struct {
	always bool
	body   *node
	path   string
}

func (k *kwNot) eval(e *evaluator, n *node, l *loc) bool {
	if k.always {
		e.addError(l, "not", k.path, "must NOT be valid")
		return false
	}
	start := len(e.errs)
	// Ajv does not even build the errors under "not" (createErrors: false); they are
	// dropped either way.
	if e.run(k.body, l) {
		e.addError(l, "not", k.path, "must NOT be valid")
		return false
	}
	e.reset(start)
	return true
}

type kwUnion struct {
	one      bool
	branches []*node // nil: an always valid branch (oneOf)
	path     string
}

func (k *kwUnion) eval(e *evaluator, n *node, l *loc) bool {
	start := len(e.errs)
	valid := false
	if !k.one {
		for _, b := range k.branches {
			if e.run(b, l) {
				valid = true
				break
			}
		}
		if valid {
			e.reset(start)
			return true
		}
		e.addError(l, "anyOf", k.path, "must match a schema in anyOf")
		return false
	}
	for i, b := range k.branches {
		bv := true
		if b != nil {
			bv = e.run(b, l)
		}
		if i > 0 && bv && valid {
			valid = false
			break
		}
		if bv {
			valid = true
		}
	}
	if valid {
		e.reset(start)
		return true
	}
	e.addError(l, "oneOf", k.path, "must match exactly one schema in oneOf")
	return false
}

type kwAllOf struct{ parts []*node }

func (k *kwAllOf) eval(e *evaluator, n *node, l *loc) bool {
	ok := true
	for _, p := range k.parts {
		if !e.run(p, l) {
			ok = false
			if !n.allErrors {
				return false
			}
		}
	}
	return ok
}

type kwIf struct {
	cond, then, els *node
	path            string
}

func (k *kwIf) eval(e *evaluator, n *node, l *loc) bool {
	start := len(e.errs)
	condValid := e.run(k.cond, l)
	e.reset(start) // the errors of "if" never count (Ajv does not build them)
	valid := true
	clause := ""
	if condValid && k.then != nil {
		valid, clause = e.run(k.then, l), "then"
	} else if !condValid && k.els != nil {
		valid, clause = e.run(k.els, l), "else"
	}
	if valid {
		return true
	}
	e.addError(l, "if", k.path, `must match "`+clause+`" schema`)
	return false
}

type kwLimit struct {
	kw    string
	limit float64
	path  string
}

func (k *kwLimit) eval(e *evaluator, n *node, l *loc) bool {
	d := l.val.(float64)
	var bad bool
	var op string
	switch k.kw {
	case "maximum":
		bad, op = d > k.limit, "<="
	case "minimum":
		bad, op = d < k.limit, ">="
	case "exclusiveMaximum":
		bad, op = d >= k.limit, "<"
	default:
		bad, op = d <= k.limit, ">"
	}
	if !bad {
		return true
	}
	e.addError(l, k.kw, k.path, "must be "+op+" "+jsonpos.JSNumberString(k.limit))
	return false
}

type kwMultipleOf struct {
	by   float64
	path string
}

func (k *kwMultipleOf) eval(e *evaluator, n *node, l *loc) bool {
	d := l.val.(float64)
	res := d / k.by
	ok := k.by != 0 && !math.IsInf(res, 0) && res == res && res == math.Trunc(res) && math.Abs(res) < 1e21
	if ok {
		return true
	}
	e.addError(l, "multipleOf", k.path, "must be multiple of "+jsonpos.JSNumberString(k.by))
	return false
}

type kwCount struct {
	kw    string
	limit float64
	path  string
}

func (k *kwCount) eval(e *evaluator, n *node, l *loc) bool {
	var count int
	var unit string
	switch x := l.val.(type) {
	case string:
		count, unit = ucs2length(x), "characters"
	case *array:
		count, unit = len(x.items), "items"
	case *object:
		count, unit = x.Len(), "properties"
	case protoValue:
		count, unit = 0, "properties"
	}
	c := float64(count)
	max := strings.HasPrefix(k.kw, "max")
	if max && !(c > k.limit) || !max && !(c < k.limit) {
		return true
	}
	comp := "fewer"
	if max {
		comp = "more"
	}
	e.addError(l, k.kw, k.path, fmt.Sprintf("must NOT have %s than %s %s", comp, jsonpos.JSNumberString(k.limit), unit))
	return false
}

type kwPattern struct {
	re     *jsregexp.Regexp
	source string
	path   string
}

func (k *kwPattern) eval(e *evaluator, n *node, l *loc) bool {
	if k.re.MatchString(l.val.(string)) {
		return true
	}
	e.addError(l, "pattern", k.path, `must match pattern "`+k.source+`"`)
	return false
}

type kwFormat struct {
	name string
	f    *formatDef
	path string
}

func (k *kwFormat) eval(e *evaluator, n *node, l *loc) bool {
	if k.f.validate(l.val) {
		return true
	}
	e.addError(l, "format", k.path, `must match format "`+k.name+`"`)
	return false
}

type kwFormatLimit struct {
	kw    string
	limit string
	f     *formatDef
	path  string
}

func (k *kwFormatLimit) eval(e *evaluator, n *node, l *loc) bool {
	r, ok := k.f.compare(l.val.(string), k.limit)
	if !ok || r != r {
		return true
	}
	var bad bool
	var op string
	switch k.kw {
	case "formatMaximum":
		bad, op = r > 0, "<="
	case "formatMinimum":
		bad, op = r < 0, ">="
	case "formatExclusiveMaximum":
		bad, op = r >= 0, "<"
	default:
		bad, op = r <= 0, ">"
	}
	if !bad {
		return true
	}
	e.addError(l, k.kw, k.path, "should be "+op+" "+k.limit)
	return false
}

type kwRequired struct {
	props []string
	path  string
}

func (k *kwRequired) eval(e *evaluator, n *node, l *loc) bool {
	o, _ := l.val.(*object)
	ok := true
	for _, p := range k.props {
		present := false
		if o != nil {
			_, present = lookup(o, p)
		} else if _, isProto := l.val.(protoValue); isProto {
			_, present = lookup(nil, p)
		}
		if !present {
			e.addError(l, "required", k.path, "must have required property '"+p+"'")
			ok = false
			if !n.allErrors {
				return false
			}
		}
	}
	return ok
}

type kwUnique struct {
	itemTypes []string
	path      string
}

func (k *kwUnique) eval(e *evaluator, n *node, l *loc) bool {
	a := l.val.(*array)
	if len(a.items) <= 1 {
		return true
	}
	report := func(i, j int) bool {
		e.addError(l, "uniqueItems", k.path, fmt.Sprintf("must NOT have duplicate items (items ## %d and %d are identical)", j, i))
		return false
	}
	optimize := len(k.itemTypes) > 0
	for _, t := range k.itemTypes {
		if t == "object" || t == "array" {
			optimize = false
		}
	}
	if optimize {
		indices := map[string]int{}
		for i := len(a.items) - 1; i >= 0; i-- {
			item := a.items[i]
			if !typesMatch(k.itemTypes, item) {
				continue
			}
			key := jsString(item)
			if s, ok := item.(string); ok && len(k.itemTypes) > 1 {
				key = s + "_"
			}
			if key == "__proto__" {
				continue
			}
			if j, ok := indices[key]; ok {
				return report(i, j)
			}
			indices[key] = i
		}
		return true
	}
	for i := len(a.items) - 1; i > 0; i-- {
		for j := i - 1; j >= 0; j-- {
			if jsEqual(a.items[i], a.items[j]) {
				return report(i, j)
			}
		}
	}
	return true
}

type propNode struct {
	name       string
	body       *node
	hasDefault bool
}

type kwProperties struct{ props []propNode }

func (k *kwProperties) eval(e *evaluator, n *node, l *loc) bool {
	o, ok := l.val.(*object)
	if !ok {
		return true
	}
	valid := true
	for _, p := range k.props {
		v, present := lookup(o, p.name)
		if !present && !(p.hasDefault && e.defaults) {
			continue
		}
		if !present {
			v = undef
		}
		if !e.run(p.body, childLoc(l, o, p.name, v)) {
			valid = false
			if !n.allErrors {
				return false
			}
		}
	}
	return valid
}

type patternNode struct {
	re   *jsregexp.Regexp
	body *node // nil: always valid
}

type kwPatternProperties struct{ patterns []patternNode }

func (k *kwPatternProperties) eval(e *evaluator, n *node, l *loc) bool {
	o, ok := l.val.(*object)
	if !ok {
		return true
	}
	start := len(e.errs)
	for _, p := range k.patterns {
		for _, key := range o.JSKeys() {
			if !p.re.MatchString(key) || p.body == nil {
				continue
			}
			v, present := o.Get(key)
			if !present {
				continue
			}
			if !e.run(p.body, childLoc(l, o, key, v)) && !n.allErrors {
				return false
			}
		}
	}
	return len(e.errs) == start
}

type kwAdditionalProperties struct {
	props    []string
	propsObj *object
	patterns []*jsregexp.Regexp
	never    bool
	body     *node
	path     string
}

func (k *kwAdditionalProperties) eval(e *evaluator, n *node, l *loc) bool {
	o, ok := l.val.(*object)
	if !ok {
		return true
	}
	start := len(e.errs)
	for _, key := range o.JSKeys() {
		defined := false
		if len(k.props) > 8 {
			defined = k.propsObj.Has(key)
		} else {
			for _, p := range k.props {
				if p == key {
					defined = true
					break
				}
			}
		}
		for _, re := range k.patterns {
			if defined {
				break
			}
			defined = re.MatchString(key)
		}
		if defined {
			continue
		}
		if k.never {
			e.addError(l, "additionalProperties", k.path, "must NOT have additional properties")
			if !n.allErrors {
				return false
			}
			continue
		}
		v, present := o.Get(key)
		if !present {
			continue
		}
		if !e.run(k.body, childLoc(l, o, key, v)) && !n.allErrors {
			return false
		}
	}
	return len(e.errs) == start
}

type propDep struct {
	prop string
	deps []string
}

type schemaDep struct {
	prop string
	body *node
}

type kwDependencies struct {
	propDeps   []propDep
	schemaDeps []schemaDep
	path       string
}

func (k *kwDependencies) eval(e *evaluator, n *node, l *loc) bool {
	o, ok := l.val.(*object)
	if !ok {
		return true
	}
	start := len(e.errs)
	for _, d := range k.propDeps {
		if len(d.deps) == 0 {
			continue
		}
		if _, present := lookup(o, d.prop); !present {
			continue
		}
		word := "properties"
		if len(d.deps) == 1 {
			word = "property"
		}
		msg := fmt.Sprintf("must have %s %s when property %s is present", word, strings.Join(d.deps, ", "), d.prop)
		for _, dep := range d.deps {
			if _, present := lookup(o, dep); !present {
				e.addError(l, "dependencies", k.path, msg)
				if !n.allErrors {
					return false
				}
			}
		}
	}
	for _, d := range k.schemaDeps {
		if _, present := lookup(o, d.prop); !present {
			continue
		}
		if !e.run(d.body, l) && !n.allErrors {
			return false
		}
	}
	return len(e.errs) == start
}

type kwPropertyNames struct {
	body *node
	path string
}

func (k *kwPropertyNames) eval(e *evaluator, n *node, l *loc) bool {
	o, ok := l.val.(*object)
	if !ok {
		return true
	}
	start := len(e.errs)
	for _, key := range o.JSKeys() {
		kl := &loc{val: key, path: l.path, parent: o, key: l.selfKey, selfKey: l.selfKey, keyConst: true, inName: true, name: key}
		if !e.run(k.body, kl) {
			er := Error{InstancePath: l.path, SchemaPath: k.path, Keyword: "propertyNames", Message: "property name must be valid"}
			if l.inName {
				er.PropertyName = l.name
			}
			e.errs = append(e.errs, er)
			if !n.allErrors {
				return false
			}
		}
	}
	return len(e.errs) == start
}

type kwAdditionalItems struct {
	never bool
	from  int
	body  *node
	path  string
}

func (k *kwAdditionalItems) eval(e *evaluator, n *node, l *loc) bool {
	a := l.val.(*array)
	if len(a.items) <= k.from {
		return true
	}
	if k.never {
		e.addError(l, "additionalItems", k.path, fmt.Sprintf("must NOT have more than %d items", k.from))
		return false
	}
	start := len(e.errs)
	for i := k.from; i < len(a.items); i++ {
		if !e.run(k.body, itemLoc(l, a, i)) && !n.allErrors {
			return false
		}
	}
	return len(e.errs) == start
}

type kwItems struct {
	tuple bool
	parts []*node // tuple; nil entries are always valid
	all   *node
}

func (k *kwItems) eval(e *evaluator, n *node, l *loc) bool {
	a := l.val.(*array)
	start := len(e.errs)
	length := len(a.items)
	if k.tuple {
		for i, p := range k.parts {
			if p == nil || length <= i {
				continue
			}
			if !e.run(p, itemLoc(l, a, i)) && !n.allErrors {
				return false
			}
		}
		return len(e.errs) == start
	}
	for i := 0; i < length; i++ {
		if !e.run(k.all, itemLoc(l, a, i)) && !n.allErrors {
			return false
		}
	}
	return len(e.errs) == start
}

type kwContains struct {
	body *node // nil: any item will do
	path string
}

func (k *kwContains) eval(e *evaluator, n *node, l *loc) bool {
	a := l.val.(*array)
	if k.body == nil {
		if len(a.items) >= 1 {
			return true
		}
		e.addError(l, "contains", k.path, "must contain at least 1 valid item(s)")
		return false
	}
	start := len(e.errs)
	length := len(a.items)
	for i := 0; i < length; i++ {
		if e.run(k.body, itemLoc(l, a, i)) {
			e.reset(start)
			return true
		}
	}
	e.addError(l, "contains", k.path, "must contain at least 1 valid item(s)")
	return false
}
