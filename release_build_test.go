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

// TestReleaseTargetsBuild builds plaios as .goreleaser.yaml does (CGO_ENABLED=0, a version
// stamped into cmd.Version) for the operating systems other than the one running the tests,
// so that code which only builds on Linux cannot slip into a release.
func TestReleaseTargetsBuild(t *testing.T) {
	testenv.SkipShort(t, "cross-compiles plaios")
	goBin := testenv.LookPath(t, "go")
	for _, target := range []struct{ goos, goarch string }{{"windows", "amd64"}, {"darwin", "arm64"}} {
		t.Run(target.goos+"_"+target.goarch, func(t *testing.T) {
			c := exec.Command(goBin, "build", "-trimpath", "-ldflags", "-X github.com/plaios/plaios/cmd.Version=0.0.0-test", "-o", os.DevNull, ".")
			c.Env = testenv.ChildEnv(t, append(os.Environ(), "CGO_ENABLED=0", "GOOS="+target.goos, "GOARCH="+target.goarch))
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("GOOS=%s GOARCH=%s go build: %v\n%s", target.goos, target.goarch, err, out)
			}
		})
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
