package bridge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/testenv"
)

func loadFixture(t *testing.T, dir string, force pack.Runtime) (*Pack, *Loaded) {
	t.Helper()
	p, err := Open(dir, force, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, loadWith(t, &Loader{Pack: p})
}

// loadWith loads the pack of l, a Loader not yet started, and closes it.
func loadWith(t *testing.T, l *Loader) *Loaded {
	t.Helper()
	l, err := NewLoader(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	res, err := Load(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestOpenClawExportAgreesWithTheRealCLI: the manifest export writes for a defineToolPlugin
// plugin is the one the real `openclaw plugins build` writes, byte for byte, and both the
// real `build --check` and `validate` accept it; before the export, export and the real
// CLI agree that the file is stale.
func TestOpenClawExportAgreesWithTheRealCLI(t *testing.T) {
	t.Parallel() // most of its time is a CLI or npm starting; it shares nothing with the other tests
	bin, env := testenv.OpenClaw(t)
	dir := filepath.Join(t.TempDir(), "weather")
	testenv.CopyTree(t, fixtureDir(t, "openclaw-tool"), dir)
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(filepath.Dir(bin)), "openclaw"), filepath.Join(dir, "node_modules", "openclaw")); err != nil {
		t.Fatal(err)
	}
	openclaw := func(args ...string) (string, error) {
		return testenv.RunErr(dir, env, bin, append([]string{"plugins"}, args...)...)
	}

	p, res := loadFixture(t, dir, pack.None)
	m, err := OpenClawManifest(p, res)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Drift || !m.Metadata || strings.Join(m.Tools, ",") != "weather_now,weather_soon" {
		t.Fatalf("before the export: drift %v, metadata %v, tools %v", m.Drift, m.Metadata, m.Tools)
	}
	if out, err := openclaw("build", "--entry", "./dist/index.js", "--check"); err == nil || !strings.Contains(out, "out of date") {
		t.Fatalf("the real build --check accepted the stale manifest:\n%s", out)
	}
	diff := m.Diff()
	for _, want := range []string{"-  \"version\": \"1.0.0\",", "+  \"version\": \"2.1.0\",", "-      \"weather_old\"", "+      \"weather_soon\""} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diff lacks %q:\n%s", want, diff)
		}
	}
	if err := WriteFileAtomic(m.File, m.New); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i, args := range [][]string{{"build", "--entry", "./dist/index.js", "--check"}, {"validate", "--entry", "./dist/index.js"}} {
		wg.Add(1)
		go func(i int, args []string) {
			defer wg.Done()
			outs[i], errs[i] = openclaw(args...)
		}(i, args)
	}
	wg.Wait()
	if errs[0] != nil || !strings.Contains(outs[0], "Plugin metadata is up to date.") {
		t.Errorf("openclaw plugins build --check: %v\n%s", errs[0], outs[0])
	}
	if errs[1] != nil || !strings.Contains(outs[1], "Plugin weather is valid.") {
		t.Errorf("openclaw plugins validate: %v\n%s", errs[1], outs[1])
	}
	if out, err := openclaw("build", "--entry", "./dist/index.js"); err != nil {
		t.Fatalf("openclaw plugins build: %v\n%s", err, out)
	}
	written, _ := os.ReadFile(m.File)
	if string(written) != string(m.New) {
		t.Errorf("openclaw plugins build writes\n%s\nexport wrote\n%s", written, m.New)
	}
	// Once written, export sees no drift.
	p, res = loadFixture(t, dir, pack.None)
	if m, err = OpenClawManifest(p, res); err != nil || m.Drift {
		t.Errorf("after the export: drift %v (%v)", m != nil && m.Drift, err)
	}
}

// TestOpenClawPluginEntry: a definePluginEntry plugin, whose tools are only known by
// registering them, gets its manifest from the entry and its registrations.
func TestOpenClawPluginEntry(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "echoes")
	testenv.CopyTree(t, fixtureDir(t, "openclaw-entry"), dir)
	p, res := loadFixture(t, dir, pack.OpenClaw)
	m, err := OpenClawManifest(p, res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "id": "echoes",
  "name": "Echoes",
  "description": "Tools registered by hand.",
  "version": "0.3.0",
  "configSchema": {
    "type": "object",
    "additionalProperties": false,
    "properties": {}
  },
  "contracts": {
    "tools": [
      "echo_upper",
      "echo_fail"
    ]
  },
  "toolMetadata": {
    "echo_fail": {
      "optional": true
    }
  }
}
`
	if string(m.New) != want || m.Metadata || !m.Drift || m.Old != nil {
		t.Errorf("manifest:\n%s", m.New)
	}
}

func TestStringifyAsJavaScript(t *testing.T) {
	v, err := parseOrdered([]byte(`{"b":[],"a":{},"n":[1e21,1.5e-7,0.000001,-0,100,2.50],"s":"é\u2028\"<>&\u0001","z":[{"x":null,"y":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"b\": [],\n  \"a\": {},\n  \"n\": [\n    1e+21,\n    1.5e-7,\n    0.000001,\n    0,\n    100,\n    2.5\n  ],\n  \"s\": \"é\u2028\\\"<>&\\u0001\",\n  \"z\": [\n    {\n      \"x\": null,\n      \"y\": true\n    }\n  ]\n}\n"
	if got := string(stringify(v)); got != want {
		t.Errorf("stringify:\n%s\nwant:\n%s", got, want)
	}
}

// TestHostLinkedFromOutside: an OpenClaw plugin whose openclaw is linked from a node_modules
// outside the pack (here the pinned openclaw in the test cache; a shared store or a global
// install for a user) loads in the bridge's child as in guard's: the child sees that whole
// node_modules, where openclaw's own dependencies are, not only the linked folder. Its entry
// imports an SDK module that needs one of them (openclaw/plugin-sdk/time-runtime imports
// @openclaw/fs-safe), which failed to load before with `Cannot find package '@openclaw/fs-safe'`.
func TestHostLinkedFromOutside(t *testing.T) {
	t.Parallel()
	bin, _ := testenv.OpenClaw(t)
	base := t.TempDir()
	// As root the child runs as nobody, which must reach what it is shown.
	os.Chmod(base, 0o755)
	os.Chmod(filepath.Dir(base), 0o755)
	dir := filepath.Join(base, "clock")
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json":         `{"name":"@acme/clock","version":"0.1.0","type":"module","files":["dist","openclaw.plugin.json"],"peerDependencies":{"openclaw":">=2026.5.17"},"openclaw":{"extensions":["./dist/index.js"]}}`,
		"openclaw.plugin.json": `{"id":"clock","name":"clock","description":"clock","version":"0.1.0","configSchema":{"type":"object","additionalProperties":false},"contracts":{"tools":["clock_now"]}}`,
		"dist/index.js": `import { formatUtcTimestamp } from 'openclaw/plugin-sdk/time-runtime';
export default { id: 'clock', name: 'Clock', description: 'Clock.', register(api) {
  api.registerTool({ name: 'clock_now', label: 'Now', description: 'The time, as ' + typeof formatUtcTimestamp + ' formats it.', parameters: { type: 'object', properties: {} }, execute: async () => ({ content: [] }) });
} };
`,
	})
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(filepath.Dir(bin)), "openclaw"), filepath.Join(dir, "node_modules", "openclaw")); err != nil {
		t.Fatal(err)
	}
	p, err := Open(dir, pack.None, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := loadWith(t, &Loader{Pack: p, Node: filepath.Join(testenv.Node24(t), "node")})
	if len(res.Tools) != 1 || res.Tools[0].Description != "The time, as function formats it." {
		t.Fatalf("tools %+v", res.Tools)
	}
}

// TestOpenClawExportKeepsTheAuthorsManifest: a plugin whose entry is not a defineToolPlugin
// (definePluginEntry, register(api)) and that has a manifest of its own, laid out as the
// official @openclaw/* plugins are (TypeScript source in openclaw.extensions, the built file in
// openclaw.runtimeExtensions). openclaw's own `plugins build` refuses such an entry ("does not
// expose tool or feature authoring metadata"), so the manifest is its author's: export openclaw
// finds the built entry through runtimeExtensions (it said "the built entry ./index.ts does not
// exist" of every official plugin), keeps the name, description, configSchema, other contracts
// and the declared tool the entry registers only when configured, and adds what openclaw would
// drop: the registered tool the manifest does not declare, with its optional flag. Before, it
// rewrote all 34 official plugins' manifests (names and descriptions from the entry, their
// config schemas emptied, @openclaw/whatsapp's call tool dropped); each is up to date now.
func TestOpenClawExportKeepsTheAuthorsManifest(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "echoes")
	testenv.CopyTree(t, fixtureDir(t, "openclaw-entry"), dir)
	manifest := `{
  // The author's own.
  id: "echoes",
  name: "Echoes, by hand",
  description: "What the author says of it.",
  channels: ["echo"],
  configSchema: { type: "object", additionalProperties: false, properties: { loud: { type: "boolean" } } },
  contracts: { tools: ["echo_upper", "echo_when_configured"], webSearchProviders: ["echo"] },
}
`
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json": `{
  "name": "@bridge-fixture/openclaw-entry",
  "version": "0.3.0",
  "type": "module",
  "files": ["dist", "openclaw.plugin.json"],
  "peerDependencies": { "openclaw": ">=2026.5.17" },
  "openclaw": { "extensions": ["./index.ts"], "runtimeExtensions": ["./dist/index.js"] }
}
`,
		pack.OpenClawManifest: manifest,
	})
	run := func(check bool) *OpenClawExportResult {
		t.Helper()
		res, err := OpenClawExport{Target: Target{WorkDir: dir, Path: "."}, Check: check}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(true)
	want := `{
  "id": "echoes",
  "name": "Echoes, by hand",
  "description": "What the author says of it.",
  "channels": [
    "echo"
  ],
  "configSchema": {
    "type": "object",
    "additionalProperties": false,
    "properties": {
      "loud": {
        "type": "boolean"
      }
    }
  },
  "contracts": {
    "tools": [
      "echo_upper",
      "echo_when_configured",
      "echo_fail"
    ],
    "webSearchProviders": [
      "echo"
    ]
  },
  "toolMetadata": {
    "echo_fail": {
      "optional": true
    }
  }
}
`
	if !res.Drift || res.Written || string(res.New) != want {
		t.Fatalf("--check: drift %v, written %v, manifest\n%s", res.Drift, res.Written, res.New)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, pack.OpenClawManifest)); string(data) != manifest {
		t.Fatalf("--check changed the file:\n%s", data)
	}
	if res = run(false); !res.Written {
		t.Fatal("export did not write the manifest")
	}
	if res = run(true); res.Drift {
		t.Fatalf("after the export: drift\n%s", res.Diff())
	}
}

// TestNoToolWithoutConfiguration: an OpenClaw plugin whose tool factories make nothing without
// their configuration (every official channel plugin: @openclaw/feishu registers fourteen) is
// refused by export hermes, and served by mcp serve with a warning, in a sentence that names
// the tools and why none is made.
func TestNoToolWithoutConfiguration(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "chat")
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json":        `{"name": "@demo/chat", "version": "1.0.0", "type": "module", "openclaw": {"extensions": ["./dist/index.js"]}}`,
		pack.OpenClawManifest: `{"id": "chat", "configSchema": {"type": "object"}, "contracts": {"tools": ["chat_send", "chat_read"]}}`,
		"dist/index.js": `export default { id: 'chat', name: 'Chat', description: 'A chat channel.', register(api) {
  const made = (name) => ({ name, description: name, parameters: { type: 'object', properties: {} }, async execute() { return { content: [] }; } });
  api.registerTool((ctx) => (ctx.config && ctx.config.channels && ctx.config.channels.chat ? [made('chat_send'), made('chat_read')] : null), { names: ['chat_send', 'chat_read'] });
} };
`,
	})
	want := "@demo/chat exposes no tool to serve: the tools it registers (chat_send, chat_read) are made only once it is configured, and an OpenClaw plugin gets no configuration here"
	target := Target{WorkDir: dir, Path: "."}
	_, err := HermesExport{Target: target, Executable: func() (string, error) { return "plaios", nil }}.Run(context.Background())
	if exit.Code(err) != exit.Fail || err.Error() != want {
		t.Errorf("export hermes: %v (exit %d)\nwant %s", err, exit.Code(err), want)
	}
	s, err := Serve{Target: target, Getenv: func(string) string { return "" }}.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Tools()) != 0 || strings.Join(s.Notes(), "\n") != want {
		t.Errorf("mcp serve: tools %v, notes %q", s.Tools(), s.Notes())
	}
}

// TestOpenClawEntryIsWhatOpenClawLoads: the built entry export openclaw loads is the file an
// installed openclaw loads for openclaw.extensions[0] (pack.OpenClawEntries, as guard resolves
// it): runtimeExtensions' when given; for TypeScript source without it, the first built
// candidate that exists, else the first openclaw looks for (so that a plugin not yet built is
// told which file is missing); any other entry as it is.
func TestOpenClawEntryIsWhatOpenClawLoads(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, openclaw string
		files          []string
		want           string
	}{
		{"runtime entry", `{"extensions": ["./index.ts"], "runtimeExtensions": ["./dist/index.js"]}`, nil, "./dist/index.js"},
		{"source built to dist", `{"extensions": ["./src/index.ts"]}`, []string{"dist/index.js"}, "./dist/index.js"},
		{"source built beside it", `{"extensions": ["./src/index.ts"]}`, []string{"src/index.js"}, "./src/index.js"},
		{"source not built", `{"extensions": ["./src/index.ts"]}`, nil, "./dist/index.js"},
		{"javascript entry", `{"extensions": ["./lib/plugin.js"]}`, nil, "./lib/plugin.js"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"package.json": `{"name": "@demo/p", "version": "1.0.0", "openclaw": ` + c.openclaw + `}`}
			for _, f := range c.files {
				files[f] = "export default {};\n"
			}
			testenv.WriteFiles(t, dir, files)
			p, err := Open(dir, pack.OpenClaw, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := OpenClawEntry(p); got != c.want {
				t.Errorf("OpenClawEntry = %q, want %q", got, c.want)
			}
		})
	}
}
