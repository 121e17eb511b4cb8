package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/testenv"
)

// TestPiExtensions: guard finds a Pi package's extensions as Pi 1.6.0 does (a folder's
// index.ts, globs with ! exclusions, no extension at all in a skills package; a file the
// tarball lacks and a package that gives Pi nothing fail, at exact positions) and loads them
// with the extension loader of the workspace's Pi, as Pi itself does. Without a Pi in the
// workspace a JavaScript extension still loads, and a TypeScript one fails with a sentence
// saying what to install.
func TestPiExtensions(t *testing.T) {
	t.Parallel() // see baseOptions
	piBin, _, _ := testenv.Pi(t)
	dir := t.TempDir()
	pkg := func(name, pi string) string {
		return `{"name":"@guard-pi/` + name + `","version":"0.1.0","type":"module","keywords":["pi-package"],"license":"MIT",
"peerDependencies":{"@earendil-works/pi-coding-agent":"*"},"pi":` + pi + `}`
	}
	readme := "# x\n\n```sh\npi install npm:x\n```\n"
	tool := func(name string) string {
		return `export default function (pi) {
  pi.registerTool({ name: '` + name + `', label: '` + name + `', description: 'A tool.', parameters: { type: 'object', properties: {} },
    async execute() { return { content: [{ type: 'text', text: 'ok' }], details: {} }; } });
}
`
	}
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json":                    `{"name":"pi-repo","private":true,"workspaces":["packages/*"]}`,
		"packages/ts-folder/package.json": pkg("ts-folder", `{"extensions":["./extensions"]}`),
		"packages/ts-folder/README.md":    readme,
		// TypeScript that type stripping alone cannot run (an enum), and typebox, which Pi
		// provides to its extensions (the package does not install it): Pi's loader compiles the
		// file with jiti and resolves typebox to its own copy.
		"packages/ts-folder/extensions/index.ts": `import { Type } from 'typebox';
enum Unit { Celsius = 'C', Fahrenheit = 'F' }
interface Params { city: string }
export default function (pi: { registerTool(t: unknown): void }): void {
  const unit: Unit = Unit.Celsius;
  pi.registerTool({ name: 'weather_' + unit, label: 'Weather', description: 'The weather.',
    parameters: Type.Object({ city: Type.String() }),
    async execute(_id: string, p: Params) { return { content: [{ type: 'text', text: p.city }], details: {} }; } });
}
`,
		"packages/globbed/package.json":          pkg("globbed", `{"extensions":["./ext/*.js","!ext/skip.js"]}`),
		"packages/globbed/README.md":             readme,
		"packages/globbed/ext/a.js":              tool("tool_a"),
		"packages/globbed/ext/b.js":              tool("tool_b"),
		"packages/globbed/ext/skip.js":           "throw new Error('Pi never loads this file');\n",
		"packages/skills/package.json":           pkg("skills", `{"skills":["./skills"]}`),
		"packages/skills/README.md":              readme,
		"packages/skills/skills/review/SKILL.md": "---\nname: review\ndescription: Reviews.\n---\nReview the change.\n",
		// A file that is not in the tarball (Pi would skip it without a word), and a package
		// from which Pi loads nothing: both fail, at the entry and at the pi field.
		"packages/missing/package.json": `{"name":"@guard-pi/missing","version":"0.1.0","type":"module","keywords":["pi-package"],"license":"MIT",
"peerDependencies":{"@earendil-works/pi-coding-agent":"*"},
"pi":{"extensions":["./ext/a.js",
  "./ext/gone.js"]}}`,
		"packages/missing/README.md": readme,
		"packages/missing/ext/a.js":  tool("tool_m"),
		"packages/nothing/package.json": `{"name":"@guard-pi/nothing","version":"0.1.0","type":"module","keywords":["pi-package"],"license":"MIT",
"peerDependencies":{"@earendil-works/pi-coding-agent":"*"},
 "pi":{"image":"shot.png"}}`,
		"packages/nothing/README.md": readme,
		// An extension of slash commands and event handlers only, as a workflow package is
		// (@juicesharp/rpiv-pi): Pi loads it, and it works without a tool. One that registers
		// nothing at all loads to no effect.
		"packages/commands/package.json": pkg("commands", `{"extensions":["./ext/index.js"]}`),
		"packages/commands/README.md":    readme,
		"packages/commands/ext/index.js": `export default function (pi) {
  pi.registerCommand('plan', { description: 'Plan the change.', handler: async () => {} });
  pi.on('session_start', async () => {});
}
`,
		"packages/inert/package.json": pkg("inert", `{"extensions":["./ext/index.js"]}`),
		"packages/inert/README.md":    readme,
		"packages/inert/ext/index.js": "export default function (pi) {}\n",
	})
	link := linkPi(t, dir, piBin)
	opts := baseOptions(t, dir)
	opts.All = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	assertRegistered(t, rep, map[string]string{"packages/ts-folder": "weather_C", "packages/globbed": "tool_a,tool_b", "packages/skills": "", "packages/commands": ""})

	for d, want := range map[string]string{
		"packages/missing": "packages/missing/package.json:4:3 pi-extension-missing: the tarball lacks ext/gone.js, which pi.extensions names (Pi skips it without a word)",
		"packages/nothing": "packages/nothing/package.json:3:7 pi-extension-missing: " + pack.PiNothingMessage,
	} {
		r := byDir(rep)[d]
		if r == nil || r.OK {
			t.Fatalf("%s: %+v", d, r)
		}
		var got []string
		for _, x := range r.Diagnostics {
			got = append(got, fmt.Sprintf("%s:%d:%d %s: %s", x.File, x.Line, x.Col, x.Rule, x.Message))
		}
		if strings.Join(got, "\n") != want {
			t.Errorf("%s: findings\n%s\nwant\n%s", d, strings.Join(got, "\n"), want)
		}
	}

	if r := byDir(rep)["packages/inert"]; r == nil || r.OK || !strings.Contains(r.Reason, "registered nothing: no tool, command, event handler") {
		t.Errorf("inert: %+v", r)
	}

	// Without a Pi in the workspace, the TypeScript extension cannot be loaded as Pi loads it.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	opts.All, opts.Only = false, []string{"packages/ts-folder", "packages/globbed", "packages/commands", "packages/inert"}
	rep, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := byDir(rep)["packages/commands"]; r == nil || !r.OK || len(r.Descriptors) != 0 {
		t.Errorf("commands without Pi: %+v", r)
	}
	if r := byDir(rep)["packages/inert"]; r == nil || r.OK || !strings.Contains(r.Reason, "registered nothing: no tool, command, event handler") {
		t.Errorf("inert without Pi: %+v", r)
	}
	if r := byDir(rep)["packages/ts-folder"]; r == nil || r.OK || !strings.Contains(r.Reason, "the extension @guard-pi/ts-folder/extensions/index.ts is TypeScript, which Pi compiles with jiti") {
		t.Errorf("ts-folder without Pi: %+v", r)
	}
	if r := byDir(rep)["packages/globbed"]; r == nil || !r.OK {
		t.Errorf("globbed without Pi: %+v", r)
	}
}

// TestPiPackagesAsPiInstallsThem: guard installs and loads a Pi package as `pi install` and Pi
// do. Pi loads every package with itself, whatever the package names: one that names only the
// former @mariozechner/pi-coding-agent and @sinclair/typebox (which Pi's loader resolves to its
// own copies), and one that names nothing (checkpoint-pi, pi-mermaid, @codersbrew/pi-tools on
// npm) load with the workspace's Pi; Pi's session starts, and a package that registers its
// tools then (pi-blueprint) has them. And pi install installs no peer, so a package that needs
// a package it lists only as a peer (@0xkobold/pi-ollama and ollama) fails, saying so.
func TestPiPackagesAsPiInstallsThem(t *testing.T) {
	t.Parallel() // see baseOptions
	piBin, _, _ := testenv.Pi(t)
	reg := testRegistry(t)
	dep := t.TempDir()
	testenv.WriteFiles(t, dep, map[string]string{
		"package.json": `{"name":"@guard-pi-peer/client","version":"1.0.0","type":"module","main":"index.js"}`,
		"index.js":     "export const ping = () => 'pong';\n",
	})
	reg.Publish(t, dep)

	dir := t.TempDir()
	readme := "# x\n\n```sh\npi install npm:x\n```\n"
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json": `{"name":"pi-repo","private":true,"workspaces":["packages/*"]}`,
		"packages/legacy/package.json": `{"name":"@guard-pi/legacy","version":"0.1.0","type":"module","keywords":["pi-package"],"license":"MIT",
"peerDependencies":{"@mariozechner/pi-coding-agent":"*","@sinclair/typebox":"*"},"pi":{"extensions":["./index.ts"]}}`,
		"packages/legacy/README.md": readme,
		"packages/legacy/index.ts": `import { Type } from '@sinclair/typebox';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
export default function (pi: ExtensionAPI): void {
  pi.registerTool({ name: 'legacy_tool', label: 'Legacy', description: 'A tool.', parameters: Type.Object({ q: Type.String() }),
    async execute() { return { content: [{ type: 'text', text: 'ok' }], details: {} }; } });
}
`,
		"packages/bare/package.json": `{"name":"@guard-pi/bare","version":"0.1.0","type":"module","keywords":["pi-package"],"license":"MIT",
"pi":{"extensions":["./checkpoint.ts"]}}`,
		"packages/bare/README.md": readme,
		"packages/bare/checkpoint.ts": `export default function (pi: { on(e: string, h: () => void): void }): void {
  const saved: string[] = [];
  pi.on('turn_end', () => { saved.push('checkpoint'); });
}
`,
		// Tools registered when Pi's session starts (pi-blueprint), a handler that throws (Pi
		// reports it and goes on), one that starts a server, and one that reads the session Pi
		// gives it.
		"packages/late/package.json": `{"name":"@guard-pi/late","version":"0.1.0","type":"module","keywords":["pi-package"],"license":"MIT",
"peerDependencies":{"@earendil-works/pi-coding-agent":"*"},"pi":{"extensions":["./dist/index.js"]}}`,
		"packages/late/README.md": readme,
		"packages/late/dist/index.js": `import { createServer } from 'node:http';
export default function (pi) {
  pi.on('session_start', () => { throw new Error('no state folder yet'); });
  // A server for a browser on all of the machine's addresses (@mjasnikovs/pi-task's remote
  // view): a listener, not a reach for the network; node looks the address up itself.
  pi.on('session_start', () => { createServer().listen(0, '0.0.0.0'); });
  pi.on('session_start', (event, ctx) => {
    if (event.reason !== 'startup' || ctx.hasUI || typeof ctx.sessionManager.getSessionId() !== 'string') return;
    pi.registerTool({ name: 'late_tool', label: 'Late', description: 'A tool.', parameters: { type: 'object', properties: {} },
      async execute() { return { content: [{ type: 'text', text: 'ok' }], details: {} }; } });
  });
}
`,
		"packages/peer/package.json": `{"name":"@guard-pi/peer","version":"0.1.0","type":"module","keywords":["pi-package"],"license":"MIT",
"peerDependencies":{"@earendil-works/pi-coding-agent":"*","@guard-pi-peer/client":"^1.0.0"},"pi":{"extensions":["./dist/index.js"]}}`,
		"packages/peer/README.md": readme,
		"packages/peer/dist/index.js": `import { ping } from '@guard-pi-peer/client';
export default function (pi) {
  pi.registerTool({ name: 'peer_ping', label: 'Ping', description: 'A tool.', parameters: { type: 'object', properties: {} },
    async execute() { return { content: [{ type: 'text', text: ping() }], details: {} }; } });
}
`,
	})
	linkPi(t, dir, piBin)
	opts := baseOptions(t, dir)
	opts.All = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	assertRegistered(t, rep, map[string]string{"packages/legacy": "legacy_tool", "packages/bare": "", "packages/late": "late_tool"})
	r := byDir(rep)["packages/peer"]
	if r == nil || r.OK || !strings.Contains(r.Reason, "Pi cannot load @guard-pi/peer/dist/index.js") ||
		!strings.HasSuffix(r.Reason, "(@guard-pi-peer/client is only a peer dependency, and pi install installs no peer: list it in dependencies)") {
		t.Errorf("peer: %+v", r)
	}
}

// assertRegistered holds each package folder of want to passing with exactly the tools it
// names, comma-separated, in the order they were registered.
func assertRegistered(t *testing.T, rep *Report, want map[string]string) {
	t.Helper()
	for d, tools := range want {
		r := byDir(rep)[d]
		if r == nil || !r.OK {
			t.Fatalf("%s: %+v", d, r)
		}
		var got []string
		for _, x := range r.Descriptors {
			got = append(got, x.ID)
		}
		if strings.Join(got, ",") != tools {
			t.Errorf("%s registered %v, want %q", d, got, tools)
		}
	}
}

// linkPi links the pinned Pi (piBin its pi command) into the workspace dir's node_modules, as
// a devDependency of the workspace is installed, and returns the link.
func linkPi(t *testing.T, dir, piBin string) string {
	t.Helper()
	link := filepath.Join(dir, "node_modules", "@earendil-works", "pi-coding-agent")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(filepath.Dir(piBin)), "@earendil-works", "pi-coding-agent"), link); err != nil {
		t.Fatal(err)
	}
	return link
}
