package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/realpath"
)

// TestInitIsTheProgramThisBuildNames: every child, contained or not, starts under the init
// this build names — under make test a build of ./internal/sandbox/initbin without -race
// (initProgram), else this very binary — and a named init that cannot be started is said
// in one sentence, before anything starts.
func TestInitIsTheProgramThisBuildNames(t *testing.T) {
	want := initProgram
	if want == "" {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		want = self
	}
	if real, err := realpath.Resolve(want); err == nil {
		want = real
	}
	t.Logf("the init: %s", want)
	for _, mode := range []Mode{NetNS, Off} {
		t.Run(string(mode), func(t *testing.T) {
			s := newSandbox(t, Config{Mode: mode})
			c, err := s.Command(Spec{Name: node(t), Args: []string{"-e", "setTimeout(() => {}, 30000)"}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			// The file, not its path: a contained init pivots into the sandbox's root and then
			// detaches the old one (init_linux.go), and in between the kernel names its program,
			// read from the host, /.oldroot/… (seen once in a make test run).
			exe := "/proc/" + strconv.Itoa(c.Cmd.Process.Pid) + "/exe"
			got, errGot := os.Stat(exe)
			path, _ := os.Readlink(exe)
			c.Kill()
			c.Wait()
			if errGot != nil {
				t.Fatal(errGot)
			}
			init, err := os.Stat(want)
			if err != nil {
				t.Fatal(err)
			}
			if !os.SameFile(got, init) {
				t.Errorf("the child's init is %s, not the file %s", path, want)
			}
		})
	}

	t.Run("missing", func(t *testing.T) {
		s := newSandbox(t, Config{Mode: Off})
		saved := initProgram
		initProgram = filepath.Join(t.TempDir(), "plaios-sandbox-init")
		defer func() { initProgram = saved }()
		_, err := s.Run(context.Background(), Spec{Name: node(t), Args: []string{"--version"}})
		if err == nil || !strings.Contains(err.Error(), "the sandbox's init, "+initProgram+", which this build was linked to start, cannot be started") {
			t.Fatalf("a missing init: %v", err)
		}
		if strings.Count(err.Error(), "\n") != 0 {
			t.Errorf("not one sentence: %q", err)
		}
	})
}
