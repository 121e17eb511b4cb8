package testenv

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// ChildEnv returns env (nil: CleanEnv), quiet at a race-built child's exit (QuietRace), with
// TMPDIR, TMP and TEMP pointing at a new folder of the test's own (under t.TempDir), so that
// what a child process — npm, node, plaios, tsc — writes to its temporary folder stays with
// the test, cannot be mistaken for another test's, and goes when the test ends, and with
// NODE_COMPILE_CACHE at the test cache's nodeCompileCache. Run does this for every command it
// starts; tests that build an exec.Cmd themselves use it for the command's Env.
func ChildEnv(t testing.TB, env []string) []string {
	t.Helper()
	trackInputs(t)
	if env == nil {
		env = CleanEnv()
	}
	tmp := t.TempDir()
	out := append(QuietRace(append([]string(nil), env...)), "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp, "NODE_COMPILE_CACHE="+nodeCompileCache(t))
	return LastWins(out, "TMPDIR", "TMP", "TEMP", "NODE_COMPILE_CACHE")
}

// nodeCompileCache is the folder of the test cache where a child's Node keeps the V8 code of
// the modules it compiles (NODE_COMPILE_CACHE; Node ≥ 22.1, which the tests' Node 24 is: the
// openclaw and Pi CLIs, and npm, tsc and node in the first run's OpenClaw workspaces). Without
// it each of them kept that code under its TMPDIR, which ChildEnv makes new for every command:
// each start compiled its modules again (openclaw's ~11 MB; `openclaw plugins validate` 3.3 s
// of CPU against 2.5 s with the shared cache). Node checks each entry against its source's
// hash and its own version and writes an entry whole, so the tests share it safely and a stale
// entry is compiled again, never used. Node 20 does not read it.
//
// The folder only grows: Node keys an entry on the module's path, and most paths are new
// temporary folders each run, and openclaw keeps its own compiled code in a folder per
// install (`openclaw/<version>/<package.json's mtime and size>`), a new one for each npm
// install of it (about 15 MB). So Main caps it (capNodeCompileCache): past compileCacheLimit
// it is emptied, and every start compiles again once.
func nodeCompileCache(t testing.TB) string {
	t.Helper()
	return CacheDir(t, "node-compile-cache")
}

// capNodeCompileCache caps the test cache's node-compile-cache (see capCache). Main calls it
// before the tests run: the go command keys a package's cached result on every folder a test
// opens, and the walk opens thousands that change every run.
func capNodeCompileCache() error {
	dir, err := cacheFolder("node-compile-cache")
	if err != nil {
		return err
	}
	_, err = capCache(dir, compileCacheLimit, compileCacheEvery, time.Now())
	return err
}

// mainCapped is what Main's capNodeCompileCache returned (TestMainCapsTheCompileCache).
var mainCapped = errors.New("testenv.Main did not run")

const (
	compileCacheLimit = 1 << 30   // bytes: about thirty full runs' worth
	compileCacheEvery = time.Hour // how often a test binary measures it
)

// capCache empties dir when the files under it take more than limit bytes, and says whether it
// did. It measures at most once per every (a stamp file beside dir, under a lock beside it, so
// that the test binaries of one run measure it once); emptying moves dir aside first, so a
// process that writes an entry meanwhile writes it into a fresh folder or into the one being
// removed, never half into a folder that is then kept. Leftovers of a removal cut short are
// removed too.
func capCache(dir string, limit int64, every time.Duration, now time.Time) (bool, error) {
	stamp := dir + ".measured"
	if st, err := os.Stat(stamp); err == nil && now.Sub(st.ModTime()) < every {
		return false, nil
	}
	unlock, err := lockPath(dir + ".lock")
	if err != nil {
		return false, err
	}
	defer unlock()
	if st, err := os.Stat(stamp); err == nil && now.Sub(st.ModTime()) < every {
		return false, nil // measured by another binary while this one waited
	}
	old, _ := filepath.Glob(dir + ".old-*")
	for _, o := range old {
		if err := os.RemoveAll(o); err != nil {
			return false, err
		}
	}
	var size int64
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			size += info.Size()
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	emptied := false
	if size > limit {
		aside := fmt.Sprintf("%s.old-%d", dir, now.UnixNano())
		if err := os.Rename(dir, aside); err != nil {
			return false, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, err
		}
		if err := os.RemoveAll(aside); err != nil {
			return false, err
		}
		emptied = true
	}
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		return emptied, err
	}
	return emptied, os.Chtimes(stamp, now, now)
}

// homeKeys are the variables that say where a program keeps its files in a user's home.
var homeKeys = []string{"HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"}

// WithHome returns env with home as the user's home: HOME, and each XDG base folder at its
// default place under it, each given once (whatever env held), so that a child — pnpm's store
// and state, openclaw, Pi, npm's global folder — writes nothing into the real user's home even
// when the user's environment names XDG folders of its own.
func WithHome(env []string, home string) []string {
	out := append(append([]string(nil), env...),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
	return LastWins(out, homeKeys...)
}
