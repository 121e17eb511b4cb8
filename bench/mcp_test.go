package bench

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plaios/plaios/internal/testenv"
)

// mcpOverheadBudget is the bound: a tools/call round trip may add at most this much,
// at p50, to the tool's own time.
const mcpOverheadBudget = 2 * time.Millisecond

const mcpCalls = 1000

// BenchmarkMCPServeRoundTrip starts the real `plaios mcp serve` on a pack with one echo tool
// and, as an MCP client (the go-sdk's) over stdio, issues 1,000 tools/call requests one after
// the other with arguments that need coercion and a default. Each round trip goes client →
// server (argument preparation as Ajv does it) → node child → tool → back. The tool's own
// time, measured inside the child, comes back in the result's _meta; the overhead is the
// round trip minus it. It reports the overhead's p50 and p99 (and the round trip's) and fails
// when the p50 overhead reaches 2 ms.
func BenchmarkMCPServeRoundTrip(b *testing.B) {
	bin := startupBinary(b)
	dir := b.TempDir()
	testenv.WriteFiles(b, dir, map[string]string{
		"package.json":  `{"name":"@framers/agentos-ext-bench-echo","version":"1.0.0","type":"module","main":"./index.js"}`,
		"manifest.json": `{"id":"com.framers.bench.echo","name":"echo","version":"1.0.0","extensions":[{"kind":"tool","id":"echo"}]}`,
		"index.js": `const echo = { id: 'echo', name: 'echo', description: 'Echoes its arguments.',
  inputSchema: { type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer', default: 1 }, at: { type: 'string', format: 'date-time' } }, required: ['q'] },
  async execute(a) { return { success: true, output: a }; } };
export function createExtensionPack() { return { name: 'echo', descriptors: [{ id: 'echo', kind: 'tool', payload: echo }] }; }
`,
	})
	for i := 0; i < b.N; i++ {
		ctx := context.Background()
		cmd := exec.Command(bin, "mcp", "serve", dir)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
		client := mcp.NewClient(&mcp.Implementation{Name: "plaios-bench", Version: "1"}, nil)
		session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatalf("connect to plaios mcp serve: %v", err)
		}
		args := map[string]any{"q": 12345, "at": "2026-01-02T03:04:05Z"}
		// Warm up: the first calls pay for lazily built paths on both sides.
		for w := 0; w < 50; w++ {
			if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
		rtt := make([]time.Duration, 0, mcpCalls)
		overhead := make([]time.Duration, 0, mcpCalls)
		own := make([]time.Duration, 0, mcpCalls)
		for c := 0; c < mcpCalls; c++ {
			start := time.Now()
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
			d := time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			if res.IsError {
				data, _ := json.Marshal(res.Content)
				b.Fatalf("call %d failed: %s", c, data)
			}
			if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != `{"at":"2026-01-02T03:04:05Z","n":1,"q":"12345"}` {
				b.Fatalf("call %d answered %+v", c, res.Content[0])
			}
			micros, _ := res.Meta["dev.plaios/toolMicros"].(float64)
			t := time.Duration(micros) * time.Microsecond
			rtt = append(rtt, d)
			own = append(own, t)
			overhead = append(overhead, d-t)
		}
		session.Close()
		p := func(xs []time.Duration, q float64) time.Duration {
			s := append([]time.Duration(nil), xs...)
			sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
			return s[int(q*float64(len(s)-1))]
		}
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		b.ReportMetric(ms(p(overhead, 0.50)), "p50-overhead-ms")
		b.ReportMetric(ms(p(overhead, 0.99)), "p99-overhead-ms")
		b.ReportMetric(ms(p(rtt, 0.50)), "p50-roundtrip-ms")
		b.ReportMetric(ms(p(rtt, 0.99)), "p99-roundtrip-ms")
		b.ReportMetric(ms(p(own, 0.50)), "p50-tool-ms")
		b.Logf("%d calls: overhead p50 %.3f ms, p99 %.3f ms; round trip p50 %.3f ms, p99 %.3f ms; the tool's own time p50 %.3f ms",
			mcpCalls, ms(p(overhead, 0.5)), ms(p(overhead, 0.99)), ms(p(rtt, 0.5)), ms(p(rtt, 0.99)), ms(p(own, 0.5)))
		if p(overhead, 0.5) >= mcpOverheadBudget {
			b.Errorf("a tools/call round trip adds %.3f ms at p50, over the %v budget", ms(p(overhead, 0.5)), mcpOverheadBudget)
		}
	}
}
