package testenv

import (
	"os"
	"testing"
)

// ChildEnv returns env (nil: CleanEnv), quiet at a race-built child's exit (QuietRace), with
// TMPDIR, TMP and TEMP pointing at a new folder of the test's own (under t.TempDir), so that what a child process — npm, node, plaios, tsc —
// writes to its temporary folder stays with the test, cannot be mistaken for another test's,
// and goes when the test ends. Run does this for every command it starts; tests that build an
// exec.Cmd themselves use it for the command's Env.
func ChildEnv(t testing.TB, env []string) []string {
	t.Helper()
	trackInputs(t)
	if env == nil {
		env = CleanEnv()
	}
	tmp := t.TempDir()
	out := append(QuietRace(append([]string(nil), env...)), "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
	for _, k := range []string{"TMPDIR", "TMP", "TEMP"} {
		out = withoutKey(out, k, 1)
	}
	return out
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
