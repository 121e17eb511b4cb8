//go:build !linux

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
