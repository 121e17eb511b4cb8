package schema

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/jsregexp"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/plaios/plaios/internal/jsonpos"
)

// seeds adds the schemas and arguments of the oracle tables to a fuzz corpus.
func seeds(f *testing.F, add func(schema, args string)) {
	for _, name := range []string{"compile_cases.json", "prepare_cases.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		var cases []oracleCase
		if err := json.Unmarshal(data, &cases); err != nil {
			f.Fatal(err)
		}
		for _, c := range cases {
			args := string(c.Args)
			if args == "" {
				args = "{}"
			}
			add(string(c.Schema), args)
		}
	}
}

// FuzzCheck: the static checks never panic, whatever the schema.
func FuzzCheck(f *testing.F) {
	seeds(f, func(schema, _ string) { f.Add([]byte(schema)) })
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := jsonpos.Parse(data)
		if err != nil {
			return
		}
		fs := CheckFile(doc, Options{Strict: true})
		for _, fd := range fs {
			if fd.Rule == "" || fd.Message == "" {
				t.Fatalf("a finding without a rule or a message: %+v", fd)
			}
		}
		Check(doc.Interface(), Options{})
	})
}

// FuzzPrepare: compiling, preparing and validating never panic, and Prepare is repeatable.
func FuzzPrepare(f *testing.F) {
	seeds(f, func(schema, args string) { f.Add(schema, args) })
	f.Fuzz(func(t *testing.T, schemaJSON, argsJSON string) {
		sdoc, err := jsonpos.Parse([]byte(schemaJSON))
		if err != nil {
			return
		}
		adoc, err := jsonpos.Parse([]byte(argsJSON))
		if err != nil {
			return
		}
		s, err := Compile(sdoc)
		if err != nil {
			if _, ok := err.(*CompileError); !ok {
				t.Fatalf("Compile returned %T: %v", err, err)
			}
			return
		}
		args := adoc.Interface()
		out1, errs1 := s.Prepare(args)
		out2, errs2 := s.Prepare(args)
		b1, _ := json.Marshal(fmt.Sprint(out1, errs1))
		b2, _ := json.Marshal(fmt.Sprint(out2, errs2))
		if string(b1) != string(b2) {
			t.Fatalf("Prepare is not repeatable:\n%s\n%s", b1, b2)
		}
		s.Validate(args)
	})
}

// TestValidateAgreesWithTheDraft07Library compares Validate (no coercion) with
// santhosh-tekuri/jsonschema on random schemas and values of the part of draft-07 where Ajv
// and the standard agree (no formats, no property names that Object.prototype has, integer
// multipleOf): the two must find the same values valid.
func TestValidateAgreesWithTheDraft07Library(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	g := &gen{rng: rng}
	agree, valid := 0, 0
	const runs = 1500
	for i := 0; i < runs; i++ {
		schema := g.schema(0)
		c := js.NewCompiler()
		c.DefaultDraft(js.Draft7)
		c.UseLoader(refuseLoader{})
		c.UseRegexpEngine(func(s string) (js.Regexp, error) {
			re, err := jsregexp.Compile(s, "u")
			if err != nil {
				return nil, err
			}
			return specRegexp{re}, nil
		})
		if err := c.AddResource("file:///s.json", schema); err != nil {
			t.Fatal(err)
		}
		ref, err := c.Compile("file:///s.json")
		if err != nil {
			t.Fatalf("the generator wrote a schema the library refuses: %v\n%s", err, dump(schema))
		}
		ours, err := Compile(schema)
		if err != nil {
			t.Fatalf("the generator wrote a schema Compile refuses: %v\n%s", err, dump(schema))
		}
		for j := 0; j < 4; j++ {
			v := g.value(0)
			want := ref.Validate(v) == nil
			got := len(ours.Validate(v)) == 0
			if got != want {
				t.Fatalf("schema %s\nvalue %s\nValidate says valid=%v (%v), the library %v", dump(schema), dump(v), got, ours.Validate(v), want)
			}
			agree++
			if got {
				valid++
			}
		}
	}
	if valid < agree/10 || valid > agree*9/10 {
		t.Errorf("the generator is lopsided: %d of %d values valid", valid, agree)
	}
	t.Logf("%d values on %d random schemas (%d valid): same verdict", agree, runs, valid)
}

func dump(v any) string { b, _ := json.Marshal(v); return string(b) }

type gen struct{ rng *rand.Rand }

var genProps = []string{"a", "b", "c", "d"}

func (g *gen) pick(xs ...string) string { return xs[g.rng.Intn(len(xs))] }

func (g *gen) schema(depth int) any {
	if depth > 2 || g.rng.Intn(8) == 0 {
		if g.rng.Intn(3) == 0 {
			return g.rng.Intn(2) == 0
		}
		return map[string]any{"type": g.pick("string", "integer", "number", "boolean", "null")}
	}
	s := map[string]any{}
	switch g.rng.Intn(5) {
	case 0:
		s["type"] = "object"
		props := map[string]any{}
		for _, p := range genProps[:1+g.rng.Intn(3)] {
			props[p] = g.schema(depth + 1)
		}
		s["properties"] = props
		if g.rng.Intn(2) == 0 {
			s["required"] = []any{g.pick(genProps...)}
		}
		switch g.rng.Intn(4) {
		case 0:
			s["additionalProperties"] = false
		case 1:
			s["additionalProperties"] = g.schema(depth + 1)
		case 2:
			s["patternProperties"] = map[string]any{"^[xy]$": g.schema(depth + 1)}
		}
		if g.rng.Intn(4) == 0 {
			s["propertyNames"] = map[string]any{"maxLength": 1}
		}
		if g.rng.Intn(4) == 0 {
			s["dependencies"] = map[string]any{"a": []any{"b"}, "c": g.schema(depth + 1)}
		}
		if g.rng.Intn(4) == 0 {
			s["minProperties"] = g.rng.Intn(3)
		}
	case 1:
		s["type"] = "array"
		if g.rng.Intn(3) == 0 {
			s["items"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
			if g.rng.Intn(2) == 0 {
				s["additionalItems"] = g.schema(depth + 1)
			}
		} else {
			s["items"] = g.schema(depth + 1)
		}
		if g.rng.Intn(3) == 0 {
			s["uniqueItems"] = true
		}
		if g.rng.Intn(3) == 0 {
			s["contains"] = g.schema(depth + 1)
		}
		if g.rng.Intn(3) == 0 {
			s["maxItems"] = g.rng.Intn(4)
		}
	case 2:
		kw := g.pick("anyOf", "oneOf", "allOf")
		s[kw] = []any{g.schema(depth + 1), g.schema(depth + 1)}
		if g.rng.Intn(3) == 0 {
			s["not"] = g.schema(depth + 1)
		}
	case 3:
		s["if"] = g.schema(depth + 1)
		s["then"] = g.schema(depth + 1)
		if g.rng.Intn(2) == 0 {
			s["else"] = g.schema(depth + 1)
		}
	default:
		switch g.rng.Intn(5) {
		case 0:
			s["type"] = "string"
			s["minLength"] = g.rng.Intn(3)
			s["pattern"] = g.pick("^a", "b$", "^[a-c]*$", "(?<!a)b", "^(a|bc)+$")
		case 1:
			s["type"] = g.pick("integer", "number")
			s["minimum"] = g.rng.Intn(5) - 2
			s["exclusiveMaximum"] = g.rng.Intn(5) + 1
			s["multipleOf"] = 1 + g.rng.Intn(3)
		case 2:
			a, b := g.value(2), g.value(2)
			if dump(a) == dump(b) {
				s["enum"] = []any{a, "zz"}
			} else {
				s["enum"] = []any{a, b}
			}
		case 3:
			s["const"] = g.value(1)
		default:
			s["type"] = []any{"string", "null"}
			s["maxLength"] = 2
		}
	}
	return s
}

func (g *gen) value(depth int) any {
	n := g.rng.Intn(10)
	if depth > 2 && n > 6 {
		n = g.rng.Intn(7)
	}
	switch n {
	case 0:
		return nil
	case 1:
		return g.rng.Intn(2) == 0
	case 2:
		return float64(g.rng.Intn(7) - 3)
	case 3:
		return float64(g.rng.Intn(7)-3) + 0.5
	case 4, 5:
		return g.pick("", "a", "b", "ab", "bc", "abc", "ba", "c")
	case 6:
		return float64(g.rng.Intn(3))
	case 7, 8:
		m := map[string]any{}
		for _, p := range append(genProps, "x", "y") {
			if g.rng.Intn(2) == 0 {
				m[p] = g.value(depth + 1)
			}
		}
		return m
	default:
		a := make([]any, g.rng.Intn(4))
		for i := range a {
			a[i] = g.value(depth + 1)
		}
		return a
	}
}

// refuseLoader keeps the draft-07 library from fetching anything.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("plaios does not fetch schemas")
}

// specRegexp gives the library this package's JavaScript regular expressions.
type specRegexp struct{ re *jsregexp.Regexp }

func (r specRegexp) String() string            { return r.re.String() }
func (r specRegexp) MatchString(s string) bool { return r.re.MatchString(s) }

// FuzzToolName holds ToolName to the names' own expressions.
func FuzzToolName(f *testing.F) {
	for _, s := range []string{"", "a", "get_weather", "web.search", "a b", "x-y", "é", strings.Repeat("a", 128), strings.Repeat("a", 129), "a\n"} {
		f.Add(s)
	}
	plaios := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	mcp := regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	f.Fuzz(func(t *testing.T, name string) {
		if (ToolName(name, PLAIOS) == nil) != plaios.MatchString(name) {
			t.Fatalf("PLAIOS %q: %v", name, ToolName(name, PLAIOS))
		}
		if (ToolName(name, MCP) == nil) != mcp.MatchString(name) {
			t.Fatalf("MCP %q: %v", name, ToolName(name, MCP))
		}
	})
}
