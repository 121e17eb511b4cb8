package jsonpos

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// stringifyCases are JSON texts where JSON.stringify(JSON.parse(text)) is easy to get wrong:
// duplicate keys, array-index keys (enumerated first, "01" and 2³²−1 not), numbers that change
// spelling, strings with escapes, U+2028 and lone surrogates' neighbours, nesting and emptiness.
var stringifyCases = []string{
	`null`, `true`, `false`, `0`, `-0`, `1e21`, `1e-7`, `0.000001`, `123456789012345680000`, `1.5e300`,
	`2.50`, `-1E+2`, `1e400`, `-1e400`, `""`, `"a\"b\\c\n\t\b\f\r\u0001\u001f é\u2028\u2029<>&"`,
	`[]`, `{}`, `[[]]`, `[{}]`, `{"a":{}}`, `{"a":[]}`,
	`{"b":1,"a":2,"b":3}`, `{"z":1,"2":2,"10":3,"1":4,"01":5,"-1":6,"4294967294":7,"4294967295":8,"a":9}`,
	`{"x":[1,"two",{"three":[3,{"four":null}]}],"y":{"":{"":""}}}`,
	`[1,[2,[3,[4,[5]]]],{"k":[true,false,null]}]`,
	`{"name":"@scope/pkg","version":"1.0.0","configSchema":{"type":"object","additionalProperties":false,"properties":{}}}`,
}

// TestStringifyMatchesNode holds Stringify to JSON.stringify on the pinned Node: each case
// and a few hundred random documents, parsed and written back compact, with two spaces and
// with a tab.
func TestStringifyMatchesNode(t *testing.T) {
	docs := append([]string(nil), stringifyCases...)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		docs = append(docs, randomJSON(rng, 0))
	}
	indents := []string{"", "  ", "\t"}
	type in struct {
		Text   string `json:"text"`
		Indent string `json:"indent"`
	}
	var input []in
	for _, d := range docs {
		for _, ind := range indents {
			input = append(input, in{d, ind})
		}
	}
	var reply struct {
		Node string   `json:"node"`
		Out  []string `json:"out"`
	}
	testenv.AskNode(t, nil, input, &reply, "-e", `
let s = '';
process.stdin.on('data', d => s += d).on('end', () => {
  const out = JSON.parse(s).map(c => JSON.stringify(JSON.parse(c.text), null, c.indent));
  process.stdout.write(JSON.stringify({ node: process.version, out }));
});`)
	if len(reply.Out) != len(input) {
		t.Fatalf("node answered %d of %d", len(reply.Out), len(input))
	}
	if reply.Node != testenv.OracleNodeVersion {
		t.Fatalf("the oracle ran node %s, want the pinned %s", reply.Node, testenv.OracleNodeVersion)
	}
	bad := 0
	for i, c := range input {
		v, err := Parse([]byte(c.Text))
		if err != nil {
			t.Fatalf("case %q: %v", c.Text, err)
		}
		want := reply.Out[i]
		if got := string(Stringify(v, c.Indent)); got != want {
			bad++
			t.Errorf("*Value %q indent %q:\n got  %s\n want %s", c.Text, c.Indent, got, want)
		}
		if got := string(Stringify(FromValue(v), c.Indent)); got != want {
			bad++
			t.Errorf("FromValue %q indent %q:\n got  %s\n want %s", c.Text, c.Indent, got, want)
		}
		if bad > 20 {
			t.FailNow()
		}
	}
	t.Logf("%d documents × %d indents written as JSON.stringify writes them", len(docs), len(indents))
}

// randomJSON writes a random JSON document.
func randomJSON(rng *rand.Rand, depth int) string {
	keys := []string{"a", "b", "0", "1", "10", "01", "é", "a b", "\"", "\\", "\u2028", "x", ""}
	k := rng.IntN(7)
	if depth > 3 {
		k = rng.IntN(4)
	}
	switch k {
	case 0:
		return []string{"null", "true", "false"}[rng.IntN(3)]
	case 1:
		return []string{"0", "-0", "1", "-2.5", "1e21", "1e-7", "3.14159", "100", "1E3", "0.1"}[rng.IntN(10)]
	case 2:
		return strconv.Quote(keys[rng.IntN(len(keys))])
	case 3:
		return `"` + strings.Repeat("x", rng.IntN(3)) + `\u0007"`
	case 4, 5:
		n := rng.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = strconv.Quote(keys[rng.IntN(len(keys))]) + ":" + randomJSON(rng, depth+1)
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		n := rng.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randomJSON(rng, depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
}

// TestStringifierLayout: a starting prefix and a CRLF newline, as the Pi export splices a
// value into a file indented with four spaces and CRLF line ends.
func TestStringifierLayout(t *testing.T) {
	o := NewOrderedObject()
	o.Set("b", []any{"x", 1.5, json.Number("2.50")})
	o.Set("a", NewOrderedObject())
	o.Set("2", true)
	got := string(Stringifier{Indent: "    ", Newline: "\r\n"}.Append(nil, o, "  "))
	want := "{\r\n      \"2\": true,\r\n      \"b\": [\r\n          \"x\",\r\n          1.5,\r\n          2.5\r\n      ],\r\n      \"a\": {}\r\n  }"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// TestOrderedObject: Set keeps a key's first place, Delete removes it, Clone is independent,
// and a nil object reads as an empty one.
func TestOrderedObject(t *testing.T) {
	o := NewOrderedObject()
	o.Set("b", 1)
	o.Set("a", 2)
	o.Set("b", 3)
	o.Set("1", 4)
	if got := strings.Join(o.Keys(), ","); got != "b,a,1" {
		t.Errorf("Keys = %s", got)
	}
	if got := strings.Join(o.JSKeys(), ","); got != "1,b,a" {
		t.Errorf("JSKeys = %s", got)
	}
	c := o.Clone()
	o.Delete("a")
	o.Delete("missing")
	if got := strings.Join(o.Keys(), ","); got != "b,1" || o.Has("a") || o.At("b") != 3 {
		t.Errorf("after Delete: %v", o.Keys())
	}
	if c.Len() != 3 || c.At("a") != 2 {
		t.Errorf("the clone changed: %v", c.Keys())
	}
	var nilObj *OrderedObject
	if nilObj.Len() != 0 || nilObj.Has("a") || nilObj.At("a") != nil || nilObj.Clone().Len() != 0 {
		t.Error("a nil object does not read as empty")
	}
	if _, ok := nilObj.Get("a"); ok {
		t.Error("a nil object has a key")
	}
}
