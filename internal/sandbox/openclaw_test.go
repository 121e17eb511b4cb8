package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// The OpenClaw shims the loader serves must have the real SDK's shape: the same export names,
// and plugins defined through them must register the same tools, with the same metadata, as
// through the real openclaw/plugin-sdk (the pinned openclaw, run on Node 24 as it requires).
func TestOpenClawShimsMatchTheRealSDK(t *testing.T) {
	bin, env := testenv.OpenClaw(t)
	real := filepath.Join(filepath.Dir(filepath.Dir(bin)), "openclaw", "dist", "plugin-sdk")
	s := newSandbox(t, Config{Mode: Off})
	shims := filepath.Join(s.Dir(), "node", "openclaw")

	script := `
const [real, shim] = [process.argv[2], process.argv[3]];
const load = async (dir) => ({
  entry: await import(dir + '/plugin-entry' + (dir === real ? '.js' : '.mjs')),
  tool: await import(dir + '/tool-plugin' + (dir === real ? '.js' : '.mjs')),
});
const sdk = { real: await load(real), shim: await load(shim) };
const out = {};
for (const [name, m] of Object.entries(sdk)) {
  const calls = [];
  const api = {
    pluginConfig: { units: 'metric' },
    registerTool(tool, opts) {
      if (typeof tool === 'function') tool = tool({ sandboxed: true });
      calls.push({ name: tool.name, label: tool.label, description: tool.description, parameters: tool.parameters, outputSchema: tool.outputSchema, execute: typeof tool.execute, opts: opts ?? null });
    },
  };
  const params = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
  const toolPlugin = m.tool.defineToolPlugin({
    id: 'weather', name: 'Weather', description: 'Weather tools',
    tools: (tool) => [
      tool({ name: 'weather_now', description: 'Now', parameters: params, execute: async (p) => 'sunny in ' + p.city }),
      tool({ name: 'weather_soon', label: 'Soon', description: 'Soon', parameters: params, optional: true, outputSchema: { type: 'string' }, execute: async () => ({ rain: true }) }),
      tool({ name: 'weather_made', description: 'Made', parameters: params, factory: () => ({ name: 'weather_made', label: 'Made', description: 'Made', parameters: params, execute: async () => ({}) }) }),
    ],
  });
  toolPlugin.register(api);
  const result = await calls[0] && (await (async () => {
    // The wrapped execute of a static tool returns the host's text result.
    const reg = [];
    toolPlugin.register({ pluginConfig: {}, registerTool: (t) => reg.push(t) });
    return reg[0].execute('call-1', { city: 'Treviso' });
  })());
  const entry = m.entry.definePluginEntry({ id: 'x', name: 'X', description: 'd', kind: 'memory', register() {} });
  out[name] = {
    exports: { entry: Object.keys(m.entry).sort(), tool: Object.keys(m.tool).sort() },
    calls,
    metadata: m.tool.getToolPluginMetadata(toolPlugin),
    entryKeys: Object.keys(toolPlugin).sort(),
    entryConfig: toolPlugin.configSchema.jsonSchema,
    plainEntryKeys: Object.keys(entry).sort(),
    plainConfig: entry.configSchema.jsonSchema,
    emptyParse: [entry.configSchema.safeParse(undefined), entry.configSchema.safeParse({ a: 1 }).success],
    symbol: m.tool.toolPluginMetadataSymbol.toString(),
    result,
  };
}
console.log(JSON.stringify(out));
`
	file := filepath.Join(t.TempDir(), "compare.mjs")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", file, real, shims)
	cmd.Env = testenv.ChildEnv(t, env)
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			if p, err := lookIn(strings.TrimPrefix(kv, "PATH="), "node"); err == nil {
				cmd.Path = p
			}
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("compare: %v\n%s", err, out)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("compare printed %s", out)
	}
	var realV, shimV map[string]any
	json.Unmarshal(got["real"], &realV)
	json.Unmarshal(got["shim"], &shimV)
	for _, key := range []string{"exports", "calls", "metadata", "entryKeys", "entryConfig", "plainEntryKeys", "plainConfig", "emptyParse", "symbol", "result"} {
		r, _ := json.Marshal(realV[key])
		s, _ := json.Marshal(shimV[key])
		if string(r) != string(s) {
			t.Errorf("%s differs:\nreal %s\nshim %s", key, r, s)
		}
	}
	if calls, _ := realV["calls"].([]any); len(calls) != 3 {
		t.Fatalf("the real SDK registered %d tools, want 3: %s", len(calls), got["real"])
	}
}

func lookIn(pathList, name string) (string, error) {
	for _, dir := range filepath.SplitList(pathList) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}
