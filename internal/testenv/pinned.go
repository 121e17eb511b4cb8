package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// OpenClaw returns the pinned openclaw CLI (testdata/node/openclaw, openclaw 2026.9.6) and the
// environment to run it with: Node 24 first on PATH (openclaw needs Node ≥ 24.16), and an
// OPENCLAW_HOME, a home (WithHome) and a TMPDIR of the test's own. The package is installed
// once into the test cache (see pinnedTool).
func OpenClaw(t testing.TB) (bin string, env []string) {
	t.Helper()
	bin, env = pinnedTool(t, "openclaw", "openclaw")
	home := t.TempDir()
	env = WithHome(append(env, "OPENCLAW_HOME="+home, "OPENCLAW_STATE_DIR="+filepath.Join(home, "state")), home)
	return bin, ChildEnv(t, env)
}

// Pi returns the pinned Pi coding agent CLI (testdata/node/pi, @earendil-works/pi-coding-agent
// 1.6.0) and the environment to run it with: Node 24 first on PATH (Pi needs Node ≥ 22.19), a
// home (WithHome) and a Pi agent folder (PI_CODING_AGENT_DIR, where models.json goes) of the
// test's own, a TMPDIR of the test's own, and no network activity of Pi's own (PI_OFFLINE).
func Pi(t testing.TB) (bin, agentDir string, env []string) {
	t.Helper()
	bin, env = pinnedTool(t, "pi", "pi")
	home := t.TempDir()
	agentDir = filepath.Join(home, ".pi", "agent")
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		t.Fatal(err)
	}
	env = WithHome(append(env, "PI_CODING_AGENT_DIR="+agentDir, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"), home)
	return bin, agentDir, ChildEnv(t, env)
}

// pinnedTool installs the package pinned in testdata/node/<name> (package.json and its lock)
// and returns its executable binName and an environment with Node 24 first on PATH. The
// install happens once into the test cache (Cached), in a folder named after the lockfile's
// hash, and is reused by every later test and run. Install scripts are not run: the commands
// the tests use do not need them.
func pinnedTool(t testing.TB, name, binName string) (bin string, env []string) {
	t.Helper()
	src := filepath.Join(RepoRoot(t), "testdata", "node", name)
	manifest, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		t.Fatalf("%s pin: %v", name, err)
	}
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		t.Fatalf("%s pin: %v", name, err)
	}
	sum := sha256.Sum256(append(append([]byte{}, manifest...), lock...))
	cache := CacheDir(t, name+"-"+hex.EncodeToString(sum[:])[:16])
	node24 := Node24(t)
	env = append(CleanEnv(), "PATH="+node24+string(os.PathListSeparator)+os.Getenv("PATH"))
	env = LastWins(env, "PATH")
	pkg := filepath.Join(cache, "pkg")
	bin = filepath.Join(pkg, "node_modules", ".bin", binName)
	Cached(t, cache, func(tmp string) {
		for file, data := range map[string][]byte{"package.json": manifest, "package-lock.json": lock} {
			if err := os.WriteFile(filepath.Join(tmp, file), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// The tarballs come from a registry of this test's that mirrors the lockfile (Mirror),
		// so from the test cache the first run's registry shares: a fresh machine downloads
		// each package once, not once more here (openclaw's 329, 151 MB, are nearly all the
		// templates' too). npm addresses registry.npmjs.org's tarballs to the configured
		// registry (replace-registry-host); its cache is the test's, not the user's.
		reg := Verdaccio(t)
		Mirror(t, reg, filepath.Join(src, "package-lock.json"))
		install := append(append([]string{}, env...),
			"npm_config_registry="+reg.URL,
			"npm_config_userconfig="+reg.UserConfig,
			"npm_config_replace_registry_host=npmjs",
			"npm_config_cache="+filepath.Join(t.TempDir(), "npm-cache"))
		if out, err := RunErr(tmp, ChildEnv(t, install), "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline"); err != nil {
			t.Fatalf("install the pinned %s (npm ci in %s): %v\n%s", name, tmp, err, out)
		}
	})
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the cached %s install in %s has no %s; remove that folder and run again", name, cache, binName)
	}
	return bin, env
}

// Cached makes sure cache (a folder from CacheDir) holds "pkg", made by fill, and returns that
// folder. fill runs at most once for all tests and all test binaries of every run that share
// the cache: under an exclusive file lock, into an empty folder that becomes "pkg" by a rename
// only once fill has returned without failing the test, so that no reader ever sees half a
// result and a failed or killed fill leaves nothing behind. Whatever fill's result depends on
// must be in the cache folder's name.
func Cached(t testing.TB, cache string, fill func(dir string)) string {
	t.Helper()
	pkg := filepath.Join(cache, "pkg")
	done := filepath.Join(cache, ".complete")
	if _, err := os.Stat(done); err == nil {
		return pkg
	}
	unlock := lockFile(t, filepath.Join(cache, ".lock"))
	defer unlock()
	if _, err := os.Stat(done); err == nil {
		return pkg
	}
	tmp := filepath.Join(cache, "filling")
	_ = os.RemoveAll(tmp)
	_ = os.RemoveAll(pkg)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	fill(tmp)
	if t.Failed() {
		t.FailNow()
	}
	if err := os.Rename(tmp, pkg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(done, []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return pkg
}

// lockFile takes an exclusive lock on path (created when missing) and returns its release.
func lockFile(t testing.TB, path string) func() {
	t.Helper()
	unlock, err := lockPath(path)
	if err != nil {
		t.Fatalf("lock %s: %v", path, err)
	}
	return unlock
}

// lockPath is lockFile for code that returns its errors.
func lockPath(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

// LastWins keeps, for each of keys, only the last KEY=value of env, so that a value appended
// last wins whatever reads the environment (os/exec does the same; code that reads env itself,
// such as a PATH lookup, does not).
func LastWins(env []string, keys ...string) []string {
	last := map[string]int{}
	for i, kv := range env {
		for _, k := range keys {
			if strings.HasPrefix(kv, k+"=") {
				last[k] = i
			}
		}
	}
	out := env[:0:0]
	for i, kv := range env {
		keep := true
		for _, k := range keys {
			if strings.HasPrefix(kv, k+"=") && last[k] != i {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// PNPM returns the pinned pnpm (testdata/node/pnpm, pnpm 10.34.9: a fresh CI machine has only
// node and npm), installed once into the test cache. It runs on the node first on PATH.
func PNPM(t testing.TB) string {
	t.Helper()
	bin, _ := pinnedTool(t, "pnpm", "pnpm")
	return bin
}
