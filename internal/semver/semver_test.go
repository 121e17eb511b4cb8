package semver

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

var versions = []string{
	"0.0.0", "0.0.0-0", "0.0.1", "0.0.2", "0.0.3-alpha", "0.1.0", "0.1.9", "0.2.0", "0.2.3",
	"0.9.12", "0.9.164", "0.10.0-rc.1", "1.0.0-0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta",
	"1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.0+build.7", "1.2.2",
	"1.2.3-beta.2", "1.2.3-beta.10", "1.2.3-pr.1", "1.2.3", "1.2.4-alpha.notready", "1.2.4", "1.2.9",
	"1.3.0-0", "1.3.0", "1.9.9", "2.0.0-0", "2.0.0-beta", "2.0.0", "2.1.0-rc.1", "2.5.0", "3.0.0",
	"3.4.5", "3.4.6", "3.5.0-0", "10.0.0", "2026.5.17", "2026.9.6", "9007199254740991.0.0",
	// not strict versions
	"v1.2.3", "=1.2.3", "1.2", "1", "01.2.3", "1.2.3-01", "1.2.3-", "1.2.3+", "1.2.3-a..b", " 1.2.3",
	"1.2.3 ", "1.2.3-beta_1", "9007199254740992.0.0", "1.2.3.4", "", "x", "latest",
}

var ranges = []string{
	"", "*", "x", "X", "latest", "1.2.3", "=1.2.3", "v1.2.3", "=v1.2.3", ">1.2.3", ">=1.2.3", "<1.2.3",
	"<=1.2.3", "> 1.2.3", ">= 1.2.3  < 2", "^1.2.3", "^ 1.2.3", "^0.2.3", "^0.0.3", "^1.2.x", "^0.0.x",
	"^0.0", "^1.x", "^0.x", "^1.2.3-beta.2", "^0.0.3-beta", "^0.1.2-rc.1", "~1.2.3", "~ 1.2.3", "~>1.2.3",
	"~1.2", "~1", "~0.2.3", "~1.2.3-beta.2", "1.2.x", "1.x", "1.x.x", "1.X", "1.*", "*.*.*", "x.1",
	"1.x.3", ">1.x", ">1.2.x", "<=1.2.x", "<1.x", ">=1.x", "<=1", "<*", ">*", ">=*", "=1.x",
	"1.2.3 - 2.3.4", "1.2 - 2.3.4", "1.2.3 - 2.3", "1.2.3 - 2", "1 - 2", "* - 2", "1.2.3 - *",
	"1.2.3-pr.1 - 2.0.0-rc.1", "v1.2.3 - v2", "=1.2.3 - 2", "1.2.3 -2.3.4", "1.2.3 - 2.3.4 || 4",
	">=0.9.12", ">=0.9.0 <0.10.0", ">=0.9.12 <1", "^0.9.12 || ^1", "~0.9 || >=2", "1.2.3 || 2.x",
	"<0.0.0-0", "<0.0.0-0 || 1.x", "* || 1.x", "1.x || *", "1 || 2 || 3", ">=2026.5.17", ">=0.0.0",
	">=0.0.0-0", "1.2.3+build", "^1.2.3+build.1", ">1.2.3 <1.2.3", ">=1.2.3 >=1.2.3", ">=1.2.3 *",
	"workspace:*", "npm:foo@1", "file:../x", "git+https://x/y.git", "1.2.3 1.2.4", ">=1.2.3-beta <1.3",
	">1.2.3-beta", ">1.2.3-beta.2 <1.2.3", "1.0.0-0", "^1.0.0-0", "~0.0.0-0", "<=2.0.0-beta", "2.0.0-beta",
	"1.2.3-beta.2 - 1.2.3-beta.10", "\t^1.2.3\n", "^1.2.3\u00a0", " >= 1.2.3 ", "01.2.3", "1.2.03",
	"^01.2", "1.2.3-01", ">=1.2.3 || garbage", "||", "|| 1.2.3", "1.2.3 ||", "a || b", "~>1", "~> 1.2",
	">= 9007199254740991", "^9007199254740991", "^9007199254740991.0.0", "1.2.3 - 9007199254740991",
	">=1.2.3 <=1.2.3", "<1.2.3-0", "<=1.2.3-beta <=1.2.3-alpha", ">2.0.0-0", "^2.0.0-0 || ^3.0.0-0",
	"^v1.2.3", "~v1.2", ">v1.2.3", ">=v1.2.x", "1.2.3-x", "1.2.x-beta", "1.2.*-beta", ">=1.2.3-x.y.z",
}

// randomRanges builds ranges from the grammar's pieces, to reach combinations the table misses.
func randomRanges(n int) []string {
	r := rand.New(rand.NewPCG(7, 11))
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	part := func() string { return pick("0", "1", "2", "3", "10", "x", "*", "X") }
	ver := func() string {
		v := part()
		if r.IntN(4) > 0 {
			v += "." + part()
			if r.IntN(3) > 0 {
				v += "." + part()
				if r.IntN(4) == 0 {
					v += "-" + pick("0", "beta", "beta.2", "rc.1", "alpha.1")
				}
			}
		}
		if r.IntN(8) == 0 {
			v = "v" + v
		}
		return v
	}
	comp := func() string {
		switch r.IntN(5) {
		case 0:
			return ver() + " - " + ver()
		case 1:
			return pick("^", "~", "~>") + pick("", " ") + ver()
		}
		return pick("", "=", ">", ">=", "<", "<=") + pick("", "", " ") + ver()
	}
	out := make([]string, n)
	for i := range out {
		var alts []string
		for range 1 + r.IntN(3) {
			var cs []string
			for range 1 + r.IntN(2) {
				cs = append(cs, comp())
			}
			alts = append(alts, strings.Join(cs, " "))
		}
		out[i] = strings.Join(alts, pick(" || ", "||", "  ||  "))
	}
	return out
}

type oracle struct {
	Versions []*string `json:"versions"`
	Compare  [][]int   `json:"compare"`
	Ranges   []*oRange `json:"ranges"`
}

type oRange struct {
	Desugared string  `json:"desugared"`
	Min       *string `json:"min"`
	Contains  []bool  `json:"contains"`
}

func askNode(t *testing.T, vs, rs []string) oracle {
	t.Helper()
	var o oracle
	testenv.AskNode(t, nil, map[string][]string{"versions": vs, "ranges": rs}, &o, filepath.Join("testdata", "oracle.cjs"), testenv.NodeModules(t))
	return o
}

// TestAgreesWithNodeSemver compares every verdict with the real node-semver 7: which strings
// are versions, how versions sort, how each range desugars, which versions it admits and its
// lowest version.
func TestAgreesWithNodeSemver(t *testing.T) {
	rs := append(append([]string(nil), ranges...), randomRanges(1000)...)
	want := askNode(t, versions, rs)

	parsed := make([]*Version, len(versions))
	for i, s := range versions {
		v, err := Parse(s)
		nodeOK := want.Versions[i] != nil
		// npm's parser also takes one leading "v" and surrounding white space; a published
		// version never has them, and Parse refuses them.
		strictOK := nodeOK && !strings.HasPrefix(s, "v") && strings.TrimSpace(s) == s
		if (err == nil) != strictOK {
			t.Errorf("Parse(%q) error = %v; node-semver reads it as %v", s, err, deref(want.Versions[i]))
			continue
		}
		if err == nil {
			parsed[i] = v
			if v.String() != *want.Versions[i] {
				t.Errorf("Parse(%q).String() = %q, node-semver %q", s, v.String(), *want.Versions[i])
			}
		}
	}
	for i, a := range parsed {
		for j, b := range parsed {
			if a != nil && b != nil && a.Compare(b) != want.Compare[i][j] {
				t.Errorf("compare(%s, %s) = %d, node-semver %d", versions[i], versions[j], a.Compare(b), want.Compare[i][j])
			}
		}
	}
	checked := 0
	for k, s := range rs {
		r, err := ParseRange(s)
		w := want.Ranges[k]
		if (err == nil) != (w != nil) {
			t.Errorf("ParseRange(%q) error = %v; node-semver valid = %v", s, err, w != nil)
			continue
		}
		if err != nil {
			continue
		}
		if got := r.Desugared(); got != w.Desugared {
			t.Errorf("ParseRange(%q) = %q, node-semver %q", s, got, w.Desugared)
		}
		min := r.MinVersion()
		if (min == nil) != (w.Min == nil) || (min != nil && min.String() != *w.Min) {
			t.Errorf("MinVersion(%q) = %v, node-semver %v", s, min, deref(w.Min))
		}
		for i, v := range parsed {
			if v == nil {
				continue
			}
			checked++
			if got := r.Contains(v); got != w.Contains[i] {
				t.Errorf("%q contains %s = %v, node-semver %v", s, versions[i], got, w.Contains[i])
			}
		}
	}
	if checked < 20000 {
		t.Fatalf("only %d range/version pairs were compared", checked)
	}
	t.Logf("%d ranges, %d versions, %d range/version verdicts agree with node-semver", len(rs), len(versions), checked)
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// TestFastListAgrees requires the hand-written path for simple ranges to give what the
// expressions give.
func TestFastListAgrees(t *testing.T) {
	fast := 0
	for _, s := range append(append([]string(nil), ranges...), randomRanges(1000)...) {
		for _, alt := range strings.Split(s, "||") {
			alt = jsTrim(alt)
			got, ok := fastList(alt)
			if !ok {
				continue
			}
			fast++
			if want := desugar(alt); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("fastList(%q) = %q, the expressions give %q", alt, got, want)
			}
		}
	}
	if fast < 50 {
		t.Fatalf("only %d alternatives took the fast path", fast)
	}
}

func TestBounded(t *testing.T) {
	for s, want := range map[string]bool{
		"*": false, ">=0.9.12": false, ">1": false, "^0.9.12": true, "~1.2": true, "1.2.3": true, "1.x": true,
		">=1 <2": true, "<0.0.0-0": true, "^1 || >=3": false, "^1 || ~2": true, "1.2.3 - 2": true, "1.2.3 - *": false,
	} {
		r, err := ParseRange(s)
		if err != nil {
			t.Fatalf("ParseRange(%q): %v", s, err)
		}
		if r.Bounded() != want {
			t.Errorf("Bounded(%q) = %v, want %v", s, !want, want)
		}
	}
}

func TestParseLoose(t *testing.T) {
	for in, want := range map[string]string{"1": "1.0.0", "1.2": "1.2.0", "v1.0": "1.0.0", "=1.2.3": "1.2.3", "01.02.3": "1.2.3", "1.2-rc.1": "1.2.0-rc.1"} {
		v, err := ParseLoose(in)
		if err != nil || v.String() != want {
			t.Errorf("ParseLoose(%q) = %v, %v; want %s", in, v, err, want)
		}
	}
	for _, in := range []string{"", "x", "1.2.3.4", "a.b", "1..2", "1.2.3-"} {
		if v, err := ParseLoose(in); err == nil {
			t.Errorf("ParseLoose(%q) = %v, want an error", in, v)
		}
	}
}

func FuzzParseRange(f *testing.F) {
	for _, s := range ranges {
		f.Add(s, "1.2.3-beta.1")
	}
	f.Fuzz(func(t *testing.T, s, ver string) {
		r, err := ParseRange(s)
		if err != nil {
			return
		}
		again, err := ParseRange(r.Desugared())
		if err != nil {
			t.Fatalf("the desugared form %q of %q does not parse: %v", r.Desugared(), s, err)
		}
		if v, err := Parse(ver); err == nil && r.Contains(v) != again.Contains(v) {
			t.Fatalf("%q and its desugared form %q disagree on %s", s, r.Desugared(), ver)
		}
		for _, alt := range strings.Split(s, "||") {
			if got, ok := fastList(jsTrim(alt)); ok && strings.Join(got, " ") != strings.Join(desugar(jsTrim(alt)), " ") {
				t.Fatalf("fastList(%q) = %q, the expressions give %q", alt, got, desugar(jsTrim(alt)))
			}
		}
		if min := r.MinVersion(); min != nil && !r.Contains(min) {
			t.Fatalf("MinVersion(%q) = %s, which it does not contain", s, min)
		}
		r.Bounded()
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range versions {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(v.String())
		if err != nil || back.Compare(v) != 0 {
			t.Fatalf("%q formats as %q, which reads back as %v, %v", s, v.String(), back, err)
		}
		if len(v.Build) == 0 && v.String() != s {
			t.Fatalf("%q formats as %q", s, v.String())
		}
	})
}
