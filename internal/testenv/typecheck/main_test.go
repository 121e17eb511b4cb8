package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// tool builds the command without -race (testenv.GoBuild, as the root package's
// TestReleaseTargetsTypeCheck does: the same build, from the build cache) and returns a
// function that runs it: type-checking the standard library for a target under the race
// detector took 15–19 s of CPU in this package's test binary, against about 2 s for the tool
// built plainly, and whether the checker finds the errors does not depend on how it was built.
func tool(t *testing.T) func(args ...string) (string, int) {
	t.Helper()
	bin := testenv.GoBuild(t, "./internal/testenv/typecheck")
	env := testenv.ChildEnv(t, os.Environ())
	return func(args ...string) (string, int) {
		t.Helper()
		out, err := testenv.RunErr("", env, bin, args...)
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("typecheck %s: %v", strings.Join(args, " "), err)
		}
		if ee != nil {
			return out, ee.ExitCode()
		}
		return out, 0
	}
}

// TestFindsWhatOnlyBuildsOnLinux: code that only builds on Linux fails the check for Windows
// and passes it for Linux; an error every target has is reported for each; a module that
// builds everywhere exits 0. (The root package's TestReleaseTargetsTypeCheck runs the command
// on plaios itself.)
func TestFindsWhatOnlyBuildsOnLinux(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"go.mod": "module example.com/linuxonly\n\ngo 1.26\n",
		"main.go": `package main

import "syscall"

func main() {
	unused := 1
	_ = syscall.CLONE_NEWUSER
}
`,
	})
	typecheck := tool(t)
	out, code := typecheck("-C", dir, "-targets", "windows/amd64,linux/amd64", ".")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		`(?m)^windows/amd64: ` + regexp.QuoteMeta(dir) + `/main\.go:6:2: declared and not used: unused$`,
		`(?m)^windows/amd64: ` + regexp.QuoteMeta(dir) + `/main\.go:7:14: undefined: syscall\.CLONE_NEWUSER$`,
		`(?m)^windows/amd64: [1-9][0-9]* packages, 2 errors$`,
		`(?m)^linux/amd64: ` + regexp.QuoteMeta(dir) + `/main\.go:6:2: declared and not used: unused$`,
		`(?m)^linux/amd64: [1-9][0-9]* packages, 1 error$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("the output does not match %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "linux/amd64: "+dir+"/main.go:7") {
		t.Errorf("the Linux check reported the Linux-only call:\n%s", out)
	}

	testenv.WriteFiles(t, dir, map[string]string{"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(0) }\n"})
	if out, code = typecheck("-C", dir, "-targets", "windows/amd64,darwin/arm64", "-files", "example.com/linuxonly", "."); code != 0 {
		t.Fatalf("exit %d for a module that builds everywhere\n%s", code, out)
	}
	for _, want := range []string{"windows/amd64: example.com/linuxonly: main.go\n", "darwin/arm64: example.com/linuxonly: main.go\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// TestUsage: a target that is not GOOS/GOARCH, or no package, is refused with exit 2.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"-targets", "linux", "."}, {"-targets", "linux/amd64"}, {"-frob"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 || errOut.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}
