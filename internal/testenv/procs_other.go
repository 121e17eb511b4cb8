//go:build !linux

package testenv

import "errors"

// BecomeSubreaper is Linux's PR_SET_CHILD_SUBREAPER; elsewhere it reports that it cannot.
func BecomeSubreaper() error { return errors.ErrUnsupported }

// LiveChildren lists the test process's running children; only Linux exposes them.
func LiveChildren() ([]int, error) { return nil, errors.ErrUnsupported }

// ProcessCommand returns a child's command line; only Linux exposes it.
func ProcessCommand(pid int) string { return "" }
