package minimatch

import (
	"strings"
	"testing"
)

// FuzzMinimatch compiles arbitrary ignore lines and matches arbitrary paths with them, in the
// three option sets the packlist uses: no input may panic or hang.
func FuzzMinimatch(f *testing.F) {
	for i, p := range trickyPatterns {
		f.Add(p, trickyPaths[i%len(trickyPaths)], i%2 == 0)
	}
	f.Add("{1..300}{a..z}", "x", false)
	f.Add("+(+(+(+(a|b)|c)|d)|e)!(x)@(y)", "aaaa", true)
	f.Add("**/**/**/**/a/**/b/**/c/**", "a/a/a/a/a/a/a/b/b/b/c/d", false)
	f.Add("[[:alpha:][:digit:]-z]*([[:space:]])", "Ab 1", true)
	f.Fuzz(func(t *testing.T, pattern, path string, partial bool) {
		if len(pattern) > 512 || len(path) > 512 {
			return
		}
		for _, o := range []Options{{Dot: true, NoCase: true, MatchBase: true}, {}, {Dot: true}} {
			m, err := New(pattern, o)
			if err != nil {
				if !strings.Contains(err.Error(), "regular expression") && !strings.Contains(err.Error(), "too long") {
					t.Fatalf("New(%q): unexpected kind of error %v", pattern, err)
				}
				continue
			}
			m.Match(path, partial)
			m.Match("/"+path, !partial)
		}
		braceExpand(pattern)
		unescape(pattern)
	})
}
