package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReleasableHooks: a Releasable child loads with connections refused and recorded, then
// lifts the refusal and reaches a real loopback listener, through references it took while
// refused (fetch, net.connect); without Releasable there is nothing to lift.
func TestReleasableHooks(t *testing.T) {
	ls := listen(t)
	dir := t.TempDir()
	script := `
import net from 'node:net';
const port = Number(process.argv[2]);
const early = globalThis.fetch;
const refused = await early('http://127.0.0.1:' + port + '/early').then(() => 'reached', () => 'refused');
const sb = globalThis[Symbol.for('plaios.sandbox')];
if (typeof sb.allowNetwork !== 'function') { console.log(refused + ' locked'); process.exit(0); }
sb.allowNetwork();
const reached = await new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1');
  s.on('data', (d) => { resolve(d.toString().trim()); s.destroy(); });
  s.on('error', (e) => resolve('error ' + e.code));
});
const fetched = await early('http://127.0.0.1:' + port + '/late').then(() => 'reached', (e) => 'refused ' + (e.cause?.code ?? e.message));
console.log(refused + ' ' + reached + ' ' + fetched);
`
	if err := os.WriteFile(filepath.Join(dir, "release.mjs"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t, Config{Mode: Off})
	res, err := s.Run(context.Background(), Spec{Hooks: true, Releasable: true, Args: []string{"release.mjs", ls.port}, Dir: dir, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The listener answers "hello" and closes, so fetch sees a broken response: what matters
	// is that the socket got through.
	if out := strings.TrimSpace(res.Stdout); !strings.HasPrefix(out, "refused hello ") || strings.Contains(out, "ECONNREFUSED") {
		t.Fatalf("releasable child printed %q (stderr %s)", out, res.Stderr)
	}
	if len(res.Attempts) != 1 || res.Attempts[0].String() != "fetch http://127.0.0.1:"+ls.port+"/early" {
		t.Errorf("attempts recorded: %v", res.Attempts)
	}
	if ls.accepted.Load() < 2 {
		t.Errorf("the listener accepted %d connections, want the two made after the release", ls.accepted.Load())
	}

	res, err = s.Run(context.Background(), Spec{Hooks: true, Args: []string{"release.mjs", ls.port}, Dir: dir, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if out := strings.TrimSpace(res.Stdout); out != "refused locked" {
		t.Fatalf("a child that is not releasable printed %q", out)
	}
}
