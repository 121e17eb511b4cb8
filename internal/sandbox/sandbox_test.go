package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// listener is a real TCP server on the loopback that counts the connections it accepts.
type listener struct {
	addr     string
	port     string
	accepted atomic.Int32
}

func listen(t *testing.T) *listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ls := &listener{addr: l.Addr().String()}
	_, ls.port, _ = net.SplitHostPort(ls.addr)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			ls.accepted.Add(1)
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	return ls
}

func node(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH; the tests need Node 20+")
	}
	return p
}

func newSandbox(t *testing.T, cfg Config) *Sandbox {
	t.Helper()
	cfg.Node = node(t)
	s, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A plain TCP client, without any hook, as a control: outside the sandbox it reaches the
// listener, inside it does not.
const rawClient = `
const net = require('node:net');
const s = net.connect(Number(process.argv[1]), '127.0.0.1');
s.on('data', (d) => { console.log('CONNECTED ' + d.toString().trim()); process.exit(0); });
s.on('error', (e) => { console.log('ERROR ' + e.code); process.exit(0); });
`

func TestNamespaceRefusesARealListener(t *testing.T) {
	ls := listen(t)

	out, err := exec.Command(node(t), "-e", rawClient, ls.port).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "CONNECTED hello") {
		t.Fatalf("control: outside the sandbox the client should reach the listener: %v %s", err, out)
	}
	before := ls.accepted.Load()
	if before != 1 {
		t.Fatalf("control: the listener accepted %d connections, want 1", before)
	}

	for _, name := range []string{"contained"} {
		t.Run(name, func(t *testing.T) {
			s := newSandbox(t, Config{Mode: NetNS})
			if !s.Isolated() {
				t.Fatal("a netns sandbox must say it is isolated")
			}
			res, err := s.Run(context.Background(), Spec{Name: node(t), Args: []string{"-e", rawClient, ls.port}, Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(res.Stdout, "CONNECTED") {
				t.Fatalf("the child reached the listener from inside the namespace: %s", res.Stdout)
			}
			if !strings.Contains(res.Stdout, "ERROR ") {
				t.Fatalf("the child should have seen a connection error, got stdout %q stderr %q", res.Stdout, res.Stderr)
			}
			if got := ls.accepted.Load(); got != before {
				t.Fatalf("the listener accepted %d connections during the sandboxed run", got-before)
			}
		})
	}
}

// The hooks record every kind of attempt, refuse it, and the record survives a package
// that swallows every error.
func TestHooksRecordSwallowedAttempts(t *testing.T) {
	ls := listen(t)
	dir := t.TempDir()
	script := `
import net from 'node:net';
import http from 'node:http';
import dns from 'node:dns';
import { lookup } from 'node:dns/promises';
import dgram from 'node:dgram';
const port = Number(process.argv[2]);
const quiet = (p) => p.catch(() => {});
net.connect(port, '127.0.0.1').on('error', () => {});
quiet(fetch('http://127.0.0.1:' + port + '/fetched'));
http.get('http://127.0.0.1:' + port + '/got').on('error', () => {});
dns.lookup('example.invalid', () => {});
quiet(lookup('promised.invalid'));
const u = dgram.createSocket('udp4'); u.on('error', () => {}); u.send('x', port, '127.0.0.1', () => {});
setTimeout(() => process.exit(0), 200);
`
	if err := os.WriteFile(filepath.Join(dir, "swallow.mjs"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{NetNS, Off} {
		t.Run(string(mode), func(t *testing.T) {
			s := newSandbox(t, Config{Mode: mode})
			res, err := s.Run(context.Background(), Spec{Hooks: true, Args: []string{"swallow.mjs", ls.port}, Dir: dir, Mounts: []Mount{{Path: dir}}, Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 0 {
				t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			var got []string
			for _, a := range res.Attempts {
				got = append(got, a.String())
			}
			all := strings.Join(got, "\n")
			for _, want := range []string{
				"connect 127.0.0.1:" + ls.port,
				"fetch http://127.0.0.1:" + ls.port + "/fetched",
				"http GET http://127.0.0.1:" + ls.port + "/got",
				"dns lookup example.invalid",
				"dns lookup promised.invalid",
				"udp 127.0.0.1:" + ls.port,
			} {
				if !strings.Contains(all, want) {
					t.Errorf("attempt %q not recorded; recorded:\n%s", want, all)
				}
			}
			if ls.accepted.Load() != 0 {
				t.Fatalf("the listener accepted a connection although every attempt was refused")
			}
		})
	}
}

// A timeout ends the child and everything it started: a detached grandchild (a group of its
// own, holding the events pipe, fd 3, as every process the child starts inherits it) that would
// outlive it and keeps writing to a file stops writing, and Run returns. With namespaces the
// PID namespace ends with its init; without them (--sandbox off) the init, asked, ends the
// program's group and what was left to it, the grandchild among them.
func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	for _, mode := range []Mode{NetNS, Off} {
		t.Run(string(mode), func(t *testing.T) {
			s := newSandbox(t, Config{Mode: mode})
			dir := t.TempDir()
			beat := filepath.Join(dir, "beat")
			script := `
const { spawn } = require('node:child_process');
spawn(process.execPath, ['-e', 'const fs = require("node:fs"); let n = 0; setInterval(() => fs.writeFileSync(process.argv[1], String(++n)), 20)', process.argv[1]], { stdio: 'ignore', detached: true }).unref();
setInterval(() => {}, 1000);
`
			start := time.Now()
			res, err := s.Run(context.Background(), Spec{Name: node(t), Args: []string{"-e", script, beat}, Mounts: []Mount{{Path: dir, Write: true}}, Timeout: 1500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if !res.TimedOut {
				t.Fatalf("the run should have timed out: %+v", res)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("the timeout took %v to take effect", d)
			}
			first, err := os.ReadFile(beat)
			if err != nil {
				t.Fatalf("the grandchild did not start: %v (stderr %s)", err, res.Stderr)
			}
			time.Sleep(300 * time.Millisecond)
			if again, _ := os.ReadFile(beat); string(again) != string(first) {
				t.Fatalf("the grandchild still runs after the timeout: %s then %s", first, again)
			}
		})
	}
}

// Without namespaces, what a child leaves running when it ends by itself goes with it too: a
// detached daemon does not outlive the run, nor keep Run waiting on the pipe it holds.
func TestOffEndsWhatTheChildLeaves(t *testing.T) {
	s := newSandbox(t, Config{Mode: Off})
	dir := t.TempDir()
	beat := filepath.Join(dir, "beat")
	script := `
const { spawn } = require('node:child_process');
const fs = require('node:fs');
spawn(process.execPath, ['-e', 'const fs = require("node:fs"); let n = 0; setInterval(() => fs.writeFileSync(process.argv[1], String(++n)), 20)', process.argv[1]], { stdio: 'ignore', detached: true }).unref();
const wait = () => fs.existsSync(process.argv[1]) ? process.exit(0) : setTimeout(wait, 20);
wait();
`
	res, err := s.Run(context.Background(), Spec{Name: node(t), Args: []string{"-e", script, beat}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.TimedOut || res.ExitCode != 0 {
		t.Fatalf("the child should have ended by itself: %+v", res)
	}
	first, err := os.ReadFile(beat)
	if err != nil {
		t.Fatalf("the daemon did not start: %v (stderr %s)", err, res.Stderr)
	}
	time.Sleep(300 * time.Millisecond)
	if again, _ := os.ReadFile(beat); string(again) != string(first) {
		t.Fatalf("the daemon still runs after the child ended: %s then %s", first, again)
	}
}

func TestCancelKillsTheChild(t *testing.T) {
	s := newSandbox(t, Config{Mode: NetNS})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	res, err := s.Run(ctx, Spec{Name: node(t), Args: []string{"-e", "setInterval(() => {}, 1000)"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.ExitCode == 0 {
		t.Fatalf("the run should have been cancelled: %+v", res)
	}
}

func TestCloseRemovesTheFolder(t *testing.T) {
	s := newSandbox(t, Config{Mode: Off})
	dir := s.Dir()
	if _, err := os.Stat(filepath.Join(dir, "node", "hooks.cjs")); err != nil {
		t.Fatalf("the scripts were not written: %v", err)
	}
	if s.Isolated() || !strings.Contains(s.Describe(), "--sandbox off") {
		t.Fatalf("an off sandbox must say it is not isolated: %q", s.Describe())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the sandbox folder is still there: %v", err)
	}
	if _, err := s.Run(context.Background(), Spec{Name: "true"}); err == nil {
		t.Fatal("a closed sandbox must refuse to run")
	}
}

func TestUnknownMode(t *testing.T) {
	if _, err := New(context.Background(), Config{Mode: "chroot", Node: node(t)}); err == nil || !strings.Contains(err.Error(), "auto, netns, off") {
		t.Fatalf("want an error naming the modes, got %v", err)
	}
}

// TestEventsTrustTheKeyOnly: the channel is taken once (the global is gone after), its events
// carry the key and are kept; lines written straight to fd 3, with no key or a guessed one,
// are dropped, except network attempts, which count from anyone.
func TestEventsTrustTheKeyOnly(t *testing.T) {
	dir := t.TempDir()
	script := `
import fs from 'node:fs';
const sym = Symbol.for('plaios.sandbox');
const channel = globalThis[sym];
const again = globalThis[sym];
channel.emit({ type: 'stage', stage: 'claimed ' + typeof channel.emit + ' then ' + typeof again + ' ' + (sym in globalThis) });
fs.writeSync(3, JSON.stringify({ type: 'result', ok: true }) + '\n');
fs.writeSync(3, '{"key":"00000000000000000000000000000000","type":"result","ok":true}\n');
fs.writeSync(3, '{"type":"network","what":"connect","target":"forged:1"}\n');
try { fs.ftruncateSync(3, 0); } catch (e) { channel.emit({ type: 'stage', stage: 'truncate ' + e.code }); }
`
	if err := os.WriteFile(filepath.Join(dir, "events.mjs"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t, Config{Mode: NetNS})
	res, err := s.Run(context.Background(), Spec{Hooks: true, Args: []string{"events.mjs"}, Dir: dir, Mounts: []Mount{{Path: dir}}, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var stages []string
	for _, ev := range res.Events {
		var e struct{ Type, Stage string }
		json.Unmarshal(ev, &e)
		if e.Type != "stage" {
			t.Errorf("an untrusted event was kept: %s", ev)
		}
		stages = append(stages, e.Stage)
	}
	if strings.Join(stages, "|") != "claimed function then undefined false|truncate EINVAL" {
		t.Errorf("stages %q (stderr %s)", stages, res.Stderr)
	}
	if len(res.Attempts) != 1 || res.Attempts[0].Target != "forged:1" {
		t.Errorf("attempts %+v", res.Attempts)
	}
}

// TestChildrenShareNoFiles: contained children build their new roots on one folder of the
// sandbox (rootDir), each in a mount namespace of its own. Two children at once each write
// their /tmp and HOME and wait for the other to have written; neither sees the other's files,
// and the host's folder is empty all along and after.
func TestChildrenShareNoFiles(t *testing.T) {
	s := newSandbox(t, Config{Mode: NetNS})
	script := `
const fs = require('node:fs'), os = require('node:os'), path = require('node:path');
const [me, other] = process.argv.slice(1);
for (const d of ['/tmp', os.homedir()]) fs.writeFileSync(path.join(d, me), me);
setTimeout(() => {
  const seen = ['/tmp', os.homedir()].filter((d) => fs.existsSync(path.join(d, other)));
  const mine = ['/tmp', os.homedir()].every((d) => fs.readFileSync(path.join(d, me), 'utf8') === me);
  console.log(JSON.stringify({ home: os.homedir(), seen, mine }));
}, 1500);
`
	type answer struct {
		Home string   `json:"home"`
		Seen []string `json:"seen"`
		Mine bool     `json:"mine"`
	}
	answers := make([]answer, 2)
	errs := make(chan error, 2)
	for i, names := range [][2]string{{"first", "second"}, {"second", "first"}} {
		go func() {
			res, err := s.Run(context.Background(), Spec{Name: node(t), Args: []string{"-e", script, names[0], names[1]}, Timeout: 30 * time.Second})
			if err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			if err == nil {
				err = json.Unmarshal([]byte(res.Stdout), &answers[i])
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range answers {
		if !a.Mine || len(a.Seen) > 0 {
			t.Errorf("child %d: wrote and read back its own files: %v; saw the other's in %v (HOME %s)", i, a.Mine, a.Seen, a.Home)
		}
	}
	entries, err := os.ReadDir(s.rootDir())
	if err != nil || len(entries) > 0 {
		t.Errorf("the host's root folder of the children holds %d entries (%v)", len(entries), err)
	}
}

// TestEndEventsStopsWaiting: once the child has ended, its events are read to their end, but a
// writer that outlived it (holding the pipe open) keeps the reader waiting only eventsGrace.
func TestEndEventsStopsWaiting(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Write([]byte("written before the end\n")); err != nil {
		t.Fatal(err)
	}
	c := &Child{Events: r}
	var lines []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		ReadLines(r, 1<<10, func(line []byte) { lines = append(lines, string(line)) })
	}()
	start := time.Now()
	c.EndEvents(done)
	if d := time.Since(start); d < eventsGrace || d > eventsGrace+5*time.Second {
		t.Errorf("EndEvents returned after %v, want about %v", d, eventsGrace)
	}
	if len(lines) != 1 || lines[0] != "written before the end" {
		t.Errorf("lines read: %q", lines)
	}
}

// TestScratchMount: a folder shown with a scratch layer reads as the folder, takes the child's
// new folders and files (what was there stays as its permissions say: as root, the child is
// nobody and changes no root-owned file), and is left as it was when the child ends.
func TestScratchMount(t *testing.T) {
	s := newSandbox(t, Config{Mode: NetNS})
	dir := t.TempDir()
	nm := filepath.Join(dir, "node_modules")
	if err := os.MkdirAll(filepath.Join(nm, "dep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nm, "dep", "index.js"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
const fs = require('node:fs');
const nm = process.argv[1];
if (fs.readFileSync(nm + '/dep/index.js', 'utf8') !== 'original\n') process.exit(10);
fs.mkdirSync(nm + '/.vite-temp', { recursive: true });
fs.writeFileSync(nm + '/.vite-temp/config.mjs', 'export default {};\n');
if (fs.readFileSync(nm + '/.vite-temp/config.mjs', 'utf8') !== 'export default {};\n') process.exit(11);
`
	res, err := s.Run(context.Background(), Spec{Name: node(t), Args: []string{"-e", script, nm}, Mounts: []Mount{{Path: nm, Scratch: true}}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(nm, ".vite-temp")); !os.IsNotExist(err) {
		t.Errorf("the child's new folder is in the folder itself (%v)", err)
	}
}
