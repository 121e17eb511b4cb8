//go:build linux

package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMakeTestTMPDIR: `make test` runs both of its go test commands with the TMPDIR the
// Makefile chose: none of its own when TMPDIR is set, the one TEST_TMPDIR names, and by
// default either none or /dev/shm/plaios-test-<uid>, a folder of this user's that runs
// programs. (make -n: the commands are printed, not run; the default's probe is the one thing
// make then does, as `make test` would.)
func TestMakeTestTMPDIR(t *testing.T) {
	began := time.Now().Truncate(time.Second) // file times may be kept to the second
	mk := LookPath(t, "make")
	root := RepoRoot(t)
	// Opened here so that the go command's test cache runs this again when the Makefile
	// changes (it sees only what the test process itself opens, not make's reads).
	if _, err := os.ReadFile(filepath.Join(root, "Makefile")); err != nil {
		t.Fatal(err)
	}
	goTests := func(env []string, args ...string) []string {
		t.Helper()
		// RunErr, not Run: Run's ChildEnv would set the TMPDIR this test leaves out.
		out, err := RunErr(t.TempDir(), env, mk, append([]string{"-n", "-C", root, "test"}, args...)...)
		if err != nil {
			t.Fatalf("make -n test: %v\n%s", err, out)
		}
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "go test ") {
				lines = append(lines, l)
			}
		}
		if len(lines) != 2 {
			t.Fatalf("make -n test printed %d go test commands, want 2:\n%s", len(lines), out)
		}
		return lines
	}
	without := func(key string) []string {
		var env []string
		for _, kv := range CleanEnv() {
			if !strings.HasPrefix(kv, key+"=") {
				env = append(env, kv)
			}
		}
		return env
	}
	for _, l := range goTests(append(without("TMPDIR"), "TMPDIR=/var/tmp")) {
		if strings.Contains(l, "TMPDIR=") {
			t.Errorf("with TMPDIR set, make test gives go test a TMPDIR of its own: %s", l)
		}
	}
	for _, l := range goTests(without("TMPDIR"), "TEST_TMPDIR=/elsewhere") {
		if !strings.HasPrefix(l, "TMPDIR=/elsewhere go test ") {
			t.Errorf("with TEST_TMPDIR=/elsewhere: %s", l)
		}
	}
	// The default, against what the kernel says of /dev/shm: a file system that runs programs
	// (no ST_NOEXEC) with 4 GiB free, where the folder is this user's (or not there yet).
	dir := fmt.Sprintf("/dev/shm/plaios-test-%d", os.Getuid())
	want := "go test "
	var fs syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &fs); err == nil && fs.Flags&unix.ST_NOEXEC == 0 && fs.Bavail*uint64(fs.Bsize) >= 4<<30 {
		var st syscall.Stat_t
		if err := syscall.Stat(dir, &st); err != nil || int(st.Uid) == os.Getuid() {
			want = "TMPDIR=" + dir + " go test "
		}
	}
	lines := goTests(without("TMPDIR"))
	for _, l := range lines {
		if !strings.HasPrefix(l, want) {
			t.Errorf("by default make test runs %s; want it to begin %q", l, want)
		}
	}
	// The realworld package's line runs every test of it but the sweep itself (its verdict and
	// table tests need no network), not the ones a -run pattern happens to name.
	if l := lines[1]; !strings.Contains(l, "-tags realworld -skip '^TestRealWorld$' ./realworld") || strings.Contains(l, " -run ") {
		t.Errorf("make test's realworld line is %s; want every test but TestRealWorld", l)
	}
	// The probe removes the script it ran there: none written since this test began is left.
	// (Another make probing at this moment has one for a few milliseconds: look again after a
	// second before failing.)
	for try := 0; ; try++ {
		var left []string
		scripts, _ := filepath.Glob(filepath.Join(dir, ".runs*"))
		for _, f := range scripts {
			if st, err := os.Stat(f); err == nil && !st.ModTime().Before(began) {
				left = append(left, f)
			}
		}
		if len(left) == 0 {
			break
		}
		if try == 1 {
			t.Errorf("make's probe left %q", left)
			break
		}
		time.Sleep(time.Second)
	}
}
