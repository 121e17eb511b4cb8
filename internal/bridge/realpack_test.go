package bridge

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// TestRealPublishedPack serves @framers/agentos-ext-web-search 1.1.1 as npm publishes it —
// mirrored with its dependencies into a Verdaccio from guard's lockfile, installed with real
// npm — and calls it with the MCP TypeScript SDK client: its tools list, arguments refused as
// the AgentOS executor refuses them, and a search that reaches a SearXNG on the loopback at
// call time (the pack loaded with the network refused). With --offline the same search fails
// as the tool's own error and nothing reaches the server.
func TestRealPublishedPack(t *testing.T) {
	t.Parallel() // most of its time is a CLI or npm starting; it shares nothing with the other tests
	reg := testenv.Verdaccio(t)
	testenv.Mirror(t, reg, filepath.Join(testenv.RepoRoot(t), "testdata", "guard", "mirror", "package-lock.json"))
	project := t.TempDir()
	testenv.WriteFiles(t, project, map[string]string{"package.json": `{"name":"bridge-real-pack","private":true,"type":"module"}`})
	testenv.Run(t, project, reg.NPMEnv(), "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--legacy-peer-deps", "@framers/agentos-ext-web-search@1.1.1")
	dir := filepath.Join(project, "node_modules", "@framers", "agentos-ext-web-search")
	if _, err := os.Stat(filepath.Join(dir, "dist", "index.js")); err != nil {
		t.Fatalf("the published pack did not install: %v", err)
	}

	var hits atomic.Int32
	var lastQuery atomic.Value
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		lastQuery.Store(r.URL.Query().Get("q"))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"results": []map[string]string{
			{"title": "plaios", "url": "https://example.org/plaios", "content": "one"},
			{"title": "packs", "url": "https://example.org/packs", "content": "two"},
			{"title": "tools", "url": "https://example.org/tools", "content": "three"},
		}})
	}))
	defer searx.Close()

	steps := []map[string]any{
		{"op": "list"},
		{"op": "call", "name": "web_search", "args": map[string]any{"query": "x", "maxResults": "0", "provider": "bing"}},
		{"op": "call", "name": "web_search", "args": map[string]any{"query": 42, "provider": "searxng", "maxResults": "2"}},
	}
	// The pack reads SEARXNG_URL, which its manifest does not declare: the child gets only
	// declared variables, so it is passed as a secret of its own (--secret searxng.url=SEARXNG_URL).
	rep := runClient(t, dir, map[string]string{"SEARXNG_URL": searx.URL, "PLAIOS_BRIDGE_TEST_SECRET": "searxng.url=SEARXNG_URL"}, steps)
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(rep.Steps[0].Result, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "fact_check,research_aggregate,web_search" {
		t.Errorf("tools: %v", names)
	}
	var r callResult
	_ = json.Unmarshal(rep.Steps[1].Result, &r)
	if !r.IsError || r.text() != `Invalid arguments for tool 'web_search'. Validation failed against input schema: /maxResults must be >= 1; /provider must be equal to one of the allowed values` {
		t.Errorf("refused arguments: %+v", r)
	}
	if !rep.Steps[2].OK {
		t.Fatalf("the search failed: %+v\n%s", rep.Steps[2].Error, rep.Stderr)
	}
	r = callResult{}
	_ = json.Unmarshal(rep.Steps[2].Result, &r)
	var out struct {
		Provider string `json:"provider"`
		Results  []struct {
			Title string `json:"title"`
		} `json:"results"`
	}
	if r.IsError || json.Unmarshal([]byte(r.text()), &out) != nil || out.Provider != "searxng" || len(out.Results) != 2 || out.Results[0].Title != "plaios" {
		t.Errorf("the search: %+v", r)
	}
	if hits.Load() != 1 || lastQuery.Load() != "42" {
		t.Errorf("SearXNG saw %d requests, query %v", hits.Load(), lastQuery.Load())
	}

	// Offline: the tool's fetch is refused, and says so as its own failure.
	rep = runClient(t, dir, map[string]string{"SEARXNG_URL": searx.URL, "PLAIOS_BRIDGE_TEST_SECRET": "searxng.url=SEARXNG_URL", "PLAIOS_BRIDGE_TEST_OFFLINE": "1"}, steps[2:])
	r = callResult{}
	_ = json.Unmarshal(rep.Steps[0].Result, &r)
	if !r.IsError || !strings.Contains(r.text(), "fetch failed") {
		t.Errorf("offline search: %+v\n%s", r, rep.Stderr)
	}
	if hits.Load() != 1 {
		t.Errorf("the offline search reached SearXNG")
	}
}
