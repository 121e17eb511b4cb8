package bench

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/sandbox"
	"github.com/plaios/plaios/internal/testenv"
)

// BenchmarkSandboxChild measures what containment costs one child: node starting and exiting
// in the sandbox (the init, its namespaces, the new root, the watcher) against the same node
// started plainly, in the same run, with the same environment: the one the sandbox gives a
// child whose caller names none (sandbox.BaseEnv). The plain node must not inherit more: a
// variable such as NODE_EXTRA_CA_CERTS costs node tens of milliseconds at start, and would
// hide the containment's cost behind the plain child's.
func BenchmarkSandboxChild(b *testing.B) {
	node := testenv.LookPath(b, "node")
	sb, err := sandbox.New(context.Background(), sandbox.Config{Mode: sandbox.Auto, Node: node})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	var plain, contained time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		cmd := exec.Command(node, "-e", "0")
		cmd.Env = sandbox.BaseEnv(os.Getenv)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("node: %v %s", err, out)
		}
		plain += time.Since(start)
		start = time.Now()
		res, err := sb.Run(context.Background(), sandbox.Spec{Hooks: true, Args: []string{"-e", "0"}})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("contained node: %v %+v", err, res)
		}
		contained += time.Since(start)
	}
	n := time.Duration(b.N)
	b.ReportMetric(float64((plain/n).Microseconds())/1000, "plain-ms")
	b.ReportMetric(float64((contained/n).Microseconds())/1000, "contained-ms")
	b.ReportMetric(float64(((contained-plain)/n).Microseconds())/1000, "cost-ms")
	b.Logf("node -e 0: plain %v, contained with hooks %v (+%v per child)", plain/n, contained/n, (contained-plain)/n)
}
