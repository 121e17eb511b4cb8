package testenv

import (
	"os"
	"path/filepath"
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

// TestChildEnvSharesNodeCompileCache: a child's Node 24 keeps the code it compiles in the
// test cache's nodeCompileCache, not in the test's own TMPDIR, whatever NODE_COMPILE_CACHE the
// environment given held; the machine's Node 20 is not affected.
func TestChildEnvSharesNodeCompileCache(t *testing.T) {
	env := ChildEnv(t, []string{"PATH=/bin", "NODE_COMPILE_CACHE=/nowhere"})
	var got []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "NODE_COMPILE_CACHE=") {
			got = append(got, kv)
		}
	}
	want := nodeCompileCache(t)
	if len(got) != 1 || got[0] != "NODE_COMPILE_CACHE="+want {
		t.Fatalf("ChildEnv gives %q, want the one NODE_COMPILE_CACHE=%s", got, want)
	}
	SkipShort(t, "starts Node 24")
	node := filepath.Join(Node24(t), "node")
	if dir := strings.TrimSpace(Run(t, t.TempDir(), env, node, "-p", "require('node:module').getCompileCacheDir()")); !strings.HasPrefix(dir, want+string(filepath.Separator)) {
		t.Errorf("Node 24 keeps its compile cache in %q, want a folder of %s", dir, want)
	}
}

// TestChildEnvKeepsNPMOutOfHome: npm started with a child's environment keeps its cache, and
// the debug log it writes on every run, in the test cache's npm-cache, not in the user's
// ~/.npm; a cache the test gives npm of its own, after, is the one npm uses.
func TestChildEnvKeepsNPMOutOfHome(t *testing.T) {
	npm := LookPath(t, "npm")
	shared := CacheDir(t, "npm-cache")
	own := filepath.Join(t.TempDir(), "npm-cache")
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, shared},
		{append(CleanEnv(), "npm_config_cache="+own), own},
	} {
		if got := strings.TrimSpace(Run(t, t.TempDir(), c.env, npm, "config", "get", "cache")); got != c.want {
			t.Errorf("npm's cache is %q, want %q", got, c.want)
		}
	}
}
