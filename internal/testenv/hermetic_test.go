package testenv

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestCapCache: the shared compile cache is emptied once the files under it pass the limit,
// measured at most once per interval, and kept below it; a folder left aside by an emptying
// cut short goes at the next measure.
func TestCapCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	write := func(name string, n int) {
		t.Helper()
		WriteFiles(t, dir, map[string]string{name: strings.Repeat("x", n)})
	}
	files := func(d string) []string {
		t.Helper()
		var out []string
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				out = append(out, p)
			}
			return err
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return out
	}
	var measured time.Time // when capCache last measured the cache
	step := func(now time.Time, wantEmptied bool) {
		t.Helper()
		emptied, err := capCache(dir, 1000, time.Hour, now)
		if err != nil || emptied != wantEmptied {
			t.Fatalf("capCache at %s: emptied %v (%v), want %v", now.Format(time.Kitchen), emptied, err, wantEmptied)
		}
		if now.Sub(measured) >= time.Hour {
			measured = now
		}
		if st, err := os.Stat(dir + ".measured"); err != nil || !st.ModTime().Equal(measured) {
			t.Fatalf("after capCache at %s the stamp says %v (%v), want %s", now.Format(time.Kitchen), st.ModTime(), err, measured.Format(time.Kitchen))
		}
	}
	start := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)

	write("v24/a", 600)
	write("openclaw/2026.9.6/1-2/v24/b", 600)
	step(start, true)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() || len(files(dir)) != 0 {
		t.Fatalf("the cache after emptying: %v, files %q", err, files(dir))
	}
	if old, _ := filepath.Glob(dir + ".old-*"); len(old) != 0 {
		t.Fatalf("left aside and not removed: %q", old)
	}

	// Over the limit again, but measured 30 minutes ago: kept until the hour is up.
	write("v24/c", 1200)
	step(start.Add(30*time.Minute), false)
	if len(files(dir)) != 1 {
		t.Fatalf("measured within the hour: %q", files(dir))
	}
	step(start.Add(61*time.Minute), true)

	// Under the limit: kept, however often measured.
	write("v24/d", 900)
	step(start.Add(3*time.Hour), false)
	step(start.Add(5*time.Hour), false)
	if got := files(dir); len(got) != 1 {
		t.Fatalf("a cache under the limit lost files: %q", got)
	}

	// An emptying cut short left a folder aside: the next measure removes it, not the cache.
	WriteFiles(t, dir+".old-1", map[string]string{"v24/e": "x"})
	step(start.Add(7*time.Hour), false)
	if _, err := os.Stat(dir + ".old-1"); !errors.Is(err, fs.ErrNotExist) || len(files(dir)) != 1 {
		t.Fatalf("the folder left aside: %v; the cache %q", err, files(dir))
	}

	// What Main calls: the test cache's node-compile-cache, measured (a new test cache here).
	t.Setenv("PLAIOS_TEST_CACHE", filepath.Join(t.TempDir(), "test-cache"))
	if err := capNodeCompileCache(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("PLAIOS_TEST_CACHE"), "node-compile-cache.measured")); err != nil {
		t.Errorf("capNodeCompileCache did not measure the test cache's compile cache: %v", err)
	}
}

// TestWithHome: a child given WithHome keeps its files in the test's home even when the user's
// environment names XDG folders elsewhere: each variable once, and the real pnpm puts its store
// under the home.
func TestWithHome(t *testing.T) {
	for _, k := range homeKeys {
		t.Setenv(k, "/nowhere/"+k)
	}
	home := t.TempDir()
	env := WithHome(CleanEnv(), home)
	for _, k := range homeKeys {
		var got []string
		for _, kv := range env {
			if strings.HasPrefix(kv, k+"=") {
				got = append(got, kv)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], k+"="+home) {
			t.Errorf("WithHome gives %q, want one %s under %s", got, k, home)
		}
	}
	SkipShort(t, "installs the pinned pnpm")
	store := strings.TrimSpace(Run(t, t.TempDir(), env, PNPM(t), "store", "path"))
	if want := filepath.Join(home, ".local", "share", "pnpm", "store") + string(filepath.Separator); !strings.HasPrefix(store, want) {
		t.Errorf("pnpm's store is %s, want a folder of %s", store, want)
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
