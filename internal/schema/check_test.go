package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/jsonpos"
)

func findingKeys(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		fatal := ""
		if f.Fatal {
			fatal = " fatal"
		}
		out = append(out, fmt.Sprintf("%s %s%s", f.Rule, f.Pointer, fatal))
	}
	sort.Strings(out)
	return out
}

func TestCheckRules(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		strict bool
		want   []string // "rule pointer[ fatal]"
	}{
		{"a good tool schema", `{"type":"object","properties":{"query":{"type":"string"},"max":{"type":"integer","default":5,"minimum":1}},"required":["query"]}`, false, nil},
		{"type unknown", `{"type":"object","properties":{"q":{"type":"strin"}}}`, false, []string{"schema-type-unknown /properties/q/type fatal"}},
		{"type array with a bad entry", `{"type":["string","float"]}`, false, []string{"schema-type-unknown /type fatal"}},
		{"a property named type is not a type fault", `{"type":"object","properties":{"type":5}}`, false, []string{"schema-invalid /properties/type fatal"}},
		{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, false, []string{"schema-draft /$schema fatal"}},
		{"draft-07 is fine", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, false, nil},
		{"nested $schema", `{"type":"object","properties":{"a":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string"}}}`, false, []string{"schema-draft /properties/a/$schema"}},
		{"meta id", `{"$id":"http://json-schema.org/draft-07/schema#","type":"object"}`, false, []string{"schema-meta-id /$id fatal"}},
		{"nested meta id", `{"type":"object","properties":{"a":{"$id":"http://json-schema.org/draft-07/schema","type":"string"}}}`, false, []string{"schema-meta-id /properties/a/$id fatal"}},
		{"async root", `{"$async":true,"type":"object"}`, false, []string{"schema-async /$async"}},
		{"async nested", `{"type":"object","properties":{"a":{"$async":true,"type":"string"}}}`, false, []string{"schema-async /properties/a/$async fatal"}},
		{"unknown keyword Ajv reaches", `{"type":"object","requried":["a"]}`, false, []string{"schema-keyword-unknown /requried fatal"}},
		{"unknown keyword Ajv never reaches", `{"type":"object","definitions":{"x":{"type":"string","maxLenght":3}}}`, false, []string{"schema-keyword-unknown /definitions/x/maxLenght"}},
		{"unknown format", `{"type":"string","format":"datetime"}`, false, []string{"schema-format-unknown /format fatal"}},
		{"unknown format Ajv never reaches", `{"anyOf":[true,{"type":"string","format":"phone"}]}`, false, []string{"schema-format-unknown /anyOf/1/format"}},
		{"default its schema rejects", `{"type":"object","properties":{"n":{"type":"integer","default":"many"}}}`, false, []string{"schema-default-invalid /properties/n/default"}},
		{"default Ajv coerces is fine", `{"type":"object","properties":{"n":{"type":"integer","default":"5"}}}`, false, nil},
		{"default of an object checked with its nested defaults", `{"type":"object","properties":{"o":{"type":"object","default":{},"required":["a"],"properties":{"a":{"type":"string","default":"x"}}}}}`, false, nil},
		{"a $ref leading nowhere where Ajv never looks", `{"anyOf":[true,{"$ref":"#/definitions/gone"}],"definitions":{"x":{"type":"string"}}}`, false, []string{"schema-invalid /anyOf/1/$ref"}},
		{"a $ref outside the schema in an unused definition", `{"type":"string","definitions":{"x":{"$ref":"https://example.com/other.json"}}}`, false, []string{"schema-invalid /definitions/x/$ref"}},
		{"a bad pattern in an unused definition", `{"type":"string","definitions":{"x":{"type":"string","pattern":"(unclosed"}}}`, false, []string{"schema-invalid /definitions/x/pattern"}},
		{"a $ref to an $id of the document is fine", `{"$id":"https://example.com/root.json","definitions":{"x":{"$id":"item.json","type":"string"}},"anyOf":[true,{"$ref":"item.json"}]}`, false, nil},
		{"default failing a referenced schema", `{"type":"object","properties":{"n":{"$ref":"#/definitions/n","default":0}},"definitions":{"n":{"type":"integer","minimum":1}}}`, false, []string{"schema-default-invalid /properties/n/default"}},
		{"default inside anyOf is refused by Ajv", `{"anyOf":[{"type":"object","properties":{"a":{"type":"string","default":"x"}}}]}`, false, []string{"schema-invalid /anyOf/0/properties/a/default fatal"}},
		{"default at the root is refused by Ajv", `{"type":"object","default":{}}`, false, []string{"schema-invalid /default fatal"}},
		{"invalid pattern", `{"type":"string","pattern":"^a\\-b$"}`, false, []string{"schema-invalid /pattern fatal"}},
		{"invalid pattern Ajv never reaches", `{"anyOf":[{},{"type":"string","pattern":"("}]}`, false, []string{"schema-invalid /anyOf/1/pattern"}},
		{"missing reference", `{"type":"object","properties":{"a":{"$ref":"#/definitions/a"}}}`, false, []string{"schema-invalid /properties/a/$ref fatal"}},
		{"missing reference Ajv never reaches", `{"anyOf":[{},{"$ref":"#/definitions/a"}]}`, false, []string{"schema-invalid /anyOf/1/$ref"}},
		{"remote reference", `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`, false, []string{"schema-invalid /properties/a/$ref fatal"}},
		{"required not an array", `{"type":"object","required":"a"}`, false, []string{"schema-invalid /required fatal"}},
		{"if without then", `{"if":{"type":"string"}}`, false, []string{"schema-invalid /if fatal"}},
		{"id (draft-04)", `{"id":"x","type":"object"}`, false, []string{"schema-invalid /id fatal"}},
		{"not a schema", `"object"`, false, []string{"schema-invalid  fatal"}},
		{"strict: open object, optional property", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["string","null"]},"c":{"type":"number"}},"required":["a"]}`, true,
			[]string{"schema-not-strict ", "schema-not-strict /properties/b", "schema-not-strict /properties/c"}},
		{"strict: closed and complete", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["string","null"]}},"required":["a","b"],"additionalProperties":false}`, true, nil},
		{"strict: nested objects too", `{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":true}},"required":["o"],"additionalProperties":false}`, true,
			[]string{"schema-not-strict /properties/o/additionalProperties", "schema-not-strict /properties/o/properties/x"}},
	}
	for _, c := range cases {
		var v any
		if err := json.Unmarshal([]byte(c.schema), &v); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := findingKeys(Check(v, Options{Strict: c.strict}))
		want := append([]string(nil), c.want...)
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got  %q\n want %q", c.name, got, want)
		}
	}
}

func TestCheckFindingsSayWhatAndHow(t *testing.T) {
	var v any
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"q":{"type":"strin"},"w":{"type":"string","format":"datetime"}},"requried":["q"]}`), &v)
	fs := Check(v, Options{})
	hints := map[string]string{}
	for _, f := range fs {
		if f.Message == "" || !strings.HasSuffix(f.Message, ".") {
			t.Errorf("%s: the message %q is not a sentence", f.Rule, f.Message)
		}
		hints[f.Rule] = f.Hint
	}
	for rule, want := range map[string]string{
		RuleTypeUnknown:    `Did you mean "string"?`,
		RuleFormatUnknown:  `Did you mean "date-time"?`,
		RuleKeywordUnknown: `Did you mean "required"?`,
	} {
		if hints[rule] != want {
			t.Errorf("%s: hint %q, want %q", rule, hints[rule], want)
		}
	}
}

func TestCheckFilePositions(t *testing.T) {
	src := "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"q\": { \"type\": \"strin\" }\n  },\n  \"requried\": [\"q\"]\n}\n"
	doc, err := jsonpos.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	fs := CheckFile(doc, Options{})
	want := map[string]string{
		RuleTypeUnknown:    "4:20", // the value "strin"
		RuleKeywordUnknown: "6:3",  // the key "requried"
	}
	if len(fs) != len(want) {
		t.Fatalf("findings %v, want %d", findingKeys(fs), len(want))
	}
	for _, f := range fs {
		if got := f.Pos.String(); got != want[f.Rule] {
			t.Errorf("%s at %s, want %s", f.Rule, got, want[f.Rule])
		}
	}
	if fs[0].Pos.Offset > fs[1].Pos.Offset {
		t.Errorf("findings are not in file order: %v", fs)
	}
}

func TestCheckNeverAnswersWithoutAFindingWhenCompileFails(t *testing.T) {
	// Every schema of the compile table that Ajv refuses gets a fatal finding.
	for _, c := range loadCases(t, "compile_cases.json") {
		var v any
		if err := json.Unmarshal(c.Schema, &v); err != nil {
			t.Fatal(err)
		}
		_, cerr := Compile(v)
		fatal := false
		for _, f := range Check(v, Options{}) {
			fatal = fatal || f.Fatal
		}
		if (cerr != nil) != fatal {
			t.Errorf("%s: Compile error %v, but a fatal finding=%v", c.Name, cerr, fatal)
		}
	}
}
