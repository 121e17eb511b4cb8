package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

const prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER, linux/prctl.h

// BecomeSubreaper makes the test process the reaper of every process its descendants leave
// behind (PR_SET_CHILD_SUBREAPER): an orphaned grandchild is re-parented to the test process
// instead of to init, so that LiveChildren finds it. Call it once, from TestMain.
func BecomeSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", errno)
	}
	return nil
}

// LiveChildren returns the process ids of this process's children that are still running
// (exited children not yet waited for are left out). It reads only this process's own
// entries (/proc/self/task/*/children and each child's stat), never the machine's process
// list. After BecomeSubreaper, every process the tests started and left running is either
// among them or a descendant of one of them.
func LiveChildren() ([]int, error) {
	tasks, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	var live []int
	for _, f := range tasks {
		data, err := os.ReadFile(f)
		if err != nil {
			if os.IsNotExist(err) {
				continue // the thread ended meanwhile
			}
			return nil, fmt.Errorf("list the test's children: %w", err)
		}
		for _, field := range strings.Fields(string(data)) {
			pid, err := strconv.Atoi(field)
			if err != nil || seen[pid] {
				continue
			}
			seen[pid] = true
			if running(pid) {
				live = append(live, pid)
			}
		}
	}
	return live, nil
}

// ChildrenNaming returns the live children (LiveChildren) whose working folder, command line
// or environment names dir or a path under it: the processes a test started with a folder of
// its own (its t.TempDir's parent), told from those of the tests running beside it, whose
// folders are their own. A child whose entries cannot be read any more has ended and is left
// out.
func ChildrenNaming(dir string) ([]int, error) {
	live, err := LiveChildren()
	if err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	// dir itself, or followed by what ends or continues a path in those entries: a separator,
	// the NUL between arguments and variables, a PATH list's colon, a JSON string's quote.
	names := func(s string) bool {
		for rest := s; ; {
			i := strings.Index(rest, dir)
			if i < 0 {
				return false
			}
			end := i + len(dir)
			if end == len(rest) || strings.IndexByte("/\x00:\"", rest[end]) >= 0 {
				return true
			}
			rest = rest[i+1:]
		}
	}
	var mine []int
	for _, pid := range live {
		cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		environ, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if names(cwd) || names(string(cmdline)) || names(string(environ)) {
			mine = append(mine, pid)
		}
	}
	return mine, nil
}

// running reports whether a child has not exited (its state is not Z, zombie, or X, dead).
func running(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state …: comm may hold spaces and parentheses; the state follows the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	state := s[i+2]
	return state != 'Z' && state != 'X'
}

// ProcessCommand returns a child's command line (for messages), or "" when it is gone.
func ProcessCommand(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(data), "\x00", " "))
}

// dieWithParent has the child killed when the thread that starts it ends (PR_SET_PDEATHSIG):
// started from a thread that lives as long as the test binary, it dies with the binary even
// when that is killed before it can stop the child.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
