package main

import (
	"os"
	"os/exec"
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
			c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+target.goos, "GOARCH="+target.goarch)
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("GOOS=%s GOARCH=%s go build: %v\n%s", target.goos, target.goarch, err, out)
			}
		})
	}
}
