package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/testenv"
)

// TestMain doubles as the MCP server the client tests start: with PLAIOS_BRIDGE_TEST_SERVE
// set to a pack folder, the test binary serves that pack on stdio, as `plaios mcp serve` does.
func TestMain(m *testing.M) {
	if dir := os.Getenv("PLAIOS_BRIDGE_TEST_SERVE"); dir != "" {
		os.Exit(serveForTest(dir))
	}
	os.Exit(m.Run())
}

func serveForTest(dir string) int {
	ctx := context.Background()
	p, err := Open(dir, pack.None, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	secrets := map[string]string{}
	if s := os.Getenv("PLAIOS_BRIDGE_TEST_SECRET"); s != "" {
		id, env, _ := strings.Cut(s, "=")
		secrets[id] = env
	}
	l, err := NewLoader(ctx, &Loader{Pack: p, SecretEnv: secrets, Offline: os.Getenv("PLAIOS_BRIDGE_TEST_OFFLINE") != ""})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer l.Close()
	srv, err := NewServer(ctx, ServerOptions{Loader: l})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	for _, n := range srv.Notes() {
		fmt.Fprintln(os.Stderr, "warning:", n)
	}
	if err := srv.Run(ctx, Transport(os.Stdin, os.Stdout)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// clientReport is what testdata/bridge/client.mjs prints.
type clientReport struct {
	Server *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"server"`
	Steps []struct {
		Op     string          `json:"op"`
		Name   string          `json:"name"`
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Name    string `json:"name"`
			Code    any    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		MS  float64   `json:"ms"`
		RTT []float64 `json:"rtt"`
		Own []float64 `json:"own"`
	} `json:"steps"`
	Fatal  any    `json:"fatal"`
	Stderr string `json:"stderr"`
}

// callResult is an MCP tools/call result as the client returns it.
type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

func (r callResult) text() string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// runClient runs the real MCP TypeScript SDK client on a plan against this test binary
// serving dir (extra environment in env), and returns its report.
func runClient(t testing.TB, dir string, env map[string]string, steps []map[string]any) *clientReport {
	t.Helper()
	work := t.TempDir()
	src, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "bridge", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "client.mjs"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testenv.NodeModules(t), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	childEnv := map[string]string{"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "PLAIOS_BRIDGE_TEST_SERVE": dir}
	for k, v := range env {
		childEnv[k] = v
	}
	plan, _ := json.Marshal(map[string]any{"command": self, "args": []string{}, "env": childEnv, "steps": steps})
	planPath := filepath.Join(work, "plan.json")
	if err := os.WriteFile(planPath, plan, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.LookPath(t, "node"), filepath.Join(work, "client.mjs"), planPath)
	cmd.Dir = work
	cmd.Env = testenv.ChildEnv(t, nil)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("the MCP client failed: %v\n%s\n%s", err, out, stderr)
	}
	var rep clientReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("the MCP client's report: %v\n%s", err, out)
	}
	if rep.Fatal != nil {
		t.Fatalf("the MCP client could not run: %v\nserver stderr: %s", rep.Fatal, rep.Stderr)
	}
	if len(rep.Steps) != len(steps) {
		t.Fatalf("the client ran %d of %d steps", len(rep.Steps), len(steps))
	}
	return &rep
}

func fixtureDir(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(testenv.RepoRoot(t), "testdata", "bridge", name)
}
