package jsregexp

import "testing"

// FuzzRegexp: the engine never panics, refuses only with a *SyntaxError, and its fast paths
// (anchored literals, anchored starts) answer as the general matcher does.
func FuzzRegexp(f *testing.F) {
	for _, s := range []string{`^\d{3}-\d{4}$`, `(?<=a)b`, `(a+)+$`, `[\p{L}\d]`, `\k<n>(?<n>x)`, `a{2,1}`, `[z-a]`, `(?=a)*`, `^abc$`, `^(?:a|^b)c`} {
		f.Add(s, "aaa-1234", "u")
		f.Add(s, "x", "")
		f.Add(s, "ABC", "i")
	}
	f.Fuzz(func(t *testing.T, pattern, input, flags string) {
		re, err := Compile(pattern, flags)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		got := re.MatchString(input)
		slow := *re
		slow.hasLit, slow.anchored = false, false
		if want := slow.MatchString(input); got != want {
			t.Fatalf("/%s/%s on %q: fast path %v, matcher %v", pattern, flags, input, got, want)
		}
	})
}
