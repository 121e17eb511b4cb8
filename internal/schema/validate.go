package schema

import "fmt"

// Prepare returns what the AgentOS executor hands a tool for args: a deep copy of args
// coerced (coerceTypes: true) and with defaults filled in (useDefaults: true), together with
// every error Ajv reports (allErrors: true, formats checked). The tool runs only when there
// are no errors. As in Ajv, a value at the very top is never replaced by its coerced form
// (Ajv cannot reach the caller's variable), only values inside objects and arrays are.
//
// The executor turns missing or null arguments into {} before it validates; callers that
// mirror it do the same. An error with an empty Keyword means Ajv's validator would throw
// instead of answering (the call then fails as well).
func (s *Schema) Prepare(args any) (any, []Error) {
	v, err := fromGo(args)
	if err != nil {
		return args, []Error{{Message: err.Error()}}
	}
	e := &evaluator{coerce: true, defaults: true}
	_, errs := e.call(s, v)
	return toGo(v), errs
}

// Validate reports every error of v against the schema, without coercing anything nor
// filling defaults (v is not changed).
func (s *Schema) Validate(v any) []Error {
	val, err := fromGo(v)
	if err != nil {
		return []Error{{Message: err.Error()}}
	}
	e := &evaluator{}
	_, errs := e.call(s, val)
	return errs
}

// call runs the schema's function on v, turning what the generated code would throw into an
// error.
func (e *evaluator) call(s *Schema, v any) (valid bool, errs []Error) {
	defer func() {
		if x := recover(); x != nil {
			t, ok := x.(jsThrow)
			if !ok {
				panic(x)
			}
			valid = false
			errs = append(e.errs, Error{Message: fmt.Sprintf("Ajv's validator throws %q, so the call fails", t.msg)})
		}
	}()
	if s == nil || s.root == nil || s.root.fn == nil {
		return true, nil
	}
	valid = e.runFn(s.root.fn, &loc{val: v, selfKey: "undefined"})
	return valid, e.errs
}
