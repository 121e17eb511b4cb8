package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/jsonpos"
)

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestPrepareWithPlainGoValues(t *testing.T) {
	s, err := Compile(mustJSON(t, `{"type":"object","properties":{
		"query":{"type":"string"},
		"maxResults":{"type":"integer","minimum":1,"maximum":10,"default":5},
		"safe":{"type":"boolean"},
		"tags":{"type":"array","items":{"type":"string"}}},"required":["query"]}`))
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"query": 42, "safe": "false", "tags": []any{1, true}}
	got, errs := s.Prepare(args)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := map[string]any{"query": "42", "safe": false, "tags": []any{"1", "true"}, "maxResults": 5.0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Prepare = %#v, want %#v", got, want)
	}
	if args["query"] != 42 || len(args) != 3 {
		t.Errorf("Prepare changed its argument: %#v", args)
	}

	_, errs = s.Prepare(map[string]any{"maxResults": json.Number("11")})
	var kw []string
	for _, e := range errs {
		kw = append(kw, e.InstancePath+" "+e.Keyword+": "+e.Message)
	}
	wantErrs := []string{" required: must have required property 'query'", "/maxResults maximum: must be <= 10"}
	if !reflect.DeepEqual(kw, wantErrs) {
		t.Errorf("errors %q, want %q", kw, wantErrs)
	}
}

func TestPrepareLeavesTheTopLevelValue(t *testing.T) {
	s, err := Compile(map[string]any{"type": "integer"})
	if err != nil {
		t.Fatal(err)
	}
	got, errs := s.Prepare("7")
	if got != "7" || len(errs) != 0 {
		t.Errorf("Prepare(\"7\") = %v, %v; Ajv accepts it and leaves the caller's value as it is", got, errs)
	}
}

func TestPrepareValueNotJSON(t *testing.T) {
	s, err := Compile(true)
	if err != nil {
		t.Fatal(err)
	}
	_, errs := s.Prepare(map[string]any{"c": make(chan int)})
	if len(errs) != 1 || errs[0].Keyword != "" || !strings.Contains(errs[0].Message, "not JSON") {
		t.Errorf("errors %v, want one saying the value is not JSON", errs)
	}
}

func TestValidateNeitherCoercesNorFills(t *testing.T) {
	s, err := Compile(mustJSON(t, `{"type":"object","properties":{"n":{"type":"integer","default":1}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"n": "2"}
	errs := s.Validate(args)
	if len(errs) != 1 || errs[0].Keyword != "type" || errs[0].InstancePath != "/n" || errs[0].Message != "must be integer" {
		t.Errorf("Validate = %v", errs)
	}
	if errs := s.Validate(map[string]any{}); len(errs) != 1 || errs[0].Keyword != "required" {
		t.Errorf("Validate({}) = %v, want the required error (no default filled)", errs)
	}
	if args["n"] != "2" {
		t.Errorf("Validate changed its argument")
	}
}

func TestAsync(t *testing.T) {
	s, err := Compile(map[string]any{"$async": true, "type": "object"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Async() {
		t.Error("Async() = false for a root $async schema")
	}
	s, _ = Compile(map[string]any{"type": "object"})
	if s.Async() {
		t.Error("Async() = true for a plain schema")
	}
}

func TestCompileErrorNamesTheFault(t *testing.T) {
	_, err := Compile(mustJSON(t, `{"type":"object","properties":{"when":{"type":"string","format":"datetime"}}}`))
	ce, ok := err.(*CompileError)
	if !ok {
		t.Fatalf("error %T %v, want *CompileError", err, err)
	}
	if ce.Pointer != "/properties/when/format" || ce.Keyword != "format" || ce.Ajv != `unknown format "datetime" ignored in schema at path "#/properties/when"` {
		t.Errorf("CompileError = %+v", ce)
	}
	if msg := err.Error(); !strings.Contains(msg, "/properties/when/format") || !strings.Contains(msg, "datetime") || strings.Contains(msg, "\n") {
		t.Errorf("message %q does not name the place and the fault in one line", msg)
	}
}

// TestRegistryRemembersIDs: the executor keeps one Ajv for every tool, so two different
// schema objects under one $id cannot both compile, while the same object compiles again.
func TestRegistryRemembersIDs(t *testing.T) {
	reg := NewRegistry()
	a := mustJSON(t, `{"$id":"https://example.com/search.json","type":"object"}`)
	b := mustJSON(t, `{"$id":"https://example.com/search.json","type":"object"}`)
	if _, err := reg.Compile(a); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Compile(a); err != nil {
		t.Errorf("the same schema object again: %v", err)
	}
	_, err := reg.Compile(b)
	ce, ok := err.(*CompileError)
	if !ok || ce.Ajv != `schema with key or id "https://example.com/search.json" already exists` {
		t.Errorf("a copy under the same $id: %v", err)
	}
	if _, err := NewRegistry().Compile(b); err != nil {
		t.Errorf("a fresh registry: %v", err)
	}
}

func TestToolName(t *testing.T) {
	long := strings.Repeat("a", 128)
	cases := []struct {
		name string
		d    Dialect
		ok   bool
	}{
		{"web_search", PLAIOS, true}, {"web-search-2", PLAIOS, true}, {"webSearch", PLAIOS, true},
		{"web.search", PLAIOS, false}, {"", PLAIOS, false}, {"web search", PLAIOS, false}, {"café", PLAIOS, false},
		{"web.search", MCP, true}, {"a", MCP, true}, {long, MCP, true}, {long + "a", MCP, false},
		{"", MCP, false}, {"a/b", MCP, false}, {"ünï", MCP, false}, {"x", Dialect(9), false},
		// AgentOS and OpenClaw refuse only a blank name; Pi checks nothing.
		{"search the web / news", AgentOS, true}, {long + "more", AgentOS, true}, {"", AgentOS, false}, {" \t", AgentOS, false},
		{"zalo.send", OpenClaw, true}, {"   ", OpenClaw, false}, {"", Pi, true}, {"any name at all", Pi, true},
	}
	for _, c := range cases {
		err := ToolName(c.name, c.d)
		if (err == nil) != c.ok {
			t.Errorf("ToolName(%q, %v) = %v, want ok=%v", c.name, c.d, err, c.ok)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("ToolName(%q): %q is not one line", c.name, err)
		}
	}
	if err := ToolName("web search", PLAIOS); err == nil || !strings.Contains(err.Error(), "a space") {
		t.Errorf("the error does not name the space: %v", err)
	}
}

func TestDuplicateNames(t *testing.T) {
	got := DuplicateNames([]string{"a", "b", "a", "c", "b", "a"})
	want := []Duplicate{{Name: "a", Indexes: []int{0, 2, 5}}, {Name: "b", Indexes: []int{1, 4}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DuplicateNames = %v, want %v", got, want)
	}
	if DuplicateNames([]string{"a", "b"}) != nil {
		t.Error("no duplicates, yet some reported")
	}
}

// TestNumberString checks JavaScript's Number::toString, which string coercion and Ajv's
// messages use (expected values written by node).
func TestNumberString(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", 1: "1", -1.5: "-1.5", 0.1: "0.1", 100: "100", 1e21: "1e+21", 123456789012345680000: "123456789012345680000",
		0.000001: "0.000001", 1e-7: "1e-7", 1.5e-7: "1.5e-7", 5e-324: "5e-324", math.MaxFloat64: "1.7976931348623157e+308",
		0.30000000000000004: "0.30000000000000004", math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", 2.5e25: "2.5e+25",
	} {
		if got := jsonpos.JSNumberString(f); got != want {
			t.Errorf("jsonpos.JSNumberString(%v) = %q, want %q", f, got, want)
		}
	}
	if got := jsonpos.JSNumberString(math.Copysign(0, -1)); got != "0" {
		t.Errorf("jsonpos.JSNumberString(-0) = %q", got)
	}
	if got := jsonpos.JSNumberString(math.NaN()); got != "NaN" {
		t.Errorf("jsonpos.JSNumberString(NaN) = %q", got)
	}
}

// TestStringToNumber checks JavaScript's Number(string), which number coercion uses.
func TestStringToNumber(t *testing.T) {
	for s, want := range map[string]float64{
		"5": 5, " 5 ": 5, "\t\n5\u00a0": 5, "": 0, "   ": 0, "0x1A": 26, "0b101": 5, "0o17": 15, "1e3": 1000, ".5": 0.5,
		"5.": 5, "-2.5": -2.5, "+3": 3, "Infinity": math.Inf(1), "-Infinity": math.Inf(-1), "1e400": math.Inf(1),
	} {
		if got := stringToNumber(s); got != want {
			t.Errorf("Number(%q) = %v, want %v", s, got, want)
		}
	}
	for _, s := range []string{"abc", "1_000", "0x", "-0x10", "5e", "e5", ".", "1.2.3", "infinity", "NaN", "0x1g", "1,5"} {
		if got := stringToNumber(s); got == got {
			t.Errorf("Number(%q) = %v, want NaN", s, got)
		}
	}
}

// TestRegistryCompilesACachedSchemaAgain mirrors Ajv's cache: a schema object whose first
// compilation failed is compiled again on the next call (and fails again), never handed out
// half compiled.
func TestRegistryCompilesACachedSchemaAgain(t *testing.T) {
	reg := NewRegistry()
	bad := mustJSON(t, `{"$id":"https://example.com/bad.json","type":"object","properties":{"a":{"type":"string","format":"nope"}}}`)
	for i := 0; i < 2; i++ {
		_, err := reg.Compile(bad)
		ce, ok := err.(*CompileError)
		if !ok || !strings.HasPrefix(ce.Ajv, `unknown format "nope"`) {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
}
