//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadableByChild: as root a pack's code runs as nobody, so a folder only its owner may
// enter is refused up front, in one sentence, instead of surfacing as a module node cannot
// find; a readable one is shown. As an ordinary user the child is that user, and both pass.
func TestReadableByChild(t *testing.T) {
	dir := t.TempDir()
	closed := filepath.Join(dir, "closed")
	open := filepath.Join(dir, "open")
	for p, mode := range map[string]os.FileMode{closed: 0o700, open: 0o755} {
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := readableByChild(open); err != nil {
		t.Fatalf("a 0755 folder was refused: %v", err)
	}
	err := readableByChild(closed)
	if os.Geteuid() != 0 {
		if err != nil {
			t.Fatalf("as an ordinary user the child is that user, and may read its own 0700 folder: %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), "(mode 0700) cannot be read by the user the sandbox runs a pack's code as (nobody") || !strings.Contains(err.Error(), "chmod o+rX") {
		t.Fatalf("a 0700 folder as root: %v", err)
	}
}
