//go:build windows

package sandbox

import (
	"os"
	"syscall"
)

// groupAttr starts a child in a new process group.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killTree kills the child (Windows has no process-group signal; its own children end with
// their console).
func killTree(pid int) {
	if pid <= 0 {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
