package releaseplan

import (
	"os"
	"path/filepath"

	"github.com/plaios/plaios/internal/exit"
)

// WritePlan writes the plan as JSON (data) to file, relative to dir (--out). A file that
// cannot be written is the environment's (exit 3).
func WritePlan(dir, file string, data []byte) error {
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return exit.Envf("cannot write the plan to %s: %v", file, unwrapPath(err))
	}
	return nil
}
