package schema

import (
	_ "embed"
	"sync"

	"github.com/plaios/plaios/internal/jsonpos"
)

// metaSchemaJSON is the draft-07 meta-schema as Ajv 8 ships it (ajv/dist/refs/
// json-schema-draft-07.json, MIT licence), which Ajv checks every schema against before
// compiling it.
//
//go:embed testdata/json-schema-draft-07.json
var metaSchemaJSON []byte

const metaID = "http://json-schema.org/draft-07/schema"

var (
	metaOnce   sync.Once
	metaRoot   *env
	metaSchema *Schema
)

// metaEnv returns the compiled meta-schema, shared by every registry (it never changes).
func metaEnv() *env {
	metaOnce.Do(func() {
		doc, err := jsonpos.Parse(metaSchemaJSON)
		if err != nil {
			panic("schema: the embedded meta-schema is not JSON: " + err.Error())
		}
		v := fromJSONPos(doc)
		metaRoot = &env{schema: v, baseID: metaID, ptr: "", localRefs: map[string]localRef{}, refCache: map[string]*env{}, inMeta: true}
		metaRoot.root = metaRoot
		reg := &Registry{refs: map[string]refEntry{metaID: {env: metaRoot}}, cache: map[uintptr]*env{}}
		c := &compiler{reg: reg, funcs: map[funcKey]*fnNode{}, opts: metaOpts, seen: map[string]bool{}}
		func() {
			defer func() {
				if x := recover(); x != nil {
					if a, ok := x.(abort); ok {
						panic("schema: the embedded meta-schema does not compile: " + a.err.Error())
					}
					panic(x)
				}
			}()
			c.compileFunction(metaRoot)
		}()
		metaSchema = &Schema{root: metaRoot}
	})
	return metaRoot
}

// validateAgainstMeta validates a schema value against the meta-schema as Ajv's
// validateSchema does (no coercion, no defaults, formats not checked, all errors).
func validateAgainstMeta(v any) []Error {
	metaEnv()
	e := &evaluator{}
	_, errs := e.call(metaSchema, v)
	return errs
}
