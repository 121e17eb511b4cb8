package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/testenv"
)

// The oracle tests run the pinned Ajv 8.20.0 and ajv-formats 3.0.1 (testdata/node), configured
// as @framers/agentos 0.9.164's ToolExecutor configures them, on two tables of cases, and
// require this package to answer exactly as Ajv does. Node runs once per table.

// oracleCase is one row of a table file.
type oracleCase struct {
	Name   string          `json:"name"`
	Op     string          `json:"op,omitempty"` // prepare (default in the prepare table) or validate
	Schema json.RawMessage `json:"schema"`
	Args   json.RawMessage `json:"args,omitempty"`
}

type oracleAnswer struct {
	OK     bool            `json:"ok"`
	Error  string          `json:"error"`
	Threw  string          `json:"threw"`
	Async  bool            `json:"async"`
	Valid  bool            `json:"valid"`
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		InstancePath string `json:"instancePath"`
		Keyword      string `json:"keyword"`
		Message      string `json:"message"`
		SchemaPath   string `json:"schemaPath"`
		PropertyName string `json:"propertyName"`
	} `json:"errors"`
}

func loadCases(t *testing.T, name string) []oracleCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var cases []oracleCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	names := map[string]bool{}
	for _, c := range cases {
		if c.Name == "" || names[c.Name] {
			t.Fatalf("%s: a case without a name, or a duplicated name %q", name, c.Name)
		}
		names[c.Name] = true
	}
	return cases
}

// askNode runs the oracle script once on all the cases.
func askNode(t *testing.T, op string, cases []oracleCase) []oracleAnswer {
	t.Helper()
	nm := testenv.NodeModules(t)
	type in struct {
		Op     string          `json:"op"`
		Schema json.RawMessage `json:"schema"`
		Args   json.RawMessage `json:"args,omitempty"`
	}
	var input []in
	for _, c := range cases {
		o := op
		if c.Op != "" {
			o = c.Op
		}
		input = append(input, in{Op: o, Schema: c.Schema, Args: c.Args})
	}
	var reply struct {
		Versions map[string]string `json:"versions"`
		Answers  []oracleAnswer    `json:"answers"`
	}
	testenv.AskNode(t, append(testenv.CleanEnv(), "PLAIOS_NODE_MODULES="+nm), input, &reply, filepath.Join("testdata", "oracle.js"))
	want := map[string]string{"node": testenv.OracleNodeVersion, "ajv": "8.20.0", "ajvFormats": "3.0.1"}
	for k, v := range want {
		if reply.Versions[k] != v {
			t.Fatalf("the oracle ran %s %s, want the pinned %s", k, reply.Versions[k], v)
		}
	}
	answers := reply.Answers
	if len(answers) != len(cases) {
		t.Fatalf("the oracle answered %d cases of %d", len(answers), len(cases))
	}
	return answers
}

func parseOrdered(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	doc, err := jsonpos.Parse(raw)
	if err != nil {
		t.Fatalf("case JSON: %v", err)
	}
	return reviveJS(fromJSONPos(doc))
}

// reviveJS turns {"$js": …} markers into the values JSON cannot write.
func reviveJS(v any) any {
	switch x := v.(type) {
	case *object:
		if x.Len() == 1 && x.Keys()[0] == "$js" {
			switch x.At("$js") {
			case "undefined":
				return undef
			case "Infinity":
				return math.Inf(1)
			case "-Infinity":
				return math.Inf(-1)
			case "NaN":
				return math.NaN()
			}
		}
		for _, k := range x.Keys() {
			x.Set(k, reviveJS(x.At(k)))
		}
	case *array:
		for i, it := range x.items {
			x.items[i] = reviveJS(it)
		}
	}
	return v
}

// encodeJS writes a value as the oracle script does.
func encodeJS(v any) any {
	switch x := v.(type) {
	case undefinedValue:
		return map[string]any{"$js": "undefined"}
	case jsFunction:
		return map[string]any{"$js": "function"}
	case float64:
		if x == 0 {
			return 0.0 // JSON.stringify writes -0 as 0
		}
		if math.IsInf(x, 1) {
			return map[string]any{"$js": "Infinity"}
		}
		if math.IsInf(x, -1) {
			return map[string]any{"$js": "-Infinity"}
		}
		if x != x {
			return map[string]any{"$js": "NaN"}
		}
		return x
	case *object:
		m := map[string]any{}
		for _, k := range x.Keys() {
			m[k] = encodeJS(x.At(k))
		}
		return m
	case *array:
		out := make([]any, len(x.items))
		for i, it := range x.items {
			out[i] = encodeJS(it)
		}
		return out
	}
	return v
}

func canonical(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func canonicalRaw(t *testing.T, raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return canonical(t, v)
}

// regexpMessage says whether an Ajv message comes from V8's RegExp parser, whose wording
// this package copies but cannot promise for every fault.
func regexpMessage(s string) bool { return strings.HasPrefix(s, "Invalid regular expression:") }

func TestOracleCompile(t *testing.T) {
	cases := loadCases(t, "compile_cases.json")
	if len(cases) < 60 {
		t.Fatalf("the compile table has %d schemas; it needs at least 60", len(cases))
	}
	answers := askNode(t, "compile", cases)
	agree := 0
	for i, c := range cases {
		a := answers[i]
		_, faults, err := NewRegistry().compile(parseOrdered(t, c.Schema), false)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		ok := len(faults) == 0
		if ok != a.OK {
			t.Errorf("%s: Compile says ok=%v (%v), Ajv says ok=%v (%s)", c.Name, ok, faults, a.OK, a.Error)
			continue
		}
		if !ok {
			got := faults[0].Ajv
			if got != a.Error && !(regexpMessage(got) && regexpMessage(a.Error)) {
				t.Errorf("%s: Compile fails with %q, Ajv with %q", c.Name, got, a.Error)
				continue
			}
		}
		agree++
	}
	t.Logf("compile table: %d schemas, %d answered as Ajv does", len(cases), agree)
}

func TestOraclePrepare(t *testing.T) {
	cases := loadCases(t, "prepare_cases.json")
	if len(cases) < 60 {
		t.Fatalf("the prepare table has %d pairs; it needs at least 60", len(cases))
	}
	answers := askNode(t, "prepare", cases)
	agree := 0
	for i, c := range cases {
		a := answers[i]
		s, faults, err := NewRegistry().compile(parseOrdered(t, c.Schema), false)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if (len(faults) == 0) != a.OK {
			t.Errorf("%s: compile ok=%v (%v), Ajv ok=%v (%s)", c.Name, len(faults) == 0, faults, a.OK, a.Error)
			continue
		}
		if !a.OK {
			agree++
			continue
		}
		args := parseOrdered(t, c.Args)
		e := &evaluator{coerce: c.Op != "validate", defaults: c.Op != "validate"}
		_, errs := e.call(s, args)
		if a.Threw != "" {
			if len(errs) == 0 || errs[len(errs)-1].Keyword != "" || !strings.Contains(errs[len(errs)-1].Message, a.Threw) {
				t.Errorf("%s: Ajv's validator throws %q; Prepare gives %v", c.Name, a.Threw, errs)
				continue
			}
			agree++
			continue
		}
		bad := false
		if got, want := canonical(t, encodeJS(args)), canonicalRaw(t, a.Data); got != want {
			t.Errorf("%s: data\n got  %s\n want %s", c.Name, got, want)
			bad = true
		}
		var gotErrs, wantErrs []string
		for _, er := range errs {
			gotErrs = append(gotErrs, fmt.Sprintf("%s %s %s: %s [%s]", er.InstancePath, er.Keyword, er.SchemaPath, er.Message, er.PropertyName))
		}
		for _, er := range a.Errors {
			wantErrs = append(wantErrs, fmt.Sprintf("%s %s %s: %s [%s]", er.InstancePath, er.Keyword, er.SchemaPath, er.Message, er.PropertyName))
		}
		sort.Strings(gotErrs)
		sort.Strings(wantErrs)
		if strings.Join(gotErrs, "\n") != strings.Join(wantErrs, "\n") {
			t.Errorf("%s: errors\n got  %q\n want %q", c.Name, gotErrs, wantErrs)
			bad = true
		}
		if !bad {
			agree++
		}
	}
	t.Logf("prepare table: %d (schema, arguments) pairs, %d answered as Ajv does", len(cases), agree)
}
