package minimatch

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// The oracle for this package is the minimatch that the pinned npm bundles (testenv.OracleMinimatch,
// minimatch 10.2.5 in npm 11.19.1, run on the pinned Node): every pattern and path below is
// matched by both, in one node process, and the answers must agree.

const oracleScript = `
const { Minimatch } = require(process.argv[1]);
let s = '';
process.stdin.on('data', d => s += d).on('end', () => {
  const cases = JSON.parse(s);
  const out = cases.map(c => {
    try {
      const mm = new Minimatch(c.p, { dot: c.dot, nocase: c.nocase, matchBase: c.matchBase, flipNegate: true });
      return { ok: true, neg: mm.negate, hit: mm.match(c.f, c.partial), parts: mm.globParts };
    } catch (e) {
      return { ok: false, err: String(e && e.message) };
    }
  });
  const version = require(process.argv[1] + '/package.json').version;
  process.stdout.write(JSON.stringify({ node: process.version, minimatch: version, answers: out }));
});
`

type oracleCase struct {
	P         string `json:"p"`
	F         string `json:"f"`
	Partial   bool   `json:"partial"`
	Dot       bool   `json:"dot"`
	NoCase    bool   `json:"nocase"`
	MatchBase bool   `json:"matchBase"`
}

type oracleAnswer struct {
	OK    bool       `json:"ok"`
	Neg   bool       `json:"neg"`
	Hit   bool       `json:"hit"`
	Parts [][]string `json:"parts"`
	Err   string     `json:"err"`
}

func askOracle(t *testing.T, cases []oracleCase) []oracleAnswer {
	t.Helper()
	dir := testenv.OracleMinimatch(t)
	var reply struct {
		Node      string         `json:"node"`
		Minimatch string         `json:"minimatch"`
		Answers   []oracleAnswer `json:"answers"`
	}
	testenv.AskNode(t, nil, cases, &reply, "-e", oracleScript, dir)
	if reply.Node != testenv.OracleNodeVersion || reply.Minimatch != testenv.OracleMinimatchVersion {
		t.Fatalf("the oracle ran minimatch %s on node %s, want the pinned %s on %s", reply.Minimatch, reply.Node,
			testenv.OracleMinimatchVersion, testenv.OracleNodeVersion)
	}
	answers := reply.Answers
	if len(answers) != len(cases) {
		t.Fatalf("oracle answered %d of %d cases", len(answers), len(cases))
	}
	return answers
}

var trickyPatterns = []string{
	"*", "**", "*.js", "*.JS", "**/*.js", "/*.js", "lib/", "lib/**", "/lib", "lib/*", "!lib", "!!lib",
	"a/**/b", "**/b/**", "a/**", "**/.git", "**/.git/**", ".*.swp", "._*", "**/._*/**", "*.orig",
	"/build/config.gypi", "/.wafpickle-*", "!/readme{,.*[^~$]}", "/readme{,.*[^~$]}", "{a,b}/c",
	"{a,{b,c}}", "a{,.js}", "{1..3}.js", "{a..c}", "{01..03}", "x{{a,b}}y", "{}", "{a}", "a{b}c,d}",
	"[abc].js", "[!abc].js", "[^abc].js", "[a-c]*", "[z-a]", "[[:alpha:]]x", "[[:digit:]]*",
	"[[:upper:]]*", "[]", "[]]", "[!]]", "[", "a[", "\\*", "\\[a]", "a\\|b", "a\\", "\\#x", "#x",
	"+(a|b)", "@(a|b).js", "!(a).js", "!(a)", "*(a|b)", "?(a)", "+()", "@()", "*()", "?()", "!()",
	"!(a|)", "x!(a)y", "@(a|!(b))", "+(a|+(b|c))", "*(a|?(b))", "@(a", "a/**/../b", "../x", "./x",
	"a/./b", "a//b", "**/**/a", "?", "??", "??.js", "?.md", ".*", "*.*", "*.", "a*b*c", "*a*",
	"readme*", "README.md", "licen[cs]e*", "dist/*.map", "src/**/*.test.js", "!src/**/*.test.js",
	"node_modules", "/node_modules", "**/node_modules/**", "*.[jt]s", "*.{js,ts}", "a,b", "a b",
	"  spaced", "ü*", "*ß", "É.md", "[[:space:]]x", "[\\]]", "[\\-]", "[a\\-z]", "@(x)@(y)",
	"!(*.js)", "!(foo).bar", "*(*.js)", "a+(b)c", "[[:graph:]]", "[[:print:]]", "[[=a=]]",
}

var trickyPaths = []string{
	"a", "b", "c", "a.js", "A.JS", "lib", "lib/", "lib/a.js", "/lib", "/lib/a.js", "a/b", "a/x/b",
	"a/b/c", ".git", "x/.git", "x/.git/y", ".a.swp", "._x", "x/._y/z", "f.orig", "build/config.gypi",
	".wafpickle-3", "readme", "README", "Readme.md", "readme~", "README.md~", "readme.", "license",
	"LICENSE.txt", "licence", "1.js", "02", "x.md", "ab", "abc", "z", "x", "y", "xy", "xay", "*",
	"[a]", "a|b", "a\\", "#x", "\\#x", "foo.bar", "bar", "node_modules", "x/node_modules/y", "a b",
	"ü1", "aß", "é.md", "É.MD", ".", "..", "", "/", "a//b", "dist/a.map", "src/x/a.test.js", "+()",
	"@()", "@", "a-x", "ax", "-", "]", "A", "Z", "aBc", "ſ", "K", "k", "\u212a", "a,b", "a b", "  spaced",
}

func TestMinimatchMatchesNpm(t *testing.T) {
	var cases []oracleCase
	opts := []Options{
		{Dot: true, NoCase: true, MatchBase: true}, // ignore-walk's options
		{},
		{Dot: true},
	}
	for _, o := range opts {
		for _, p := range trickyPatterns {
			for _, f := range trickyPaths {
				for _, partial := range []bool{false, true} {
					cases = append(cases, oracleCase{P: p, F: f, Partial: partial, Dot: o.Dot, NoCase: o.NoCase, MatchBase: o.MatchBase})
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4000 {
		cases = append(cases, oracleCase{P: randomGlob(rng), F: randomPath(rng), Partial: rng.IntN(4) == 0,
			Dot: true, NoCase: true, MatchBase: true})
	}
	answers := askOracle(t, cases)
	failures := 0
	for i, c := range cases {
		a := answers[i]
		m, err := New(c.P, Options{Dot: c.Dot, NoCase: c.NoCase, MatchBase: c.MatchBase})
		var got string
		if err != nil {
			got = "error"
		} else {
			got = fmt.Sprintf("neg=%v hit=%v", m.Negate, m.Match(c.F, c.Partial))
		}
		want := "error"
		if a.OK {
			want = fmt.Sprintf("neg=%v hit=%v", a.Neg, a.Hit)
		}
		if got != want {
			failures++
			if failures <= 40 {
				t.Errorf("pattern %q path %q partial=%v opts=%+v: got %s (%v), npm's minimatch %s %s", c.P, c.F, c.Partial,
					Options{c.Dot, c.NoCase, c.MatchBase}, got, err, want, a.Err)
			}
			continue
		}
		if err == nil && a.OK && a.Parts != nil && fmt.Sprint(m.GlobParts) != fmt.Sprint(a.Parts) {
			failures++
			if failures <= 40 {
				t.Errorf("pattern %q: globParts %q, npm's minimatch %q", c.P, m.GlobParts, a.Parts)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d cases differ from npm's minimatch", failures, len(cases))
	}
	t.Logf("%d cases agree with npm's minimatch", len(cases)-failures)
}

const globAlphabet = "ab.*?[]!^-/{},\\()|+@#~ A:$"

func randomGlob(rng *rand.Rand) string {
	atoms := []string{"*", "**", "?", "[a-c]", "[!a]", "[[:alpha:]]", "{a,b}", "{1..2}", "+(a|b)", "!(a)",
		"@(x|.y)", "*(a)", "?(b)", ".", "..", "/", "a", "b", "A", ".x", "\\*", "\\", "#", "!", "~", "$"}
	n := 1 + rng.IntN(5)
	var b strings.Builder
	for range n {
		if rng.IntN(3) == 0 {
			b.WriteByte(globAlphabet[rng.IntN(len(globAlphabet))])
		} else {
			b.WriteString(atoms[rng.IntN(len(atoms))])
		}
	}
	return b.String()
}

func randomPath(rng *rand.Rand) string {
	segs := []string{"a", "b", "A", "ab", ".x", "x.js", "1", "a.b", "[a]", "+", "@", "y", "!", "aa", ".y"}
	n := 1 + rng.IntN(4)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = segs[rng.IntN(len(segs))]
	}
	p := strings.Join(parts, "/")
	if rng.IntN(5) == 0 {
		p = "/" + p
	}
	if rng.IntN(6) == 0 {
		p += "/"
	}
	return p
}
