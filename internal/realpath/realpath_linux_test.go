package realpath

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// TestResolve: Resolve resolves what filepath.EvalSymlinks resolves, to the same path, and
// fails where it fails; a FIFO is resolved without being opened.
func TestResolve(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFiles(t, dir, map[string]string{"pkg/bin/tool": "#!/bin/sh\n", "pkg/package.json": "{}\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"abs":         filepath.Join(dir, "pkg", "bin", "tool"), // an absolute link to a file
		"rel":         "pkg/bin/tool",                           // a relative one
		"dirlink":     "pkg",                                    // a link to a folder, in the middle of a path
		"chain":       "rel",                                    // a link to a link
		"up":          "pkg/bin/../package.json",                // .. inside a link
		"dangling":    "nothing-here",
		"fifolink":    "fifo",
		"pkg/bin/npm": "../../chain", // a link under a linked folder, up and back
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{
		"pkg/bin/tool", "abs", "rel", "chain", "up", "dirlink", "dirlink/bin/tool", "dirlink/bin/npm",
		"dirlink/bin/../package.json", "fifo", "fifolink", "dangling", "missing", "pkg/bin/tool/x",
	} {
		path := filepath.Join(dir, p)
		want, wantErr := filepath.EvalSymlinks(path)
		got, err := Resolve(path)
		if (err != nil) != (wantErr != nil) || got != want {
			t.Errorf("Resolve(%s) = %q, %v; filepath.EvalSymlinks gives %q, %v", p, got, err, want, wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("Resolve(%s)'s error does not name the path: %v", p, err)
		}
	}
}
