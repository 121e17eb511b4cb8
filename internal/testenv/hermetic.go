package testenv

import (
	"os"
	"strings"
	"testing"
)

// ChildEnv returns env (nil: CleanEnv), quiet at a race-built child's exit (QuietRace), with
// TMPDIR, TMP and TEMP pointing at a new folder of the test's own (under t.TempDir), so that
// what a child process — npm, node, plaios, tsc — writes to its temporary folder stays with
// the test, cannot be mistaken for another test's, and goes when the test ends, and with
// NODE_COMPILE_CACHE at the test cache's nodeCompileCache. Run does this for every command it
// starts; tests that build an exec.Cmd themselves use it for the command's Env.
func ChildEnv(t testing.TB, env []string) []string {
	t.Helper()
	trackInputs(t)
	if env == nil {
		env = CleanEnv()
	}
	tmp := t.TempDir()
	out := append(QuietRace(append([]string(nil), env...)), "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp, "NODE_COMPILE_CACHE="+nodeCompileCache(t))
	for _, k := range []string{"TMPDIR", "TMP", "TEMP", "NODE_COMPILE_CACHE"} {
		out = withoutKey(out, k, 1)
	}
	return out
}

// nodeCompileCache is the folder of the test cache where a child's Node keeps the V8 code of
// the modules it compiles (NODE_COMPILE_CACHE; Node ≥ 22.1, which the tests' Node 24 is: the
// openclaw and Pi CLIs, and npm, tsc and node in the first run's OpenClaw workspaces). Without
// it each of them kept that code under its TMPDIR, which ChildEnv makes new for every command:
// each start compiled its modules again (openclaw's ~11 MB; `openclaw plugins validate` 3.3 s
// of CPU against 2.5 s with the shared cache). Node checks each entry against its source's
// hash and its own version and writes an entry whole, so the tests share it safely and a stale
// entry is compiled again, never used. Node 20 does not read it.
func nodeCompileCache(t testing.TB) string {
	t.Helper()
	return CacheDir(t, "node-compile-cache")
}

// SetTempDir points this test process's TMPDIR (what os.TempDir and os.MkdirTemp("", …) use,
// and what every child that inherits the environment gets) at a new folder of the test's own
// for the rest of the test, and returns it, so that code under test that makes temporary
// folders in-process makes them there and the test can check it leaves none behind. It uses
// t.Setenv, so the test cannot be parallel.
func SetTempDir(t testing.TB) string {
	t.Helper()
	tmp := t.TempDir()
	for _, k := range []string{"TMPDIR", "TMP", "TEMP"} {
		t.Setenv(k, tmp)
	}
	if os.TempDir() != tmp {
		t.Fatalf("TMPDIR is %s after setting it to %s", os.TempDir(), tmp)
	}
	return tmp
}

// SetEnv gives this test process, for the rest of the test, the environment env (KEY=VALUE,
// the last of a key winning) by t.Setenv of the variables whose value differs from the
// process's. Only those: t.Setenv reads a variable before it sets it, and the go command keys
// a package's cached result on every variable its tests read, so setting a whole environment
// would run the package again whenever any variable of the shell differs (_, OLDPWD, SHLVL,
// MAKEFLAGS…), with nothing else changed. Like t.Setenv, the test cannot be parallel.
func SetEnv(t testing.TB, env []string) {
	t.Helper()
	now := map[string]string{}
	for _, kv := range os.Environ() { // os.Environ is not recorded; os.Getenv would be
		k, v, _ := strings.Cut(kv, "=")
		now[k] = v
	}
	want := map[string]string{}
	var keys []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
		want[k] = v
	}
	for _, k := range keys {
		if cur, ok := now[k]; !ok || cur != want[k] {
			t.Setenv(k, want[k])
		}
	}
}
