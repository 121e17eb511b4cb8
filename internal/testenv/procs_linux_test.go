package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestChildrenNaming: a test's processes are told from its neighbours' by the folder they
// name — in their working folder, their command line or their environment — and a folder whose
// name only begins with the test's is another's.
func TestChildrenNaming(t *testing.T) {
	sh := LookPath(t, "sh")
	mine, other := t.TempDir(), t.TempDir()
	sibling := mine + "1" // same prefix, another folder
	if err := os.Mkdir(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sibling) })
	start := func(dir string, env []string, args ...string) int {
		t.Helper()
		// sh stays (a command follows sleep), with the arguments on its command line.
		cmd := exec.Command(sh, append([]string{"-c", "sleep 30; :", "sh"}, args...)...)
		cmd.Dir = dir
		cmd.Env = env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }) // sh and its sleep
		return cmd.Process.Pid
	}
	byCwd := start(mine, nil)
	byEnv := start("/", []string{"TMPDIR=" + filepath.Join(mine, "tmp")})
	byJSON := start("/", []string{`CONFIG={"root":"` + mine + `"}`})
	byArg := start("/", nil, filepath.Join(mine, "x"))
	theirs := start(other, []string{"TMPDIR=" + other})
	nextDoor := start(sibling, []string{"TMPDIR=" + sibling})
	nothing := start("/", nil)

	got, err := ChildrenNaming(mine)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []int{byCwd, byEnv, byJSON, byArg}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ChildrenNaming(the test's folder) = %v, want %v (not %d, %d or %d)", got, want, theirs, nextDoor, nothing)
	}
	if got, err := ChildrenNaming(other); err != nil || !slices.Equal(got, []int{theirs}) {
		t.Errorf("ChildrenNaming(the other folder) = %v (%v), want [%d]", got, err, theirs)
	}
}
