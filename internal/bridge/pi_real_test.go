package bridge

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/testenv"
)

// fakeModel is an OpenAI-compatible chat completions endpoint that plays the model: its first
// answer calls the pack's tool twice (one call that succeeds, one the tool refuses), its second
// answer, once the tool results are in the conversation, is plain text. It records what Pi sent.
type fakeModel struct {
	mu       sync.Mutex
	requests []map[string]any
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if r.URL.Path != "/v1/chat/completions" || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"error":{"message":"not a chat completion"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	turn := len(f.requests)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("chatcmpl-%d", turn), "object": "chat.completion.chunk", "created": 1796200000,
			"model": "fake-model", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	call := func(i int, id, args string) map[string]any {
		return map[string]any{"index": i, "id": id, "type": "function", "function": map[string]any{"name": "pi_weather", "arguments": args}}
	}
	if turn == 1 {
		chunk(map[string]any{"role": "assistant", "tool_calls": []any{call(0, "call_paris", `{"city":"Paris","hot":true}`)}}, nil)
		chunk(map[string]any{"tool_calls": []any{call(1, "call_atlantis", `{"city":"Atlantis"}`)}}, nil)
		chunk(map[string]any{}, "tool_calls")
	} else {
		chunk(map[string]any{"role": "assistant", "content": "Paris is hot; Atlantis has no forecast."}, nil)
		chunk(map[string]any{}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// TestPiExportLoadsInTheRealPi: a Pi extension exported with `export pi` is installed as a
// package by the real Pi (`pi install <dir> -l`), which loads its tool, offers it to the model
// with the extension's schema, runs it when the model calls it, and reports the tool's own
// failure as an error result.
func TestPiExportLoadsInTheRealPi(t *testing.T) {
	t.Parallel() // most of its time is a CLI or npm starting; it shares nothing with the other tests
	bin, agentDir, env := testenv.Pi(t)
	root := t.TempDir()
	ext := filepath.Join(root, "pi-weather")
	testenv.CopyTree(t, fixtureDir(t, "pi-ext"), ext)

	p, err := Open(ext, pack.Pi, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := PiPackage(p, PiEntry(p))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Changed() || r.Entry != "./dist/index.js" {
		t.Fatalf("export pi: changed %v, entry %q", r.Changed(), r.Entry)
	}
	if err := WriteFileAtomic(r.File, r.New); err != nil {
		t.Fatal(err)
	}

	model := &fakeModel{}
	srv := httptest.NewServer(model)
	defer srv.Close()
	models := fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"test-key",
"models":[{"id":"fake-model","name":"Fake","cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0}}]}}}`, srv.URL+"/v1")
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}

	project := filepath.Join(root, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := testenv.RunErr(project, env, bin, "install", ext, "-l"); err != nil {
		t.Fatalf("pi install %s -l: %v\n%s", ext, err, out)
	}
	out, err := testenv.RunErr(project, env, bin, "--offline", "--no-session", "--approve", "--no-builtin-tools",
		"--provider", "fake", "--model", "fake-model", "--mode", "json", "-p", "What is the weather in Paris and in Atlantis?")
	if err != nil {
		t.Fatalf("pi -p: %v\n%s", err, out)
	}

	// What the model was offered: the extension's tool with its own schema.
	if len(model.requests) != 2 {
		t.Fatalf("the model was asked %d times, want 2 (a tool call, then the answer)\n%s", len(model.requests), out)
	}
	var offered map[string]any
	tools, _ := model.requests[0]["tools"].([]any)
	for _, tl := range tools {
		fn, _ := tl.(map[string]any)["function"].(map[string]any)
		if fn["name"] == "pi_weather" {
			offered = fn
		}
	}
	if offered == nil {
		t.Fatalf("pi_weather was not offered to the model; tools: %v", tools)
	}
	params, _ := json.Marshal(offered["parameters"])
	for _, want := range []string{`"city":{"type":"string"}`, `"required":["city"]`, `"hot":{"default":false,"type":"boolean"}`} {
		if !strings.Contains(string(params), want) {
			t.Errorf("the offered parameters %s lack %s", params, want)
		}
	}
	if offered["description"] != "The weather for a city." {
		t.Errorf("offered description %q", offered["description"])
	}

	// What Pi did with the calls, from its JSON event stream.
	results := map[string]struct {
		text    string
		isError bool
	}{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Type       string `json:"type"`
			ToolCallID string `json:"toolCallId"`
			IsError    bool   `json:"isError"`
			Result     struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != "tool_execution_end" {
			continue
		}
		var text []string
		for _, c := range ev.Result.Content {
			text = append(text, c.Text)
		}
		results[ev.ToolCallID] = struct {
			text    string
			isError bool
		}{strings.Join(text, ""), ev.IsError}
	}
	if r := results["call_paris"]; r.isError || r.text != "hot in Paris" {
		t.Errorf("the Paris call gave %+v, want the tool's text \"hot in Paris\"", r)
	}
	if r := results["call_atlantis"]; !r.isError || !strings.Contains(r.text, "no weather under the sea") {
		t.Errorf("the Atlantis call gave %+v, want an error result with the tool's message", r)
	}
	// And the results went back to the model.
	second, _ := json.Marshal(model.requests[1]["messages"])
	for _, want := range []string{"hot in Paris", "no weather under the sea"} {
		if !strings.Contains(string(second), want) {
			t.Errorf("the second request to the model lacks %q: %s", want, second)
		}
	}
}
