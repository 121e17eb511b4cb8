//go:build !linux && !windows

package sandbox

import "syscall"

// groupAttr starts a child as the leader of a new process group.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killTree kills a child's whole process group.
func killTree(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
