package sandbox

import (
	"os"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// TestContainedRunLeavesTheRootUnread runs TestInitIsTheProgramThisBuildNames alone in this
// test binary, with testdata's Node 24 first on PATH (so the contained child's program is
// in the checkout, as is the init under make test), and with the go command's test log: it
// must not stat or open the checkout's root, whose time changes whenever a file is added
// there, or guard's and the sandbox's tests would all run again for it (realpath.Resolve).
func TestContainedRunLeavesTheRootUnread(t *testing.T) {
	testenv.SkipShort(t, "runs a contained child in a second start of this test binary")
	root := testenv.RepoRoot(t)
	node24 := testenv.Node24(t)
	env := append(os.Environ(), "PATH="+node24+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, reads := testenv.ReadsOf(t, env, "^TestInitIsTheProgramThisBuildNames$")
	if !strings.Contains(out, "--- PASS: TestInitIsTheProgramThisBuildNames/netns") {
		t.Fatalf("the contained run did not pass:\n%s", out)
	}
	sawNode, reported := false, map[string]bool{}
	for _, r := range reads {
		if r.Path == root && !reported[r.Op] {
			reported[r.Op] = true
			t.Errorf("the contained run read the checkout's root (%s)", r.Op)
		}
		sawNode = sawNode || strings.HasPrefix(r.Path, node24)
	}
	if !sawNode {
		t.Errorf("the test log shows no read of %s: the child did not run testdata's Node 24: %v", node24, reads)
	}
}
