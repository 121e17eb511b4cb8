package testenv

import (
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
