package sandbox

import (
	"os"
	"slices"
	"testing"
)

// TestInitEnviron: the init gets its instructions and plaios's GORACE, when plaios has one,
// and nothing else of plaios's environment.
func TestInitEnviron(t *testing.T) {
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	t.Setenv("NPM_TOKEN", "npm_secret")
	if got := initEnviron(`{"fds":0}`); !slices.Equal(got, []string{initEnv + `={"fds":0}`, "GORACE=atexit_sleep_ms=0"}) {
		t.Errorf("with GORACE: %q", got)
	}
	os.Unsetenv("GORACE") // t.Setenv puts it back
	if got := initEnviron(`{"fds":0}`); !slices.Equal(got, []string{initEnv + `={"fds":0}`}) {
		t.Errorf("without GORACE: %q", got)
	}
}
