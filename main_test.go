package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/plaios/plaios/cmd"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"plaios": func() { os.Exit(cmd.Main(os.Args[1:], cmd.System())) },
	})
}

// TestScripts runs every testdata/script/*.txtar against the real binary.
func TestScripts(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "")
			env.Setenv("GITHUB_ACTIONS", "")
			env.Setenv("GITHUB_EVENT_PATH", "")
			env.Setenv("PLAIOS_ROOT", root)
			env.Setenv("CORPUS", filepath.Join(root, "testdata", "corpus"))
			return nil
		},
	})
}
