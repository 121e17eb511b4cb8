package jsonpos

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParsePositions(t *testing.T) {
	src := "{\n  \"name\": \"@x/a\",\n  \"files\": [\"dist\", 3],\n  \"é\": {\"k\": true}\n}\n"
	v, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	name := v.Member("name")
	if name.KeyPos.Line != 2 || name.KeyPos.Col != 3 {
		t.Errorf("key pos = %v, want 2:3", name.KeyPos)
	}
	if name.Value.Pos.Line != 2 || name.Value.Pos.Col != 11 || name.Value.Str != "@x/a" {
		t.Errorf("value = %+v", name.Value)
	}
	if got := src[name.Value.Pos.Offset:name.Value.End]; got != `"@x/a"` {
		t.Errorf("span = %q", got)
	}
	files := v.Get("files")
	if files.Items[1].Pos.Col != 21 || files.Items[1].Float() != 3 {
		t.Errorf("item = %+v", files.Items[1])
	}
	k := v.Path("é", "k")
	if k == nil || k.Pos.Line != 4 || k.Pos.Col != 14 {
		t.Errorf("é.k = %+v (columns count characters)", k)
	}
}

func TestDuplicateKeysLastWins(t *testing.T) {
	v, err := Parse([]byte(`{"a":1,"a":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.Get("a").Raw != "2" || len(v.Members) != 2 {
		t.Fatalf("got %+v", v.Get("a"))
	}
}

func TestSyntaxErrors(t *testing.T) {
	cases := []struct {
		src, want string
		line, col int
	}{
		{`{"a":1,}`, "trailing commas", 1, 8},
		{"{\n  \"a\" 1}", `expected ":"`, 2, 7},
		{`[1 2]`, `expected "," or "]"`, 1, 4},
		{`{"a": 01}`, "leading zero", 1, 8},
		{`"abc`, "unterminated string", 1, 1},
		{``, "empty document", 1, 1},
		{`{} x`, "after the end", 1, 4},
		{`{'a':1}`, "expected a key in double quotes", 1, 2},
		{`// c` + "\n{}", "expected a value", 1, 1},
		{`{"a":"\x"}`, "invalid escape", 1, 8},
		{`nul`, "expected a value", 1, 1},
		{strings.Repeat("[", MaxDepth+5), "nesting deeper", 1, MaxDepth + 2},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.src))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: err = %v, want a SyntaxError", c.src, err)
			continue
		}
		if !strings.Contains(se.Msg, c.want) || se.Pos.Line != c.line || se.Pos.Col != c.col {
			t.Errorf("%q: got %q at %v, want %q at %d:%d", c.src, se.Msg, se.Pos, c.want, c.line, c.col)
		}
	}
}

func TestJSON5(t *testing.T) {
	src := `// OpenClaw manifest
{
  id: 'tavily', /* block */
  "configSchema": {type: "object", additionalProperties: false,},
  n: [0x1F, .5, 5., +1, -Infinity, NaN],
  s: 'it\'s \x41\
b',
}`
	v, err := ParseJSON5([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if v.Get("id").Str != "tavily" || v.Get("id").Pos.Line != 3 {
		t.Errorf("id = %+v", v.Get("id"))
	}
	n := v.Get("n").Items
	if n[0].Float() != 31 || n[1].Float() != 0.5 || n[2].Float() != 5 || n[3].Float() != 1 || !math.IsInf(n[4].Float(), -1) || !math.IsNaN(n[5].Float()) {
		t.Errorf("numbers = %v %v %v %v %v %v", n[0].Float(), n[1].Float(), n[2].Float(), n[3].Float(), n[4].Float(), n[5].Float())
	}
	if got := v.Get("s").Str; got != "it's Ab" {
		t.Errorf("s = %q", got)
	}
	if _, err := ParseJSON5([]byte("{a: 1 /* open")); err == nil || !strings.Contains(err.Error(), "unterminated /* comment") {
		t.Errorf("open comment: %v", err)
	}
}

func TestInterfaceMatchesEncodingJSON(t *testing.T) {
	src := `{"a":[1,2.5,-3e2,"x",null,true,false,{"b":"\u00e9\ud83d\ude00"}],"c":{}}`
	v, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal([]byte(src), &want); err != nil {
		t.Fatal(err)
	}
	if got := v.Interface(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

// FuzzParse checks that Parse never panics and agrees with encoding/json on what is valid
// (encoding/json rejects invalid UTF-8 only inside strings the same way JSON.parse replaces it,
// so inputs with invalid UTF-8 are left out of the comparison) and on the decoded value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,{"b":null}]}`, `"\u0041"`, `-0.5e+3`, `{"a":1,}`, ` [ 1 , 2 ] `, "\ufeff{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if strings.HasPrefix(string(data), "\ufeff") || !isValidUTF8(data) {
			return
		}
		valid := json.Valid(data)
		if (err == nil) != valid {
			if err != nil && strings.Contains(err.Error(), "nesting deeper") {
				return
			}
			t.Fatalf("Parse err = %v, json.Valid = %v for %q", err, valid, data)
		}
		var want any
		if err == nil && json.Unmarshal(data, &want) == nil && !reflect.DeepEqual(v.Interface(), want) {
			t.Fatalf("values differ for %q", data)
		}
		if err == nil {
			checkPositions(t, data, v)
		}
	})
}

// checkPositions requires every value's and key's line and column to be what counting the
// characters before its offset gives.
func checkPositions(t *testing.T, data []byte, v *Value) {
	t.Helper()
	want := func(off int) (line, col int) {
		line, col = 1, 1
		s := data[:off]
		for i, r := range string(s) {
			switch {
			case r == '\n':
				line, col = line+1, 1
			case r == '\r' && (i+1 >= len(s) || s[i+1] != '\n') && !(i+1 == len(s) && off < len(data) && data[off] == '\n'):
				line, col = line+1, 1
			default:
				col++
			}
		}
		return line, col
	}
	var walk func(v *Value)
	walk = func(v *Value) {
		if l, c := want(v.Pos.Offset); l != v.Pos.Line || c != v.Pos.Col {
			t.Fatalf("value at offset %d: got %d:%d, want %d:%d in %q", v.Pos.Offset, v.Pos.Line, v.Pos.Col, l, c, data)
		}
		for _, m := range v.Members {
			if l, c := want(m.KeyPos.Offset); l != m.KeyPos.Line || c != m.KeyPos.Col {
				t.Fatalf("key %q at offset %d: got %d:%d, want %d:%d in %q", m.Key, m.KeyPos.Offset, m.KeyPos.Line, m.KeyPos.Col, l, c, data)
			}
			walk(m.Value)
		}
		for _, it := range v.Items {
			walk(it)
		}
	}
	walk(v)
}

// FuzzParseJSON5 checks that ParseJSON5 never panics and that every JSON document is also
// JSON5 with the same value.
func FuzzParseJSON5(f *testing.F) {
	for _, s := range []string{`{a:1}`, `[0x1,.5,+Infinity]`, `'x\
y'`, `/* c */ {}`, `{"a":1,}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v5, err5 := ParseJSON5(data)
		if err5 == nil && isValidUTF8(data) && !strings.HasPrefix(string(data), "\ufeff") {
			checkPositions(t, data, v5)
		}
		v, err := Parse(data)
		if err == nil {
			if err5 != nil {
				t.Fatalf("valid JSON %q rejected as JSON5: %v", data, err5)
			}
			a, b := v.Interface(), v5.Interface()
			if !reflect.DeepEqual(a, b) && !hasNaN(b) {
				t.Fatalf("values differ for %q", data)
			}
		}
	})
}

func hasNaN(v any) bool {
	switch x := v.(type) {
	case float64:
		return math.IsNaN(x)
	case []any:
		for _, e := range x {
			if hasNaN(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasNaN(e) {
				return true
			}
		}
	}
	return false
}

func isValidUTF8(b []byte) bool { return strings.ToValidUTF8(string(b), "\x00invalid") == string(b) }

func TestStringifyHelpers(t *testing.T) {
	if got := string(AppendJSString(nil, "a\"b\\c\n\x01\u2028é\xff")); got != `"a\"b\\c\n\u0001`+"\u2028é"+`\u00ff"` {
		t.Errorf("AppendJSString = %s", got)
	}
	for f, want := range map[float64]string{0: "0", 1: "1", -2.5: "-2.5", 1e21: "1e+21", 1.5e-7: "1.5e-7", 123456789012: "123456789012", 0.000001: "0.000001"} {
		if got := FormatJSNumber(f); got != want {
			t.Errorf("FormatJSNumber(%v) = %s, want %s", f, got, want)
		}
	}
}
