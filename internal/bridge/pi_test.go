package bridge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/internal/workspace"
)

// TestPiPackage: export pi changes only the bytes of the Pi fields, in the layout the file
// already has, and a second run changes nothing. The peers it adds are the Pi core packages
// the shipped code imports (not those only a declaration file, a bundled package, a README or
// a string that is no import names): published @aliou/pi-processes, which imports four, failed `export pi --check` for
// lacking the fifth.
func TestPiPackage(t *testing.T) {
	// A specifier split across two of the scan's 64 KiB reads.
	split := "//" + strings.Repeat("x", 64<<10-14) + "\nimport 'typebox';\n"
	if i := strings.Index(split, "'typebox'"); i >= 64<<10 || i+len("'typebox'") <= 64<<10 {
		t.Fatalf("the specifier is at %d, not across the first read", i)
	}
	cases := []struct {
		name, in, want string
		files          map[string]string
		changes        int
	}{
		{
			name: "nothing yet, four spaces",
			in:   "{\n    \"name\": \"@x/pi-a\",\n    \"main\": \"dist/index.js\",\n    \"keywords\": [\"a\"]\n}\n",
			files: map[string]string{
				"dist/index.js":   "import { Type } from \"typebox\";\nimport { stream } from '@earendil-works/pi-ai/dist/stream.js';\n",
				"dist/index.d.ts": "import type { ExtensionAPI } from \"@earendil-works/pi-coding-agent\";\n",
				"README.md":       "Uses \"@earendil-works/pi-tui\".\n",
			},
			want:    "{\n    \"name\": \"@x/pi-a\",\n    \"main\": \"dist/index.js\",\n    \"keywords\": [\"a\", \"pi-package\"],\n    \"pi\": {\n        \"extensions\": [\n            \"./dist/index.js\"\n        ]\n    },\n    \"peerDependencies\": {\n        \"@earendil-works/pi-ai\": \"*\",\n        \"typebox\": \"*\"\n    }\n}\n",
			changes: 3,
		},
		{
			name:    "some peers, multi-line keywords, tabs, an existing pi field",
			in:      "{\n\t\"name\": \"@x/pi-b\",\n\t\"keywords\": [\n\t\t\"b\"\n\t],\n\t\"pi\": {\"extensions\": [\"./lib/main.js\"]},\n\t\"peerDependencies\": {\n\t\t\"typebox\": \"^1.0.0\",\n\t\t\"@earendil-works/pi-ai\": \"*\"\n\t}\n}\n",
			files:   map[string]string{"lib/main.js": "const { x } = require('@earendil-works/pi-coding-agent');\nconst tui = require(\"@earendil-works/pi-tui\");\n"},
			want:    "{\n\t\"name\": \"@x/pi-b\",\n\t\"keywords\": [\n\t\t\"b\",\n\t\t\"pi-package\"\n\t],\n\t\"pi\": {\"extensions\": [\"./lib/main.js\"]},\n\t\"peerDependencies\": {\n\t\t\"typebox\": \"*\",\n\t\t\"@earendil-works/pi-ai\": \"*\",\n\t\t\"@earendil-works/pi-coding-agent\": \"*\",\n\t\t\"@earendil-works/pi-tui\": \"*\"\n\t}\n}\n",
			changes: 4,
		},
		{
			name:    "empty objects and arrays, CRLF",
			in:      "{\r\n  \"name\": \"@x/pi-c\",\r\n  \"exports\": {\".\": {\"import\": \"./out/x.js\"}},\r\n  \"keywords\": [],\r\n  \"peerDependencies\": {}\r\n}\r\n",
			files:   map[string]string{"out/x.js": "const core = await import(`@earendil-works/pi-agent-core`);\n"},
			want:    "{\r\n  \"name\": \"@x/pi-c\",\r\n  \"exports\": {\".\": {\"import\": \"./out/x.js\"}},\r\n  \"keywords\": [\"pi-package\"],\r\n  \"peerDependencies\": {\r\n    \"@earendil-works/pi-agent-core\": \"*\"\r\n  },\r\n  \"pi\": {\r\n    \"extensions\": [\r\n      \"./out/x.js\"\r\n    ]\r\n  }\r\n}\r\n",
			changes: 3,
		},
		{
			name:    "a specifier across two reads",
			in:      "{\n  \"name\": \"@x/pi-d\",\n  \"keywords\": [\"pi-package\"],\n  \"pi\": {\"extensions\": [\"./index.js\"]}\n}\n",
			files:   map[string]string{"index.js": split},
			want:    "{\n  \"name\": \"@x/pi-d\",\n  \"keywords\": [\"pi-package\"],\n  \"pi\": {\"extensions\": [\"./index.js\"]},\n  \"peerDependencies\": {\n    \"typebox\": \"*\"\n  }\n}\n",
			changes: 1,
		},
		{
			// A string that names a core package is no import (@apolosan/unified-process lists
			// 'typebox' among test frameworks' names); a minified import is one.
			name: "names that are not imports",
			in:   "{\n  \"name\": \"@x/pi-f\",\n  \"keywords\": [\"pi-package\"],\n  \"pi\": {\"extensions\": [\"./index.js\"]}\n}\n",
			files: map[string]string{"index.js": "const vendors = new Set(['vitest', 'typebox']);\nconst hosts = [\"@earendil-works/pi-tui\"];\n" +
				"import{Type as e}from\"@earendil-works/pi-ai\";export default function(p){}\n"},
			want:    "{\n  \"name\": \"@x/pi-f\",\n  \"keywords\": [\"pi-package\"],\n  \"pi\": {\"extensions\": [\"./index.js\"]},\n  \"peerDependencies\": {\n    \"@earendil-works/pi-ai\": \"*\"\n  }\n}\n",
			changes: 1,
		},
		{
			// Pi's own example extensions import nothing of Pi's: they use the API they are given.
			name:    "no core package imported",
			in:      "{\n  \"name\": \"@x/pi-e\",\n  \"keywords\": [\"pi-package\"],\n  \"pi\": {\"extensions\": [\"./index.js\"]},\n  \"dependencies\": {\"ms\": \"2.1.3\"}\n}\n",
			files:   map[string]string{"index.js": "import ms from 'ms';\nexport default function (pi) { pi.on('session_start', () => ms('1s')); }\n"},
			want:    "{\n  \"name\": \"@x/pi-e\",\n  \"keywords\": [\"pi-package\"],\n  \"pi\": {\"extensions\": [\"./index.js\"]},\n  \"dependencies\": {\"ms\": \"2.1.3\"}\n}\n",
			changes: 0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			testenv.WriteFiles(t, dir, c.files)
			if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(c.in), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := Open(dir, pack.Pi, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := PiPackage(p, PiEntry(p))
			if err != nil {
				t.Fatal(err)
			}
			if string(r.New) != c.want || len(r.Changes) != c.changes {
				t.Errorf("got (%d changes: %q):\n%s\nwant:\n%s", len(r.Changes), r.Changes, r.New, c.want)
			}
			if err := os.WriteFile(filepath.Join(dir, "package.json"), r.New, 0o644); err != nil {
				t.Fatal(err)
			}
			p, _ = Open(dir, pack.Pi, nil)
			again, err := PiPackage(p, PiEntry(p))
			if err != nil || again.Changed() {
				t.Errorf("a second run changes %q (%v)", again.Changes, err)
			}
		})
	}
}

// TestLoopbackFixture: mcp serve and export hold a pack to what guard does while it loads: one
// that tries the loopback does not load, with the sentence naming the fixture key, unless its
// fixture says `loopback: true`; any other address fails it either way.
func TestLoopbackFixture(t *testing.T) {
	t.Parallel()
	ext := func(url string) string {
		return `await fetch('` + url + `').catch(() => {});
export default function (pi) {
  pi.registerTool({ name: 'models', label: 'Models', description: 'Local models.', parameters: { type: 'object', properties: {} },
    async execute() { return { content: [] }; } });
}
`
	}
	for _, c := range []struct {
		name, url string
		loopback  bool
		reason    string // "" when it loads
	}{
		{"loopback refused", "http://127.0.0.1:8000/v1/models", false, "reached for the network while loading or constructing: fetch http://127.0.0.1:8000/v1/models; a pack whose work is finding a server on the user's own machine may try the loopback: give its folder `loopback: true` in fixtures"},
		{"loopback allowed", "http://127.0.0.1:8000/v1/models", true, ""},
		{"beyond the loopback", "http://192.0.2.7:8000/v1/models", true, "reached for the network while loading or constructing: fetch http://192.0.2.7:8000/v1/models"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			// As root the child runs as nobody, which must reach what it is shown.
			os.Chmod(base, 0o755)
			os.Chmod(filepath.Dir(base), 0o755)
			dir := filepath.Join(base, "local-models")
			testenv.WriteFiles(t, dir, map[string]string{
				"package.json": `{"name":"local-models","version":"0.1.0","type":"module","keywords":["pi-package"],"pi":{"extensions":["./ext/index.js"]}}`,
				"ext/index.js": ext(c.url),
			})
			p, err := Open(dir, pack.None, map[string]workspace.Fixture{".": {Loopback: c.loopback}})
			if err != nil {
				t.Fatal(err)
			}
			if p.Fixture.Loopback != c.loopback {
				t.Fatalf("the fixture's loopback is %v", p.Fixture.Loopback)
			}
			l, err := NewLoader(context.Background(), &Loader{Pack: p})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			res, err := Load(context.Background(), l)
			switch {
			case c.reason == "" && (err != nil || len(res.Tools) != 1):
				t.Fatalf("did not load: %v", err)
			case c.reason != "" && (err == nil || err.Error() != c.reason):
				t.Fatalf("error %v\nwant %s", err, c.reason)
			}
		})
	}
}

// TestPiHostBesideThePack: a TypeScript Pi extension loads in mcp serve's and export's child
// with the Pi the pack's workspace has installed (here linked from the test cache), found as
// node finds it from the pack: the child's project links only the pack, and the extension
// needs Pi's loader (jiti) and its typebox. Two layouts: Pi in the pack's own node_modules (a
// pack's folder in a workspace; published pi-web-access 0.28.0 did not load, "… is TypeScript,
// which Pi compiles with jiti …"), and the pack installed as a dependency of a project, its own
// dependency hoisted beside it (`npm install pi-web-access`, then `plaios mcp serve
// node_modules/pi-web-access`, with the Pi 0.99.1 npm installed beside it: its jiti resolved
// the extension's imports from the project's link to the pack instead of its real file,
// "Cannot find module 'p-limit'"; the pinned Pi 1.6.0 canonicalizes the path itself, so here
// this layout holds what the child is shown, and the harness hands Pi real paths either way).
func TestPiHostBesideThePack(t *testing.T) {
	t.Parallel()
	piBin, _, _ := testenv.Pi(t)
	piDir := filepath.Join(filepath.Dir(filepath.Dir(piBin)), "@earendil-works", "pi-coding-agent")
	for _, installed := range []bool{false, true} {
		name := "in-a-workspace"
		if installed {
			name = "installed-as-a-dependency"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			// As root the child runs as nobody, which must reach what it is shown.
			os.Chmod(base, 0o755)
			os.Chmod(filepath.Dir(base), 0o755)
			dir, modules := filepath.Join(base, "weather"), filepath.Join(base, "weather", "node_modules")
			if installed {
				modules = filepath.Join(base, "project", "node_modules")
				dir = filepath.Join(modules, "weather")
			}
			testenv.WriteFiles(t, dir, map[string]string{
				"package.json": `{"name":"weather","version":"0.1.0","type":"module","keywords":["pi-package"],"pi":{"extensions":["./extensions/index.ts"]},"dependencies":{"units":"1.0.0"},"peerDependencies":{"@earendil-works/pi-coding-agent":"*","typebox":"*"}}`,
				"extensions/index.ts": `import { Type } from 'typebox';
import { celsius } from 'units';
export default function (pi: { registerTool(t: unknown): void }): void {
  pi.registerTool({ name: 'weather_' + celsius, label: 'Weather', description: 'The weather.',
    parameters: Type.Object({ city: Type.String() }),
    async execute(_id: string, p: { city: string }) { return { content: [{ type: 'text', text: p.city }], details: {} }; } });
}
`,
			})
			testenv.WriteFiles(t, filepath.Join(modules, "units"), map[string]string{
				"package.json": `{"name":"units","version":"1.0.0","type":"module","exports":"./index.js"}`,
				"index.js":     "export const celsius = 'C';\n",
			})
			link := filepath.Join(modules, "@earendil-works", "pi-coding-agent")
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(piDir, link); err != nil {
				t.Fatal(err)
			}
			p, err := Open(dir, pack.None, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := loadWith(t, &Loader{Pack: p, Node: filepath.Join(testenv.Node24(t), "node")})
			if len(res.Tools) != 1 || res.Tools[0].Name != "weather_C" || !strings.Contains(string(res.Tools[0].InputSchema), `"city"`) {
				t.Fatalf("tools %+v", res.Tools)
			}
		})
	}
}

// TestPiHostOnPath: a TypeScript Pi extension installed as Pi installs a package (`pi install`:
// npm --legacy-peer-deps, no Pi beside it; Pi lends it its own core packages) loads in mcp
// serve's and export's child with the Pi whose pi command is on PATH, which the child is shown
// (read-only, with the node_modules it lies in); with no pi on PATH the sentence says what
// plaios looked for.
func TestPiHostOnPath(t *testing.T) {
	t.Parallel()
	piBin, _, _ := testenv.Pi(t)
	base := t.TempDir()
	// As root the child runs as nobody, which must reach what it is shown.
	os.Chmod(base, 0o755)
	os.Chmod(filepath.Dir(base), 0o755)
	dir := filepath.Join(base, "agent", "npm", "node_modules", "weather")
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json": `{"name":"weather","version":"0.1.0","type":"module","keywords":["pi-package"],"pi":{"extensions":["./index.ts"]},"peerDependencies":{"typebox":"*"}}`,
		"index.ts": `import { Type } from 'typebox';
export default function (pi: { registerTool(t: unknown): void }): void {
  pi.registerTool({ name: 'weather', label: 'Weather', description: 'The weather.', parameters: Type.Object({ city: Type.String() }),
    async execute(_id: string, p: { city: string }) { return { content: [{ type: 'text', text: p.city }], details: {} }; } });
}
`,
	})
	bin := filepath.Join(base, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(piBin, filepath.Join(bin, "pi")); err != nil {
		t.Fatal(err)
	}
	p, err := Open(dir, pack.None, nil)
	if err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(testenv.Node24(t), "node")
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	res := loadWith(t, &Loader{Pack: p, Node: node, Getenv: onlyPath(path)})
	if len(res.Tools) != 1 || res.Tools[0].Name != "weather" {
		t.Fatalf("with pi on PATH: tools %+v", res.Tools)
	}
	l, err := NewLoader(context.Background(), &Loader{Pack: p, Node: node, Getenv: onlyPath("/usr/bin:/bin")})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = Load(context.Background(), l)
	want := "plaios loads it with the Pi installed beside the pack (@earendil-works/pi-coding-agent in a node_modules above it) or the one whose pi command is on PATH, and finds neither: install Pi"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("without pi on PATH: %v\nwant the sentence to end %q", err, want)
	}

	// A tool run by mcp serve gets the context of the session Pi started (its session manager,
	// no UI), as in Pi, not an inert stand-in.
	session := filepath.Join(base, "agent", "npm", "node_modules", "session-id")
	testenv.WriteFiles(t, session, map[string]string{
		"package.json": `{"name":"session-id","version":"0.1.0","type":"module","keywords":["pi-package"],"pi":{"extensions":["./index.js"]}}`,
		"index.js": `export default function (pi) {
  pi.registerTool({ name: 'session_id', label: 'Session', description: 'The session.', parameters: { type: 'object', properties: {} },
    async execute(_id, _p, _signal, _update, ctx) {
      const id = ctx.sessionManager.getSessionId();
      return { content: [{ type: 'text', text: typeof id + ' ' + (id.length > 8) + ' ' + ctx.hasUI }], details: {} };
    } });
}
`,
	})
	sp, err := Open(session, pack.None, nil)
	if err != nil {
		t.Fatal(err)
	}
	sl, err := NewLoader(context.Background(), &Loader{Pack: sp, Node: node, Getenv: onlyPath(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Close()
	child, _, err := sl.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	reply, err := child.Call(context.Background(), "session_id", json.RawMessage(`{}`))
	if err != nil || !reply.OK || !strings.Contains(string(reply.Content), `"text":"string true false"`) {
		t.Fatalf("a tool's context: %+v, %v", reply, err)
	}

	// A package that needs what it lists only as a peer (@0xkobold/pi-ollama and ollama):
	// pi install left it without, and Pi cannot load it; the sentence says why.
	peer := filepath.Join(base, "agent", "npm", "node_modules", "local-models")
	testenv.WriteFiles(t, peer, map[string]string{
		"package.json": `{"name":"local-models","version":"0.1.0","type":"module","keywords":["pi-package"],"pi":{"extensions":["./dist/index.js"]},
"peerDependencies":{"@earendil-works/pi-coding-agent":"*","ollama":"^0.5.0"}}`,
		"dist/index.js": "import { Ollama } from 'ollama';\nexport default function (pi) { pi.on('session_start', () => new Ollama()); }\n",
	})
	pp, err := Open(peer, pack.None, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err = NewLoader(context.Background(), &Loader{Pack: pp, Node: node, Getenv: onlyPath(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = Load(context.Background(), l)
	want = "(ollama is only a peer dependency, and pi install installs no peer: list it in dependencies)"
	if err == nil || !strings.Contains(err.Error(), "Pi cannot load local-models/dist/index.js") || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("a missing peer: %v\nwant the sentence to end %q", err, want)
	}
}

// onlyPath is a Getenv that knows only PATH, set to path.
func onlyPath(path string) func(string) string {
	return func(k string) string {
		if k == "PATH" {
			return path
		}
		return ""
	}
}
