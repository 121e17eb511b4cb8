//go:build !linux

package testenv

import (
	"errors"
	"os/exec"
)

// BecomeSubreaper is Linux's PR_SET_CHILD_SUBREAPER; elsewhere it reports that it cannot.
func BecomeSubreaper() error { return errors.ErrUnsupported }

// LiveChildren lists the test process's running children; only Linux exposes them.
func LiveChildren() ([]int, error) { return nil, errors.ErrUnsupported }

// ChildrenNaming lists the running children that name a folder; only Linux exposes them.
func ChildrenNaming(dir string) ([]int, error) { return nil, errors.ErrUnsupported }

// ProcessCommand returns a child's command line; only Linux exposes it.
func ProcessCommand(pid int) string { return "" }

// dieWithParent is Linux's parent-death signal; elsewhere the shared registry is stopped by
// Main only.
func dieWithParent(cmd *exec.Cmd) {}
