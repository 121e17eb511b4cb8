// Package realpath resolves a path's symbolic links as filepath.EvalSymlinks does, without
// reading the folders above it.
//
// The go command keys a cached test result on the time of each folder a test stats inside
// the module, and the checkout root's time changes whenever a file is added there (the first
// make build). filepath.EvalSymlinks lstats every folder from / down, so a test that resolves
// a program in the checkout (testdata's Node 24, the tests' sandbox init) would run again
// for every such file. Resolve asks the kernel instead: one open, and no stat.
package realpath

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Resolve is path with every symbolic link resolved, as filepath.EvalSymlinks gives it, but
// resolved by the kernel: path is opened with O_PATH (nothing is read, a FIFO is not
// opened) and its descriptor's link in /proc/self/fd names the file reached. Without /proc
// it falls back to filepath.EvalSymlinks.
func Resolve(path string) (string, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !filepath.IsAbs(real) {
		return filepath.EvalSymlinks(path)
	}
	return real, nil
}
