package jsregexp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// The oracle is V8: the pinned Node (testenv.OracleNode) runs `new RegExp(source, flags)` on
// every case and `test` on every input, and this package must refuse the same patterns with
// the same message and match the same inputs.

const v8Script = `
let s = '';
process.stdin.on('data', d => s += d).on('end', () => {
  const out = JSON.parse(s).map(c => {
    let re;
    try {
      re = new RegExp(c.source, c.flags);
    } catch (e) {
      return { ok: false, error: String(e && e.message) };
    }
    return { ok: true, matches: (c.inputs || []).map(x => { re.lastIndex = 0; return re.test(x); }) };
  });
  process.stdout.write(JSON.stringify({ version: process.version, answers: out }));
});
`

type regexpCase struct {
	Name   string   `json:"name"`
	Source string   `json:"source"`
	Flags  string   `json:"flags"`
	Inputs []string `json:"inputs"`
}

type v8Answer struct {
	OK      bool   `json:"ok"`
	Error   string `json:"error"`
	Matches []bool `json:"matches"`
}

// askV8 runs the pinned node once on all the cases.
func askV8(t *testing.T, cases []regexpCase) []v8Answer {
	t.Helper()
	var reply struct {
		Version string     `json:"version"`
		Answers []v8Answer `json:"answers"`
	}
	testenv.AskNode(t, nil, cases, &reply, "-e", v8Script)
	if len(reply.Answers) != len(cases) {
		t.Fatalf("the oracle answered %d of %d", len(reply.Answers), len(cases))
	}
	if reply.Version != testenv.OracleNodeVersion {
		t.Fatalf("the oracle ran node %s, want the pinned %s", reply.Version, testenv.OracleNodeVersion)
	}
	return reply.Answers
}

// compare holds the engine to V8 on each case and returns how many agree.
func compare(t *testing.T, cases []regexpCase, answers []v8Answer) int {
	t.Helper()
	agree := 0
	for i, c := range cases {
		a := answers[i]
		re, err := Compile(c.Source, c.Flags)
		if (err == nil) != a.OK {
			t.Errorf("%s: compiles=%v (%v), V8 compiles=%v (%s)", c.Name, err == nil, err, a.OK, a.Error)
			continue
		}
		if err != nil {
			if err.Error() != a.Error {
				t.Errorf("%s: error %q, V8 %q", c.Name, err.Error(), a.Error)
				continue
			}
			agree++
			continue
		}
		ok := true
		for j, s := range c.Inputs {
			if got := re.MatchString(s); got != a.Matches[j] {
				t.Errorf("%s on %q: match=%v, V8 %v", c.Name, s, got, a.Matches[j])
				ok = false
			}
		}
		if ok {
			agree++
		}
	}
	return agree
}

// TestOracleRegexp checks the engine against V8 on the table of testdata/regexp_cases.json:
// which patterns `new RegExp` refuses (with V8's message) and what the others match.
func TestOracleRegexp(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "regexp_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []regexpCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	agree := compare(t, cases, askV8(t, cases))
	t.Logf("regexp table: %d expressions, %d read as V8 reads them", len(cases), agree)
}

// TestOracleCaseFolding checks the i flag, with and without u, on the characters where
// JavaScript's two Canonicalize operations differ (ſ, the Kelvin sign, ß, dotted and dotless i,
// title-case digraphs), in literals, classes, negated classes and ranges, and the shapes
// minimatch builds (anchored literals, lookaheads, \p classes).
func TestOracleCaseFolding(t *testing.T) {
	subjects := []string{"s", "S", "ſ", "k", "K", "\u212a", "ß", "ẞ", "i", "I", "İ", "ı", "ǅ", "Ǆ", "ǆ",
		"é", "É", "µ", "Μ", "μ", "a", "A", "z", "_", "-", "", "ab", "AB", "aB", "x.js", "X.JS", "😀", "\U0001d400"}
	sources := []string{"s", "S", "k", "K", "\u212a", "ß", "ẞ", "i", "İ", "ı", "ǅ", "é", "µ", "μ",
		"[s]", "[S]", "[k]", "[^k]", "[^s]", "[a-z]", "[A-Z]", "[^a-z]", "[ſ]", "[\u212a]", "[ǆ]",
		"\\w", "\\W", "[\\w]", "[^\\W]", "\\b", "^ab$", "^AB$", "^x\\.js$", "^(?!\\.)x\\.js$",
		"^[\\p{L}\\p{Nl}]$", "^[^\\p{Lu}]$", "^\\p{Ll}$", "^.$", "(?:a|b)+", "^$", "\\u{1d400}", "[\\u{1d400}-\\u{1d419}]"}
	var cases []regexpCase
	for _, flags := range []string{"i", "iu", "u", ""} {
		for _, src := range sources {
			cases = append(cases, regexpCase{Name: "/" + src + "/" + flags, Source: src, Flags: flags, Inputs: subjects})
		}
	}
	agree := compare(t, cases, askV8(t, cases))
	t.Logf("case folding: %d expressions, %d read as V8 reads them", len(cases), agree)
}

// TestStepBudget: a pattern that backtracks exponentially stops at the budget and reports no
// match instead of hanging, and the same expression still matches where it matches quickly.
func TestStepBudget(t *testing.T) {
	re, err := Compile("^(a+)+$", "")
	if err != nil {
		t.Fatal(err)
	}
	if re.MatchString("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!") {
		t.Error("a catastrophic match reported a match")
	}
	if !re.MatchString("aaaa") {
		t.Error("^(a+)+$ does not match aaaa")
	}
}

// TestSyntaxErrorType: every refusal is a *SyntaxError carrying V8's message.
func TestSyntaxErrorType(t *testing.T) {
	_, err := Compile("(", "u")
	se, ok := err.(*SyntaxError)
	if !ok {
		t.Fatalf("error of type %T", err)
	}
	if se.Msg != "Unterminated group" || err.Error() != "Invalid regular expression: /(/u: Unterminated group" {
		t.Errorf("error %q (%q)", err, se.Msg)
	}
}
