//go:build !linux && !windows

package sandbox

import (
	"errors"
	"syscall"
)

// namespaceAttr fails: network namespaces exist only on Linux.
func namespaceAttr(userns bool) (*syscall.SysProcAttr, error) {
	return nil, errors.New("network namespaces exist only on Linux")
}

// groupAttr starts a child as the leader of a new process group.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills a child's whole process group.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
