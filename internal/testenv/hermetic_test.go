package testenv

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestQuietRace: a child's environment tells a race-built plaios not to sleep at exit, keeping
// the race options already given (one GORACE, the last) and an exit sleep set on purpose.
func TestQuietRace(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"PATH=/bin"}, "GORACE=atexit_sleep_ms=0"},
		{[]string{"GORACE=halt_on_error=1", "PATH=/bin"}, "GORACE=halt_on_error=1 atexit_sleep_ms=0"},
		{[]string{"GORACE=atexit_sleep_ms=500"}, "GORACE=atexit_sleep_ms=500"},
	} {
		got := QuietRace(slices.Clone(c.in))
		var races []string
		for _, kv := range got {
			if strings.HasPrefix(kv, "GORACE=") {
				races = append(races, kv)
			}
		}
		if len(races) != 1 || races[0] != c.want {
			t.Errorf("QuietRace(%q) gave %q, want the one %q", c.in, races, c.want)
		}
		if !slices.Contains(got, "PATH=/bin") && slices.Contains(c.in, "PATH=/bin") {
			t.Errorf("QuietRace(%q) lost PATH: %q", c.in, got)
		}
	}
	if env := ChildEnv(t, []string{"PATH=/bin"}); !slices.Contains(env, "GORACE=atexit_sleep_ms=0") {
		t.Errorf("ChildEnv does not quiet a race-built child: %q", env)
	}
	// The test binary's own environment, which the sandbox's init inherits GORACE from.
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms=") {
		t.Errorf("the test binary's GORACE is %q: a contained child's init would sleep at exit", g)
	}
}
