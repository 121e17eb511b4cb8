package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// The components a test binary shares between its tests: starting a Verdaccio costs seconds,
// mirroring a lockfile's packages into it more. Tests that use them publish only names of
// their own (a scope per test), so that they cannot see each other's packages; a test that
// stops its registry, or needs one that holds nothing at all, starts its own with Verdaccio.
var shared struct {
	mu      sync.Mutex
	reg     *Registry
	err     error
	dir     string
	mirrors map[string][]MirroredPackage
}

// Main runs the package's tests and then stops the shared registry and removes its storage.
// Before them it caps the test cache's Node compile cache (capNodeCompileCache). A package
// whose tests use SharedVerdaccio or SharedMirror calls it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
func Main(m *testing.M) int {
	if mainCapped = capNodeCompileCache(); mainCapped != nil {
		fmt.Fprintf(os.Stderr, "testenv: the Node compile cache was not capped: %v\n", mainCapped)
	}
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.reg != nil {
		shared.reg.Stop()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	return code
}

// SharedVerdaccio returns the test binary's Verdaccio, started on first use. It lives until
// Main stops it, and dies with the test binary if that is killed first.
func SharedVerdaccio(t testing.TB) *Registry {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.reg == nil && shared.err == nil {
		dir, err := os.MkdirTemp("", "plaios-test-shared-")
		if err != nil {
			t.Fatalf("shared registry: %v", err)
		}
		shared.dir = dir
		// Verdaccio is started from a thread that never exits, so that the parent-death
		// signal it is started with (see startVerdaccio) fires only when the test binary ends.
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			shared.reg, shared.err = startShared(dir)
			close(done)
			select {}
		}()
		<-done
	}
	if shared.err != nil {
		t.Fatalf("shared registry: %v", shared.err)
	}
	return shared.reg
}

// SharedMirror mirrors the packages of lockfile (see Mirror) into the shared registry, once per
// lockfile for the test binary, and returns them with the registry.
func SharedMirror(t testing.TB, lockfile string) (*Registry, []MirroredPackage) {
	t.Helper()
	reg := SharedVerdaccio(t)
	abs, err := filepath.Abs(lockfile)
	if err != nil {
		t.Fatal(err)
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if pkgs, ok := shared.mirrors[abs]; ok {
		return reg, pkgs
	}
	pkgs := Mirror(t, reg, abs)
	if shared.mirrors == nil {
		shared.mirrors = map[string][]MirroredPackage{}
	}
	shared.mirrors[abs] = pkgs
	return reg, pkgs
}

// startShared starts a Verdaccio outside any test: its failures are returned, its folders are
// under dir and nothing is cleaned up before Main.
func startShared(dir string) (reg *Registry, err error) {
	h := &headless{dir: dir}
	defer func() {
		if r := recover(); r != nil {
			if r != errHeadlessFatal {
				panic(r)
			}
			reg, err = nil, fmt.Errorf("%s", h.msg)
		}
	}()
	return Verdaccio(h), nil
}

// headless is the testing.TB that starts the shared registry: it belongs to no test, so its
// temporary folders live under dir and its failures stop the start instead of a test.
type headless struct {
	testing.TB
	dir string
	n   int
	msg string
}

var errHeadlessFatal = &struct{ s string }{"shared registry failed"}

func (h *headless) Helper()                  {}
func (h *headless) Cleanup(func())           {}
func (h *headless) Name() string             { return "shared" }
func (h *headless) Failed() bool             { return h.msg != "" }
func (h *headless) Setenv(key, value string) { panic("testenv: the shared registry cannot set " + key) }
func (h *headless) Fatal(args ...any)        { h.msg = fmt.Sprint(args...); panic(errHeadlessFatal) }
func (h *headless) Fatalf(format string, args ...any) {
	h.msg = fmt.Sprintf(format, args...)
	panic(errHeadlessFatal)
}
func (h *headless) TempDir() string {
	h.n++
	dir := filepath.Join(h.dir, fmt.Sprintf("%03d", h.n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.Fatal(err)
	}
	return dir
}
