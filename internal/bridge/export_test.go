package bridge

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/internal/workspace"
)

// writeTree writes files (slash paths) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// relayRepo is a repository whose role map gives the relay pack one option (retries); the
// pack's factory throws unless it also gets the endpoint option, which only the
// configuration's fixtures give.
func relayRepo(t *testing.T) string {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"package.json":                 `{"name": "relays", "private": true, "workspaces": ["packages/*"]}`,
		"scripts/package-roles.json":   `{"roles": {"packages/relay": "pack"}, "fixtures": {"packages/relay": {"options": {"retries": 2, "endpoint": "http://roles"}}}}`,
		"packages/relay/package.json":  `{"name": "@demo/agentos-ext-relay", "version": "1.0.0", "type": "module", "main": "./index.js"}`,
		"packages/relay/manifest.json": `{"id": "com.demo.relay", "name": "relay", "version": "1.0.0", "extensions": [{"kind": "tool", "id": "relay_send"}, {"kind": "tool", "id": "relay_ping"}]}`,
		"packages/relay/index.js": `const tool = (name, tags) => ({ id: name, name, description: name, tags, inputSchema: { type: 'object' }, async execute() { return { success: true, output: null }; } });
export function createExtensionPack(context) {
  const o = context.options ?? {};
  if (o.retries !== 2 || o.endpoint !== 'http://config') throw new Error('relay needs retries 2 and the configured endpoint, got ' + o.retries + ' and ' + o.endpoint);
  return { name: 'relay', descriptors: [tool('relay_send', ['write']), tool('relay_ping', [])].map((p) => ({ id: p.name, kind: 'tool', payload: p })) };
}
`,
	})
	return root
}

// configured is the configuration's fixtures for the relay pack, keyed as a user may write it.
var configured = map[string]workspace.Fixture{"./packages/relay": {Options: map[string]any{"endpoint": "http://config"}}}

// TestExportAndServeReadTheConfigurationsFixtures: export and mcp serve give a pack the
// fixture guard gives it, the role map's with the configuration's laid over it key by key
// (workspace.FixtureOf): without the configuration's the pack does not load (exit 1), with it
// both the export and the server see its tools.
func TestExportAndServeReadTheConfigurationsFixtures(t *testing.T) {
	root := relayRepo(t)
	exe := func() (string, error) { return "/usr/local/bin/plaios", nil }
	ctx := context.Background()

	_, err := HermesExport{Target: Target{WorkDir: root, Path: "packages/relay"}, Executable: exe}.Run(ctx)
	if exit.Code(err) != exit.Fail || !strings.Contains(err.Error(), "the pack did not load") || !strings.Contains(err.Error(), "got 2 and http://roles") {
		t.Fatalf("without the configuration's fixtures: %v (exit %d), want exit 1 with the role map's options only", err, exit.Code(err))
	}

	res, err := HermesExport{Target: Target{WorkDir: root, Path: "packages/relay", Fixtures: configured}, Executable: exe}.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Server.Include, ","); got != "relay_ping,relay_send" {
		t.Errorf("export hermes tools = %s", got)
	}

	s, err := Serve{Target: Target{WorkDir: root, Path: "packages/relay", Fixtures: configured}, Getenv: func(string) string { return "" }}.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var names []string
	for _, tool := range s.Tools() {
		names = append(names, tool.Name)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "relay_ping,relay_send" || s.Pack.Fixture.Options["retries"] != float64(2) {
		t.Errorf("mcp serve: tools %v, fixture %+v", names, s.Pack.Fixture)
	}
}

// TestHermesExportMerge: --merge writes the file when it is new or changes, says so, and
// leaves it alone when it already holds the entry; --dry-run returns the merged file without
// writing it; a tag filter that leaves nothing fails (exit 1).
func TestHermesExportMerge(t *testing.T) {
	root := relayRepo(t)
	ctx := context.Background()
	e := HermesExport{
		Target:     Target{WorkDir: root, Path: "packages/relay", Fixtures: configured},
		Executable: func() (string, error) { return "/usr/local/bin/plaios", nil },
		Merge:      "hermes/config.yaml", IncludeTags: []string{"write"},
	}
	file := filepath.Join(root, "hermes", "config.yaml")

	res, err := e.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if !res.Written || res.Replaced || res.File != file || string(data) != string(res.Merged) || !strings.Contains(string(data), "- relay_send") || strings.Contains(string(data), "relay_ping") {
		t.Fatalf("first merge: written %v, replaced %v, file %s:\n%s", res.Written, res.Replaced, res.File, data)
	}
	if want := "      - " + filepath.Join(root, "packages", "relay") + "\n"; !strings.Contains(string(data), want) {
		t.Errorf("the server's args must name the absolute package folder:\n%s", data)
	}

	res, err = e.Run(ctx)
	if err != nil || res.Written || !res.Replaced {
		t.Fatalf("second merge: written %v, replaced %v, %v; want neither written nor an error", res.Written, res.Replaced, err)
	}

	e.DryRun, e.ServerName = true, "relay2"
	res, err = e.Run(ctx)
	after, _ := os.ReadFile(file)
	if err != nil || res.Written || string(after) != string(data) || !strings.Contains(string(res.Merged), "  relay2:\n") {
		t.Fatalf("dry run: written %v, file changed %v, %v:\n%s", res.Written, string(after) != string(data), err, res.Merged)
	}

	e.DryRun, e.IncludeTags = false, []string{"none"}
	_, err = e.Run(ctx)
	if exit.Code(err) != exit.Fail || !strings.Contains(err.Error(), "no tool of @demo/agentos-ext-relay is left by the tag filters") {
		t.Fatalf("empty filter: %v (exit %d)", err, exit.Code(err))
	}
}

// TestServeSaysWhichRequiredSecretsAreUnset: a pack whose factory reads its required secrets
// to construct (published @framers/agentos-ext-channel-irc: "Missing irc.host. Provide via
// options, secrets[…], or IRC_HOST") does not load in mcp serve without them, and the sentence
// names each unset one with its variable (the manifest's envVar, --secret's, else the
// conventional name), leaving out the set and the optional ones; export, whose load is inert
// (a placeholder for each required secret, as guard's), lists its tool; with the secrets set,
// mcp serve does too.
func TestServeSaysWhichRequiredSecretsAreUnset(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"package.json": `{"name": "@demo/agentos-ext-channel-chat", "version": "1.0.0", "type": "module", "main": "./index.js"}`,
		"manifest.json": `{"id": "com.demo.chat", "name": "chat", "version": "1.0.0", "extensions": [{"kind": "tool", "id": "chat_send"}],
  "requiredSecrets": ["chat.host", {"id": "chat.token", "envVar": "CHAT_BOT_TOKEN"}, "chat.nick", {"id": "chat.motd", "optional": true}]}`,
		"index.js": `export function createExtensionPack(context) {
  const s = context.options.secrets ?? {};
  for (const id of ['chat.host', 'chat.token', 'chat.nick']) if (!s[id]) throw new Error('Missing ' + id + '.');
  return { name: 'chat', descriptors: [{ id: 'chat_send', kind: 'tool', payload: { id: 'chat_send', name: 'chat_send', description: 'Send.', inputSchema: { type: 'object' }, async execute() { return { success: true, output: null }; } } }] };
}
`,
	})
	ctx := context.Background()
	env := map[string]string{"CHAT_NICK": "bot"}
	serve := Serve{Target: Target{WorkDir: root, Path: "."}, Getenv: func(k string) string { return env[k] }, Secrets: []string{"chat.host=MY_CHAT_HOST"}}
	_, err := serve.Start(ctx)
	want := "Missing chat.host; the secrets its manifest requires are not set: chat.host (MY_CHAT_HOST), chat.token (CHAT_BOT_TOKEN) (set them, or name other variables with --secret id=ENV_VAR)"
	if exit.Code(err) != exit.Fail || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("without its secrets: %v (exit %d)\nwant the sentence to end %q", err, exit.Code(err), want)
	}

	res, err := HermesExport{Target: Target{WorkDir: root, Path: "."}, Executable: func() (string, error) { return "/usr/local/bin/plaios", nil }}.Run(ctx)
	if err != nil || strings.Join(res.Server.Include, ",") != "chat_send" {
		t.Fatalf("export hermes: %v, %+v", err, res)
	}

	env["MY_CHAT_HOST"], env["CHAT_BOT_TOKEN"] = "chat.example", "token"
	s, err := serve.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if tools := s.Tools(); len(tools) != 1 || tools[0].Name != "chat_send" {
		t.Fatalf("with its secrets: %+v", tools)
	}
}

// TestInstalledWithoutItsBuild: a package installed in a node_modules that lacks the file its
// runtime loads was published without its build (22 of the framers' published packs, such as
// @framers/agentos-ext-channel-email 0.1.0: main dist/index.js, files without it); export and
// mcp serve say so, instead of telling the user to run its build script inside node_modules.
// The same package in a workspace's folder is one the user has not built yet.
func TestInstalledWithoutItsBuild(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"package.json":  `{"name": "@demo/agentos-ext-unbuilt", "version": "0.1.0", "main": "dist/index.js", "scripts": {"build": "tsc"}}`,
		"manifest.json": `{"id": "com.demo.unbuilt", "name": "unbuilt", "version": "0.1.0", "extensions": [{"kind": "tool", "id": "unbuilt_tool"}]}`,
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{"package.json": `{"name": "consumer", "private": true, "dependencies": {"@demo/agentos-ext-unbuilt": "0.1.0"}}`})
	installed := filepath.Join(root, "node_modules", "@demo", "agentos-ext-unbuilt")
	writeTree(t, installed, files)
	workspace := filepath.Join(t.TempDir(), "unbuilt")
	writeTree(t, workspace, files)
	exe := func() (string, error) { return "/usr/local/bin/plaios", nil }
	for _, c := range []struct{ dir, path, want string }{
		{root, "node_modules/@demo/agentos-ext-unbuilt", "@demo/agentos-ext-unbuilt was published without its build: it has no dist/index.js, the file its runtime loads, and an installed package is never built; install a version that ships it"},
		{workspace, ".", "the package is not built (dist/index.js does not exist); run `npm run build` first"},
	} {
		_, err := HermesExport{Target: Target{WorkDir: c.dir, Path: c.path}, Executable: exe}.Run(context.Background())
		if exit.Code(err) != exit.Fail || err.Error() != c.want {
			t.Errorf("export hermes %s: %v (exit %d)\nwant %s", c.path, err, exit.Code(err), c.want)
		}
		_, err = Serve{Target: Target{WorkDir: c.dir, Path: c.path}, Getenv: func(string) string { return "" }}.Start(context.Background())
		if exit.Code(err) != exit.Fail || err.Error() != c.want {
			t.Errorf("mcp serve %s: %v (exit %d)\nwant %s", c.path, err, exit.Code(err), c.want)
		}
	}
}

// TestFixtureOfAnInstalledPack: a pack installed in a project's node_modules is no package of a
// workspace, so its folder's key is its path from where the user is, as their .plaios.yaml names
// it (node_modules/@framers/agentos-ext-telegram, whose factory needs options.botToken); export
// and mcp serve load it with that fixture, and without it it does not load.
func TestFixtureOfAnInstalledPack(t *testing.T) {
	t.Parallel()
	root := relayRepo(t)
	project := t.TempDir()
	testenv.CopyTree(t, filepath.Join(root, "packages", "relay"), filepath.Join(project, "node_modules", "@demo", "agentos-ext-relay"))
	writeTree(t, project, map[string]string{"package.json": `{"name": "consumer", "private": true, "dependencies": {"@demo/agentos-ext-relay": "1.0.0"}}`})
	exe := func() (string, error) { return "/usr/local/bin/plaios", nil }
	path := "node_modules/@demo/agentos-ext-relay"
	fixtures := map[string]workspace.Fixture{"./" + path: {Options: map[string]any{"retries": 2, "endpoint": "http://config"}}}
	if _, err := (HermesExport{Target: Target{WorkDir: project, Path: path}, Executable: exe}).Run(context.Background()); exit.Code(err) != exit.Fail {
		t.Fatalf("without the fixture: %v (exit %d), want exit 1", err, exit.Code(err))
	}
	res, err := HermesExport{Target: Target{WorkDir: project, Path: path, Fixtures: fixtures}, Executable: exe}.Run(context.Background())
	if err != nil || strings.Join(res.Server.Include, ",") != "relay_ping,relay_send" {
		t.Fatalf("export hermes with the fixture: %v %+v", err, res)
	}
	s, err := Serve{Target: Target{WorkDir: project, Path: path, Fixtures: fixtures}, Getenv: func(string) string { return "" }}.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Tools()) != 2 {
		t.Fatalf("mcp serve with the fixture: %+v", s.Tools())
	}
}
