package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/plaios/plaios/cmd"
	"github.com/plaios/plaios/internal/testenv"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"plaios": func() { os.Exit(cmd.Main(os.Args[1:], cmd.System())) },
	})
}

// TestScripts runs every testdata/script/*.txtar against the real binary.
func TestScripts(t *testing.T) {
	root := testenv.RepoRoot(t) // and the scripts' inputs, testdata/corpus among them, for the test cache
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// plaios is this race-built test binary: no second's sleep at each exit (testenv
			// gave this process the quiet GORACE, which the scripts' environment does not inherit).
			env.Setenv("GORACE", os.Getenv("GORACE"))
			env.Setenv("NO_COLOR", "")
			env.Setenv("GITHUB_ACTIONS", "")
			env.Setenv("GITHUB_EVENT_PATH", "")
			env.Setenv("PLAIOS_ROOT", root)
			env.Setenv("CORPUS", filepath.Join(root, "testdata", "corpus"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
		},
	})
}

// cmdExits runs a command and checks its exact exit code: `exits 2 plaios validate --frob`.
// Its stdout and stderr are then checked with stdout/stderr as after exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}
