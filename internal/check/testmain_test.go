package check

import (
	"os"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// TestMain stops the registry the tests share (testenv.SharedVerdaccio) when they are done.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
