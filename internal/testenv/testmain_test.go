package testenv

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestMainCapsTheCompileCache: Main measured (and, past the limit, emptied) the test cache's
// Node compile cache before the tests ran, and it worked.
func TestMainCapsTheCompileCache(t *testing.T) {
	if mainCapped != nil {
		t.Errorf("Main's cap of the Node compile cache: %v", mainCapped)
	}
}
