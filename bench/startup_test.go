package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/testenv"
)

// startupBudget is how long `plaios --help` and a dry-run create may take to start and finish.
const startupBudget = 30 * time.Millisecond

var (
	startupOnce sync.Once
	startupBin  string
	startupErr  error
	startupOut  []byte
)

// startupBinary builds plaios once for the startup benchmarks.
func startupBinary(b *testing.B) string {
	b.Helper()
	startupOnce.Do(func() {
		dir, err := os.MkdirTemp("", "plaios-startup-")
		if err != nil {
			startupErr = err
			return
		}
		startupBin = filepath.Join(dir, "plaios")
		cmd := exec.Command("go", "build", "-o", startupBin, ".")
		cmd.Dir = testenv.RepoRoot(b)
		// Built as releases are (goreleaser sets CGO_ENABLED=0): a static binary starts
		// about 4 ms faster than one that loads libc.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		startupOut, startupErr = cmd.CombinedOutput()
	})
	if startupErr != nil {
		b.Fatalf("go build: %v\n%s", startupErr, startupOut)
	}
	return startupBin
}

// BenchmarkStartup times whole processes, as a shell runs them: /bin/true (the floor of
// fork and exec on this machine), `plaios --help`, and `plaios create action weather
// --dry-run --no-install` in an empty folder. Each reports ms/op; the plaios ones also report
// ms-over-true/op, their cost above the floor.
func BenchmarkStartup(b *testing.B) {
	bin := startupBinary(b)
	work := b.TempDir()
	floor := map[string]float64{}
	for _, c := range []struct {
		name string
		argv []string
	}{
		{"true", []string{"/bin/true"}},
		{"help", []string{bin, "--help"}},
		{"create-dry-run", []string{bin, "create", "action", "weather", "--dry-run", "--no-install"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			// One run outside the timer, so that the page cache holds the binary.
			if out, err := startupExec(work, c.argv); err != nil {
				b.Fatalf("%v: %v\n%s", c.argv, err, out)
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if out, err := startupExec(work, c.argv); err != nil {
					b.Fatalf("%v: %v\n%s", c.argv, err, out)
				}
			}
			ms := float64(time.Since(start).Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(ms, "ms/op")
			if c.name == "true" {
				floor["true"] = ms
				return
			}
			b.ReportMetric(ms-floor["true"], "ms-over-true/op")
			if ms > float64(startupBudget.Milliseconds()) {
				b.Logf("%s took %.1f ms, over the %v budget (a busy machine inflates this; compare with true: %.1f ms)", c.name, ms, startupBudget, floor["true"])
			}
		})
	}
	if _, err := os.Stat(filepath.Join(work, "packages")); err == nil {
		b.Errorf("the dry run wrote packages/")
	}
}

func startupExec(dir string, argv []string) ([]byte, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PLAIOS_CONFIG=")
	return cmd.CombinedOutput()
}
