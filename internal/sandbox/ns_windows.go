//go:build windows

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

// namespaceAttr fails: network namespaces exist only on Linux.
func namespaceAttr(userns bool) (*syscall.SysProcAttr, error) {
	return nil, errors.New("network namespaces exist only on Linux")
}

// groupAttr starts a child in a new process group.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the child (Windows has no process-group signal; its own children end with
// their console).
func killGroup(pid int) {
	if pid <= 0 {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
