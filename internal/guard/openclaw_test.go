package guard

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/npm/tarball"
	"github.com/plaios/plaios/internal/testenv"
)

// TestOpenClawManyFiles: a plugin that bundles hundreds of files (official plugins ship
// thousands) passes; openclaw sets no limit on a plugin's file count.
func TestOpenClawManyFiles(t *testing.T) {
	t.Parallel() // see baseOptions
	dir := copyTree(t, filepath.Join(testenv.RepoRoot(t), "testdata", "guard", "fixtures"))
	files := map[string]string{}
	for i := 0; i < 600; i++ {
		files[fmt.Sprintf("packages/openclaw-good/dist/chunks/c%03d.js", i)] = fmt.Sprintf("export const c%d = %d;\n", i, i)
	}
	testenv.WriteFiles(t, dir, files)
	opts := baseOptions(t, dir)
	opts.Only = []string{"packages/openclaw-good"}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Packages[0]
	if !r.OK || r.Files < 600 || len(r.Descriptors) != 1 {
		t.Fatalf("ok=%v files=%d descriptors=%v: %s", r.OK, r.Files, r.Descriptors, r.Reason)
	}
}

// writeTarball writes a package tarball holding the given file names (empty files).
func writeTarball(t *testing.T, names []string) *tarball.Tarball {
	t.Helper()
	p := filepath.Join(t.TempDir(), "p.tgz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, n := range append([]string{"package.json"}, names...) {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + n, Mode: 0o644, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, gz, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	tb, err := tarball.Read(p, tarball.Options{Limits: tarball.Limits{Entries: 50_000}})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestOpenClawFolderLimits: the only limits guard holds a plugin to are those of openclaw's
// install scan (64 folders deep, 10 000 folders), counted on the tarball's folders.
func TestOpenClawFolderLimits(t *testing.T) {
	deep := strings.Repeat("d/", 64) + "x.js"
	if why := openClawFolderLimits(writeTarball(t, []string{deep})); why != "" {
		t.Errorf("64 deep: %s", why)
	}
	if why := openClawFolderLimits(writeTarball(t, []string{"dist/" + deep})); !strings.Contains(why, "nests folders 65 deep") || !strings.Contains(why, "deeper than 64") {
		t.Errorf("65 deep: %q", why)
	}
	var many []string
	for i := 0; i < 9_999; i++ {
		many = append(many, fmt.Sprintf("d%d/f.js", i))
	}
	if why := openClawFolderLimits(writeTarball(t, many)); why != "" {
		t.Errorf("10 000 folders with the root: %s", why)
	}
	if why := openClawFolderLimits(writeTarball(t, append(many, "one/more.js"))); !strings.Contains(why, "has 10001 folders") {
		t.Errorf("10 001 folders: %q", why)
	}
}

// TestOpenClawEntries resolves entries as the installed openclaw does.
func TestOpenClawEntries(t *testing.T) {
	cases := []struct {
		pkg     string
		files   []string
		runtime []string
		problem string
	}{
		{`{"openclaw":{"extensions":["./dist/index.js"]}}`, []string{"dist/index.js"}, []string{"dist/index.js"}, ""},
		{`{"openclaw":{"extensions":["./index.ts"],"runtimeExtensions":["./dist/index.js"]}}`, []string{"dist/index.js"}, []string{"dist/index.js"}, ""},
		{`{"openclaw":{"extensions":["./src/a.ts","./src/b.mts"]}}`, []string{"dist/a.js", "dist/b.mjs", "dist/b.js"}, []string{"dist/a.js", "dist/b.mjs"}, ""},
		{`{"openclaw":{"extensions":["./src/a.ts"]}}`, []string{"dist/src/a.cjs"}, []string{"dist/src/a.cjs"}, ""},
		{`{"openclaw":{"extensions":["./a.ts"]}}`, []string{"a.ts"}, []string{""}, "has no compiled runtime file"},
		{`{"openclaw":{"extensions":["./a.js","./b.js"],"runtimeExtensions":["./dist/a.js"]}}`, nil, nil, "openclaw.runtimeExtensions length (1) must match openclaw.extensions length (2)"},
		{`{"openclaw":{"extensions":[]}}`, nil, nil, "openclaw.extensions is empty"},
		{`{"openclaw":{}}`, nil, nil, "has no openclaw.extensions"},
		{`{"openclaw":{"extensions":["../x.js"]}}`, nil, []string{""}, "leaves the package"},
		{`{"openclaw":{"extensions":["./index.ts"],"runtimeExtensions":["./dist/index.js"]}}`, nil, []string{""}, "the tarball lacks dist/index.js, the runtime entry openclaw.runtimeExtensions names for ./index.ts"},
	}
	for _, c := range cases {
		pj := mustParse(t, c.pkg)
		has := map[string]bool{}
		for _, f := range c.files {
			has[f] = true
		}
		entries, _, problem := openClawEntries(pj, func(p string) bool { return has[p] })
		var got []string
		for _, e := range entries {
			got = append(got, e.Runtime)
			if e.Problem != "" {
				problem = e.Problem
			}
		}
		if strings.Join(got, ",") != strings.Join(c.runtime, ",") || (c.problem == "") != (problem == "") || !strings.Contains(problem, c.problem) {
			t.Errorf("%s with %v: runtime %q, problem %q", c.pkg, c.files, got, problem)
		}
	}
}

func mustParse(t *testing.T, s string) *jsonpos.Value {
	t.Helper()
	v, err := jsonpos.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// openClawTool is the source of a tool named name, as a plugin registers it.
func openClawTool(name string) string {
	return fmt.Sprintf("{ name: '%s', label: '%s', description: 'The %s tool.', parameters: { type: 'object', properties: {} }, execute: async () => ({ content: [] }) }", name, name, name)
}

// openClawPlugin is the files of a plugin package whose built entry is js.
func openClawPlugin(name, id string, tools []string, js string) map[string]string {
	dir := "packages/" + id + "/"
	quoted, _ := json.Marshal(tools)
	return map[string]string{
		dir + "package.json": `{"name":"` + name + `","version":"0.1.0","type":"module","files":["dist","openclaw.plugin.json"],"license":"MIT",` +
			`"peerDependencies":{"openclaw":">=2026.5.17"},"openclaw":{"extensions":["./dist/index.js"]}}`,
		dir + "openclaw.plugin.json": `{"id":"` + id + `","name":"` + id + `","description":"guard: ` + id + `","version":"0.1.0",` +
			`"configSchema":{"type":"object","additionalProperties":true},"activation":{"onStartup":true},"contracts":{"tools":` + string(quoted) + `}}`,
		dir + "dist/index.js": js,
	}
}

// TestOpenClawRegistersAsOpenClaw: what guard hands register(api) behaves as openclaw
// 2026.9.6's loader does on the shapes official plugins use, and the real openclaw, loading
// the same plugins (plugins inspect --all --runtime), agrees with each verdict:
//   - a version 2 tool factory ({contextVersion: 2, create}, named by its options; WhatsApp's
//     login tool) registers its tool; another context version is refused;
//   - a register(api) entry may declare a tool it registers only when configured (Codex's
//     supervision tools): no drift; a defineToolPlugin entry's manifest that declares a tool
//     the plugin lacks is drift, as openclaw plugins build --check says;
//   - plugin state stores (ClickClack's bindings, Discord's activities) open for an official
//     @openclaw/* plugin, made by the linked openclaw's own store code, and any other plugin
//     that opens one fails to register with openclaw's refusal.
func TestOpenClawRegistersAsOpenClaw(t *testing.T) {
	testenv.SkipShort(t, "runs the real openclaw")
	t.Parallel() // see baseOptions
	bin, ocEnv := testenv.OpenClaw(t)
	state := `export default {
  id: '%s', name: 'State', description: 'Keeps its bindings in openclaw plugin state.',
  register(api) {
    const bindings = api.runtime.state.openSyncKeyedStore({ namespace: 'bindings', maxEntries: 16, overflowPolicy: 'reject-new' });
    for (const entry of bindings.entries()) throw new Error('a new state folder holds ' + entry.key);
    bindings.register('first', { n: 1 });
    if (bindings.lookup('first')?.n !== 1) throw new Error('the store lost what it was given');
    const widgets = api.runtime.state.openKeyedStore({ namespace: 'widgets', maxEntries: 16, overflowPolicy: 'evict-oldest', defaultTtlMs: 60000 });
    if (typeof widgets.observe !== 'function' || typeof widgets.compareAndApply !== 'function') throw new Error('no atomic comparisons');
    api.registerTool(%s);
  },
};
`
	files := map[string]string{"package.json": `{"name":"openclaw-shapes","private":true,"workspaces":["packages/*"]}`}
	for _, p := range []map[string]string{
		openClawPlugin("@acme/v2-factory", "v2-factory", []string{"v2_login"}, `export default {
  id: 'v2-factory', name: 'V2', description: 'A version 2 tool factory, named by its options.',
  register(api) {
    api.registerTool({ contextVersion: 2, create(context) {
      if (typeof context.assertInvocationCurrent !== 'function') throw new Error('no invocation authority');
      return `+openClawTool("v2_login")+`;
    } }, { name: 'v2_login' });
  },
};
`),
		openClawPlugin("@acme/v3-factory", "v3-factory", []string{"v3_login"}, `export default {
  id: 'v3-factory', name: 'V3', description: 'A tool factory of a context version openclaw does not take.',
  register(api) {
    api.registerTool({ contextVersion: 3, create: () => (`+openClawTool("v3_login")+`) }, { name: 'v3_login' });
  },
};
`),
		openClawPlugin("@acme/gated", "gated", []string{"gated_always", "gated_probe"}, `export default {
  id: 'gated', name: 'Gated', description: 'Registers one of its declared tools only when configured to.',
  register(api) {
    api.registerTool(`+openClawTool("gated_always")+`);
    if (api.pluginConfig?.probe?.enabled === true) api.registerTool(`+openClawTool("gated_probe")+`);
  },
};
`),
		openClawPlugin("@acme/stale", "stale", []string{"weather_now", "weather_old"}, `import { defineToolPlugin } from 'openclaw/plugin-sdk/tool-plugin';
export default defineToolPlugin({
  id: 'stale', name: 'Stale', description: 'Its manifest still declares a tool it dropped.',
  tools: (tool) => [tool(`+openClawTool("weather_now")+`)],
});
`),
		openClawPlugin("@acme/state", "acme-state", []string{"state_count"}, fmt.Sprintf(state, "acme-state", openClawTool("state_count"))),
		openClawPlugin("@openclaw/plaios-state", "plaios-state", []string{"state_count"}, fmt.Sprintf(state, "plaios-state", openClawTool("state_count"))),
	} {
		for k, v := range p {
			files[k] = v
		}
	}
	dir := filepath.Join(t.TempDir(), "ws")
	testenv.WriteFiles(t, dir, files)
	// The workspace's openclaw (a devDependency the plugins build against), which guard links.
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(filepath.Dir(bin)), "openclaw"), filepath.Join(dir, "node_modules", "openclaw")); err != nil {
		t.Fatal(err)
	}

	opts := baseOptions(t, dir)
	opts.All = true
	opts.Node = filepath.Join(testenv.Node24(t), "node") // openclaw's store code needs node:sqlite
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	got := byDir(rep)
	want := []struct {
		id     string
		tools  string // the tools guard saw registered
		reason string // else its reason contains this
	}{
		{"v2-factory", "v2_login", ""},
		{"v3-factory", "", `tool factory of context version 3, which openclaw refuses ("unsupported plugin tool context version")`},
		{"gated", "gated_always", ""},
		{"stale", "weather_now", `it declares "weather_old" that it does not register`},
		{"acme-state", "", `register(api) threw: openSyncKeyedStore is only available for trusted plugins in this release`},
		{"plaios-state", "state_count", ""},
	}
	for _, w := range want {
		r := got["packages/"+w.id]
		if r == nil {
			t.Errorf("%s was not guarded", w.id)
			continue
		}
		var ids []string
		for _, d := range r.Descriptors {
			ids = append(ids, d.ID)
		}
		if r.OK != (w.reason == "") || strings.Join(ids, ",") != w.tools || !strings.Contains(r.Reason, w.reason) {
			t.Errorf("%s: ok=%v tools %v reason %q; want tools %q, reason containing %q", w.id, r.OK, ids, r.Reason, w.tools, w.reason)
		}
	}

	// The real openclaw loads the register(api) plugins from its configuration's load paths
	// (none of them an official install, so none is trusted with plugin state).
	folders := map[string]string{}
	for _, id := range []string{"v2-factory", "v3-factory", "gated", "acme-state"} {
		folders[id] = filepath.Join(dir, "packages", id)
	}
	inspected := testenv.InspectOpenClawLoadPaths(t, bin, ocEnv, dir, folders)
	seen := 0
	for _, p := range inspected {
		r := got["packages/"+p.Plugin.ID]
		if r == nil {
			continue // a plugin of openclaw's own
		}
		seen++
		// Loaded, and no error left for it (a warning, such as the one every plugin from a load
		// path gets, that openclaw cannot verify where it came from, is not a refusal).
		refused := p.Failure()
		var ids []string
		for _, d := range r.Descriptors {
			ids = append(ids, d.ID)
		}
		sort.Strings(p.Plugin.ToolNames)
		loaded := refused == ""
		if loaded != r.OK || (loaded && strings.Join(p.Plugin.ToolNames, ",") != strings.Join(ids, ",")) {
			t.Errorf("%s: openclaw says %s with tools %v and %q; guard says ok=%v with tools %v (%s)", p.Plugin.ID, p.Plugin.Status, p.Plugin.ToolNames, refused, r.OK, ids, r.Reason)
		}
		t.Logf("%s: openclaw %s %v %q; guard ok=%v %v", p.Plugin.ID, p.Plugin.Status, p.Plugin.ToolNames, refused, r.OK, ids)
	}
	if seen != 4 {
		t.Errorf("openclaw inspected %d of the 4 plugins", seen)
	}

	// The stale tool plugin's manifest is what openclaw's own check calls out of date.
	if out, err := testenv.RunErr(filepath.Join(dir, "packages", "stale"), ocEnv, bin, "plugins", "build", "--entry", "./dist/index.js", "--check"); err == nil || !strings.Contains(out, "out of date") {
		t.Errorf("openclaw plugins build --check accepted the stale manifest:\n%s", out)
	}
}
