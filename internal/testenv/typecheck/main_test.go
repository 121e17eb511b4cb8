package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

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
	var out, errOut bytes.Buffer
	if code := run([]string{"-C", dir, "-targets", "windows/amd64,linux/amd64", "."}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{
		`(?m)^windows/amd64: ` + regexp.QuoteMeta(dir) + `/main\.go:6:2: declared and not used: unused$`,
		`(?m)^windows/amd64: ` + regexp.QuoteMeta(dir) + `/main\.go:7:14: undefined: syscall\.CLONE_NEWUSER$`,
		`(?m)^windows/amd64: [1-9][0-9]* packages, 2 errors$`,
		`(?m)^linux/amd64: ` + regexp.QuoteMeta(dir) + `/main\.go:6:2: declared and not used: unused$`,
		`(?m)^linux/amd64: [1-9][0-9]* packages, 1 error$`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("the output does not match %s:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "linux/amd64: "+dir+"/main.go:7") {
		t.Errorf("the Linux check reported the Linux-only call:\n%s", out.String())
	}

	testenv.WriteFiles(t, dir, map[string]string{"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(0) }\n"})
	out.Reset()
	if code := run([]string{"-C", dir, "-targets", "windows/amd64,darwin/arm64", "-files", "example.com/linuxonly", "."}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d for a module that builds everywhere\n%s", code, out.String())
	}
	for _, want := range []string{"windows/amd64: example.com/linuxonly: main.go\n", "darwin/arm64: example.com/linuxonly: main.go\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
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
