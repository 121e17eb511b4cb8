//go:build !linux

package realpath

import "path/filepath"

// Resolve is path with every symbolic link resolved (see realpath_linux.go).
func Resolve(path string) (string, error) { return filepath.EvalSymlinks(path) }
