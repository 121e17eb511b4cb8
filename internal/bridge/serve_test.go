package bridge

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/testenv"
)

// TestServeWithTheTypeScriptClient drives `plaios mcp serve`'s server with the real MCP
// TypeScript SDK client: listing, a call whose arguments need coercion and defaults, failures
// of every kind, a cancelled call, malformed requests, a crash and the restart after it, and a
// secret that never reaches the client.
func TestServeWithTheTypeScriptClient(t *testing.T) {
	dir := fixtureDir(t, "agentos-fixture")
	const token = "tok-8d1f2a-very-secret"
	rep := runClient(t, dir, map[string]string{"BRIDGE_FIXTURE_TOKEN": token}, []map[string]any{
		{"op": "list"},
		{"op": "call", "name": "echo", "args": map[string]any{"text": 5, "count": "3", "when": "2026-02-28"}},
		{"op": "call", "name": "echo", "args": map[string]any{"count": "x", "when": "2026-02-30"}},
		{"op": "call", "name": "fail", "args": map[string]any{}},
		{"op": "call", "name": "throws", "args": map[string]any{}},
		{"op": "call", "name": "slow", "args": map[string]any{}, "abortAfterMs": 300},
		{"op": "wait", "ms": 200}, // the cancellation reaches the tool while the client goes on
		{"op": "call", "name": "whoami", "args": map[string]any{}},
		{"op": "call", "name": "weather.lookup", "args": map[string]any{"city": "Treviso"}},
		{"op": "request", "method": "tools/call", "params": map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}},
		{"op": "request", "method": "tools/call", "params": map[string]any{"name": "echo", "arguments": []any{1, 2}}},
		{"op": "raw", "line": "{this is not json\n"},
		{"op": "request", "method": "no/such/method", "params": map[string]any{}},
		{"op": "call", "name": "crash", "args": map[string]any{}},
		{"op": "call", "name": "echo", "args": map[string]any{"text": "after the crash"}},
		{"op": "list"},
	})
	step := func(i int) callResult {
		t.Helper()
		s := rep.Steps[i]
		if !s.OK {
			t.Fatalf("step %d (%s %s) failed: %+v\nserver stderr: %s", i, s.Op, s.Name, s.Error, rep.Stderr)
		}
		var r callResult
		if err := json.Unmarshal(s.Result, &r); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		return r
	}
	if rep.Server == nil || rep.Server.Name != "@framers/agentos-ext-bridge-fixture" || rep.Server.Version != "1.2.3" {
		t.Errorf("server info: %+v", rep.Server)
	}

	// tools/list: every tool but the one whose required secret is missing, with its schemas.
	var list struct {
		Tools []struct {
			Name         string         `json:"name"`
			Title        string         `json:"title"`
			Description  string         `json:"description"`
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
			Annotations  map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(rep.Steps[0].Result, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if want := []string{"crash", "echo", "fail", "slow", "throws", "weather.lookup", "whoami"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("tools/list names = %v, want %v", names, want)
	}
	echo := list.Tools[1]
	if echo.Title != "Echo" || echo.InputSchema["required"].([]any)[0] != "text" || echo.OutputSchema["type"] != "object" || echo.Annotations["readOnlyHint"] != true {
		t.Errorf("echo as listed: %+v", echo)
	}
	if w := list.Tools[5]; w.InputSchema["type"] != "object" || w.OutputSchema != nil {
		t.Errorf("a schema without a type is listed as an object schema: %+v", w)
	}
	if !strings.Contains(rep.Stderr, "tool paid is left out: its secret fixture.paidKey is not set (set FIXTURE_PAID_KEY)") {
		t.Errorf("no warning about the left-out tool: %s", rep.Stderr)
	}

	// Coercion and defaults, as Ajv does them; the structured output too.
	r := step(1)
	want := map[string]any{"text": "5", "count": 3.0, "loud": false, "when": "2026-02-28", "calls": 1.0}
	if r.IsError || !reflect.DeepEqual(r.StructuredContent, want) {
		t.Errorf("echo with coercion: %+v, want structured %v", r, want)
	}
	// Invalid arguments: every error, in Ajv's words, and the tool does not run.
	r = step(2)
	if !r.IsError || r.text() != `Invalid arguments for tool 'echo'. Validation failed against input schema: must have required property 'text'; /count must be integer; /when must match format "date"` {
		t.Errorf("invalid arguments: %+v", r)
	}
	if r = step(3); !r.IsError || r.text() != "the fixture failed on purpose" {
		t.Errorf("a reported failure: %+v", r)
	}
	if r = step(4); !r.IsError || r.text() != "thrown on purpose" {
		t.Errorf("a thrown error: %+v", r)
	}
	// Cancellation: the client gives up at once, and the tool sees its signal abort.
	if s := rep.Steps[5]; s.OK || s.Error == nil || s.MS > 5000 {
		t.Errorf("a cancelled call: %+v", s)
	}
	r = step(7)
	if r.IsError || r.StructuredContent != nil || !strings.Contains(r.text(), `"aborted":1`) {
		t.Errorf("the slow tool did not see the abort: %+v", r)
	}
	// The secret reaches the tool, never the client.
	// The secret reaches the pack through getSecret and through context.options.secrets alike.
	if strings.Contains(r.text(), token) || !strings.Contains(r.text(), `"token":"[redacted]"`) || !strings.Contains(r.text(), `"fromOptions":"[redacted]"`) {
		t.Errorf("the secret is not redacted: %s", r.text())
	}
	if r = step(8); r.IsError || r.text() != "sunny in Treviso" {
		t.Errorf("a string output: %+v", r)
	}
	// Protocol errors: an unknown tool, arguments that are not an object, a line that is not
	// JSON (the session goes on), an unknown method.
	if s := rep.Steps[9]; s.OK || !strings.Contains(s.Error.Message, "no_such_tool") {
		t.Errorf("an unknown tool: %+v", s)
	}
	if r = step(10); !r.IsError || r.text() != "Invalid arguments for tool 'echo'. Validation failed against input schema: must be object" {
		t.Errorf("arguments that are an array: %+v", r)
	}
	if s := rep.Steps[12]; s.OK || s.Error == nil || fmt.Sprint(s.Error.Code) != "-32601" {
		t.Errorf("an unknown method: %+v", s.Error)
	}
	// A crash fails the call in flight; the next call runs in a new child.
	if r = step(13); !r.IsError || !strings.Contains(r.text(), "the fixture crashed on purpose") || !strings.Contains(r.text(), "starts the pack again") {
		t.Errorf("a crash: %+v", r)
	}
	if r = step(14); r.IsError || r.StructuredContent["text"] != "after the crash" || r.StructuredContent["calls"] != 1.0 {
		t.Errorf("after the crash: %+v", r)
	}
	if s := rep.Steps[15]; !s.OK {
		t.Errorf("tools/list after everything: %+v", s)
	}
	if strings.Contains(rep.Stderr, token) {
		t.Errorf("the secret reached stderr")
	}
}

// TestServeOtherRuntimes: an OpenClaw tool plugin, a Pi extension and a PLAIOS capability
// through the same server and client: content passed through, an output schema checked on
// OpenClaw's details, throwing and {success: false} as isError with the tool's message,
// PLAIOS configuration from the environment with its secret redacted.
func TestServeOtherRuntimes(t *testing.T) {
	t.Run("openclaw", func(t *testing.T) {
		rep := runClient(t, fixtureDir(t, "openclaw-tool"), nil, []map[string]any{
			{"op": "call", "name": "weather_now", "args": map[string]any{"city": "Treviso"}},
			{"op": "call", "name": "weather_soon", "args": map[string]any{"city": "Treviso", "days": "3"}},
			{"op": "call", "name": "weather_now", "args": map[string]any{"city": 7, "extra": true}},
		})
		var r callResult
		_ = json.Unmarshal(rep.Steps[0].Result, &r)
		if r.IsError || r.text() != "sunny in Treviso for 1 day(s)" {
			t.Errorf("weather_now: %+v", r)
		}
		r = callResult{}
		_ = json.Unmarshal(rep.Steps[1].Result, &r)
		if r.IsError || !reflect.DeepEqual(r.StructuredContent, map[string]any{"rain": true, "days": 3.0}) {
			t.Errorf("weather_soon: %+v", r)
		}
		r = callResult{}
		_ = json.Unmarshal(rep.Steps[2].Result, &r)
		if !r.IsError || r.text() != "Invalid arguments for tool 'weather_now'. Validation failed against input schema: must NOT have additional properties" {
			t.Errorf("extra argument: %+v", r)
		}
	})
	t.Run("pi", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "pi")
		testenv.CopyTree(t, fixtureDir(t, "pi-ext"), dir)
		p, err := Open(dir, pack.Pi, nil)
		if err != nil {
			t.Fatal(err)
		}
		r0, err := PiPackage(p, PiEntry(p))
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteFileAtomic(r0.File, r0.New); err != nil {
			t.Fatal(err)
		}
		rep := runClient(t, dir, nil, []map[string]any{
			{"op": "call", "name": "pi_weather", "args": map[string]any{"city": "Oslo"}},
			{"op": "call", "name": "pi_weather", "args": map[string]any{"city": "Atlantis", "hot": "true"}},
		})
		var r callResult
		_ = json.Unmarshal(rep.Steps[0].Result, &r)
		if r.IsError || r.text() != "mild in Oslo" {
			t.Errorf("pi_weather: %+v", r)
		}
		r = callResult{}
		_ = json.Unmarshal(rep.Steps[1].Result, &r)
		if !r.IsError || r.text() != "no weather under the sea" {
			t.Errorf("a Pi tool that throws: %+v", r)
		}
	})
	t.Run("plaios", func(t *testing.T) {
		const key = "words-key-5d2c91"
		rep := runClient(t, fixtureDir(t, "plaios-cap"), map[string]string{"WORDS_API_KEY": key, "WORDS_LIMIT": "2"}, []map[string]any{
			{"op": "list"},
			{"op": "call", "name": "count_words", "args": map[string]any{"text": "one two three", "limit": nil}},
			{"op": "call", "name": "count_words", "args": map[string]any{"text": "  ", "limit": "1"}},
		})
		var r callResult
		_ = json.Unmarshal(rep.Steps[1].Result, &r)
		if r.IsError || r.text() != `{"count":3,"first":["one","two"],"key":"[redacted]"}` {
			t.Errorf("count_words: %+v", r)
		}
		r = callResult{}
		_ = json.Unmarshal(rep.Steps[2].Result, &r)
		if !r.IsError || r.text() != "the text is empty" {
			t.Errorf("a failed capability: %+v", r)
		}
		if strings.Contains(string(rep.Steps[1].Result)+rep.Stderr, key) {
			t.Errorf("the secret reached the client")
		}
	})
}
