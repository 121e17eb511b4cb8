package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// releaseTargets are .goreleaser.yaml's targets other than linux/amd64 (the machine's, which
// every other test builds): each operating system, and the other architecture of Linux, whose
// system-call structures differ from amd64's.
var releaseTargets = "windows/amd64,darwin/arm64,linux/arm64"

// TestReleaseTargetsTypeCheck type-checks plaios from source, with everything it imports, for
// the release targets other than this machine's (CGO_ENABLED=0, as .goreleaser.yaml builds
// them), so that code which only builds on Linux cannot slip into a release. It runs
// internal/testenv/typecheck, built without -race: the type checker reports what the
// compiler's front end would, and it takes seconds where cross-compiling the two targets this
// test used to build took 250 s of CPU on an empty build cache (a fresh machine's). The
// release job's goreleaser still compiles every target before anything is published.
func TestReleaseTargetsTypeCheck(t *testing.T) {
	testenv.SkipShort(t, "type-checks plaios for the other release targets")
	root := testenv.RepoRoot(t)
	tool := testenv.GoBuild(t, "./internal/testenv/typecheck")
	out, err := testenv.RunErr("", testenv.ChildEnv(t, os.Environ()), tool, "-C", root, "-targets", releaseTargets, "-files", "github.com/plaios/plaios/internal/sandbox", ".")
	if err != nil {
		t.Fatalf("plaios does not type-check for every release target: %v\n%s", err, out)
	}
	// Each target was checked as itself: the sandbox compiles its Linux files only for Linux.
	for _, want := range []string{
		`(?m)^windows/amd64: [0-9]{3,} packages, 0 errors$`,
		`(?m)^darwin/arm64: [0-9]{3,} packages, 0 errors$`,
		`(?m)^linux/arm64: [0-9]{3,} packages, 0 errors$`,
		`(?m)^windows/amd64: github.com/plaios/plaios/internal/sandbox: .*\bcontain_other\.go\b.*\bns_windows\.go\b`,
		`(?m)^darwin/arm64: github.com/plaios/plaios/internal/sandbox: .*\bcontain_other\.go\b.*\bns_unix\.go\b`,
		`(?m)^linux/arm64: github.com/plaios/plaios/internal/sandbox: .*\bcontain_linux\.go\b`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("typecheck's output does not match %s:\n%s", want, out)
		}
	}
}

// TestVersionOfCheckoutBuild: a plaios built from a git checkout without a stamp reports the
// version Go makes from the commit (with +dirty when the tree has changes), never "dev". The
// build is a one-file main module in a temporary git repository that runs cmd.Main with this
// checkout as its replacement, so that only that file compiles and the binary links.
func TestVersionOfCheckoutBuild(t *testing.T) {
	testenv.SkipShort(t, "builds plaios")
	goBin := testenv.LookPath(t, "go")
	root := testenv.RepoRoot(t)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// The build module requires what plaios requires, at the same versions, so that Go reads
	// the same pruned module graph as for plaios itself and needs no go.mod the module cache
	// lacks (GOPROXY=off: a fresh machine's cache holds only what building plaios fetched).
	mod := regexp.MustCompile(`(?m)^module \S+$`).ReplaceAll(gomod, []byte("module example.com/plaiosbuild"))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"go.mod":  string(mod) + "\nrequire github.com/plaios/plaios v0.0.0\n\nreplace github.com/plaios/plaios => " + root + "\n",
		"go.sum":  string(sum),
		"main.go": "package main\n\nimport (\n\t\"os\"\n\n\t\"github.com/plaios/plaios/cmd\"\n)\n\nfunc main() { os.Exit(cmd.Main(os.Args[1:], cmd.System())) }\n",
	})
	bin := filepath.Join(t.TempDir(), "plaios")
	build := func() string {
		t.Helper()
		// -buildvcs=true as `go build` does by default in a checkout (GOFLAGS may turn it off);
		// -race when this test runs with it (make test), so that the plaios packages come from
		// the test run's build cache.
		args := []string{"build", "-buildvcs=true", "-o", bin}
		if raceEnabled {
			args = append(args, "-race")
		}
		c := exec.Command(goBin, append(args, ".")...)
		c.Dir = dir
		c.Env = testenv.ChildEnv(t, append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local"))
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	testenv.GitInit(t, dir)
	build() // settles go.mod and go.sum
	testenv.Git(t, dir, "add", "-A")
	testenv.Git(t, dir, "commit", "-q", "-m", "build")
	rev := testenv.Git(t, dir, "rev-parse", "HEAD")[:12]
	clean := regexp.MustCompile(`^plaios version v0\.0\.0-\d{14}-` + rev + `$`)
	if got := build(); !clean.MatchString(got) {
		t.Fatalf("--version of a clean checkout build at %s: %q", rev, got)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nimport (\n\t\"os\"\n\n\t\"github.com/plaios/plaios/cmd\"\n)\n\n// changed\nfunc main() { os.Exit(cmd.Main(os.Args[1:], cmd.System())) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := build(); !strings.HasSuffix(got, "-"+rev+"+dirty") {
		t.Fatalf("--version of a changed checkout build at %s: %q", rev, got)
	}
}
