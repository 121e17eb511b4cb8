package minimatch

import (
	"regexp"
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

// FuzzFastShapes checks the hand-written shape tests against minimatch's own expressions.
func FuzzFastShapes(f *testing.F) {
	for _, s := range []string{"*", "**", "*.js", "*.*", ".*", "??", "??.md", "?a*", "*(a)", ".", "", "*.", "*a+b", "*\n"} {
		f.Add(s)
	}
	stars := regexp.MustCompile(`^\*+$`)
	starExt := regexp.MustCompile(`^\*+([^+@!?*\[(]*)$`)
	qm := regexp.MustCompile(`^\?+([^+@!?*\[(]*)?$`)
	starDotStar := regexp.MustCompile(`^\*+\.\*+$`)
	dotStar := regexp.MustCompile(`^\.\*+$`)
	f.Fuzz(func(t *testing.T, p string) {
		if isStars(p) != stars.MatchString(p) || isStarDotStar(p) != starDotStar.MatchString(p) || isDotStar(p) != dotStar.MatchString(p) {
			t.Fatalf("shape tests disagree on %q", p)
		}
		if ext, ok := starDotExt(p); ok != starExt.MatchString(p) || (ok && ext != starExt.FindStringSubmatch(p)[1]) {
			t.Fatalf("starDotExt(%q) = %q, %v", p, ext, ok)
		}
		if ext, ok := qmarks(p); ok != qm.MatchString(p) || (ok && ext != qm.FindStringSubmatch(p)[1]) {
			t.Fatalf("qmarks(%q) = %q, %v", p, ext, ok)
		}
	})
}
