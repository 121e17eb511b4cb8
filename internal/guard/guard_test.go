package guard

import (
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/check"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/sandbox"
	"github.com/plaios/plaios/internal/testenv"
)

// testRegistry returns the package's Verdaccio (testenv.SharedVerdaccio): starting one costs
// seconds.
func testRegistry(t *testing.T) *testenv.Registry { return testenv.SharedVerdaccio(t) }

// TestMain makes the test process the reaper of what its children leave behind (so that
// assertNoLeftovers sees every process the tests started) and stops the shared registry when
// the tests are done.
func TestMain(m *testing.M) {
	if err := testenv.BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(testenv.Main(m))
}

// copyTree copies a testdata folder into a temporary one, so that a run cannot touch it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	testenv.CopyTree(t, src, dst)
	return dst
}

// baseOptions are a test's guard options: the shared registry, and a temporary folder and an
// environment of the test's own, given as options (guard's and the sandbox's folders go into
// TempDir, every child's environment comes from Getenv), not set for the process: so the
// tests run side by side (t.Parallel), but for TestInterruptCleansUp, which points the
// process's own TMPDIR elsewhere.
func baseOptions(t *testing.T, dir string) Options {
	t.Helper()
	reg := testRegistry(t)
	env := map[string]string{}
	for _, kv := range testenv.CleanEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return Options{
		TempDir:  t.TempDir(),
		Dir:      dir,
		Registry: reg.URL,
		Jobs:     2,
		Timeout:  20 * time.Second,
		Sandbox:  sandbox.Auto,
		Getenv:   func(k string) string { return env[k] },
	}
}

func byDir(rep *Report) map[string]*Result {
	m := map[string]*Result{}
	for _, r := range rep.Packages {
		m[r.Dir] = r
	}
	return m
}

// TestFixtures guards every fixture pack of testdata/guard/fixtures in one run (one joint
// install), then checks each outcome.
func TestFixtures(t *testing.T) {
	t.Parallel() // see baseOptions
	dir := copyTree(t, filepath.Join(testenv.RepoRoot(t), "testdata", "guard", "fixtures"))
	out := filepath.Join(t.TempDir(), "packs")
	opts := baseOptions(t, dir)
	opts.All = true
	opts.Out = out
	opts.Timeout = 10 * time.Second
	var stages []string
	opts.Progress = func(p Progress) {
		if len(stages) == 0 || stages[len(stages)-1] != p.Stage {
			stages = append(stages, p.Stage)
		}
	}
	start := time.Now()
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("guarded %d packages in %v", len(rep.Packages), time.Since(start))
	if strings.Join(stages, ",") != "pack,check,install,load" {
		t.Errorf("progress stages: %v", stages)
	}
	got := byDir(rep)

	cases := []struct {
		dir    string
		ok     bool
		reason string // substring of the reason
		rule   string // a diagnostic with this rule
		count  int    // descriptors, when ok
	}{
		{dir: ".", ok: true, count: 1},
		{dir: "registry/curated/tools/good", ok: true, count: 1},
		{dir: "registry/curated/tools/entry-missing", reason: "the tarball lacks dist/index.js, the file import \"@guard-fixture/agentos-ext-entry-missing\" loads", rule: "entry-not-shipped"},
		{dir: "registry/curated/tools/import-throws", reason: "import failed: this pack cannot be imported"},
		{dir: "registry/curated/tools/factory-throws", reason: "createExtensionPack threw: the factory refuses to build"},
		{dir: "registry/curated/tools/no-descriptors", reason: "returned no descriptors"},
		{dir: "registry/curated/network/fetch-at-import", reason: "reached for the network while loading or constructing: fetch https://telemetry.example.com/v1/ping?pack=fetch-at-import"},
		{dir: "registry/curated/network/socket-swallowed", reason: "reached for the network while loading or constructing: connect metrics.example.com:443"},
		{dir: "registry/curated/network/dns-lookup", reason: "reached for the network while loading or constructing: dns lookup updates.example.com"},
		{dir: "registry/curated/tools/hang", reason: "timed out after 10s while importing it"},
		{dir: "registry/curated/channels/option-missing", reason: "createExtensionPack threw: the botToken option is required"},
		{dir: "registry/curated/channels/option-given", ok: true, count: 1},
		{dir: "registry/curated/tools/bad-schema", reason: `tool "lookup" inputSchema /properties/word/type: "type" "strin" is not a JSON Schema type`, rule: "schema-type-unknown"},
		{dir: "registry/curated/channels/secrets-option", ok: true, count: 1},
		{dir: "registry/curated/channels/secrets-fixture", ok: true, count: 1},
		{dir: "registry/curated/tools/default-pack", ok: true, count: 1},
		{dir: "registry/curated/tools/dev-workspace", ok: true, count: 1},
		{dir: "registry/curated/tools/dep-workspace", reason: `the packed package.json still says dependencies "@guard-fixture/agentos-ext-good": "workspace:*"`, rule: "workspace-protocol"},
		{dir: "registry/curated/tools/blank-name", reason: `tool "   " (descriptor blank): the tool name is empty; AgentOS's ToolExecutor refuses`, rule: "tool-name-invalid"},
		{dir: "registry/curated/tools/long-name", ok: true, count: 1, rule: "tool-name-invalid"},
		{dir: "registry/curated/tools/manifest-broken", reason: "manifest.json", rule: "agentos-manifest-invalid"},
		{dir: "registry/curated/tools/typo-schema", reason: `tool "search" inputSchema /properties/q/requried: "requried" is not a draft-07 keyword`, rule: "schema-format-unknown"},
		{dir: "packages/plaios-bad-name", reason: `tool "get forecast" (WeatherCapability.manifest): the capability name "get forecast" has a space`, rule: "tool-name-invalid"},
		{dir: "packages/openclaw-runtime-ext", ok: true, count: 2},
		{dir: "packages/openclaw-ts-inferred", ok: true, count: 1},
		{dir: "packages/openclaw-ts-only", reason: "openclaw.extensions names the TypeScript source ./index.ts and the tarball has no compiled runtime file for it", rule: "openclaw-entry"},
		{dir: "packages/pi-no-parameters", reason: `registerTool: tool "weather" has no object parameter schema, and Pi refuses to load the extension`},
		{dir: "registry/curated/tools/dotenv", reason: "the tarball ships .env, which looks like a credential", rule: "secret-shipped"},
		{dir: "registry/curated/tools/undeclared", ok: true, count: 2, rule: "descriptor-undeclared"},
		{dir: "registry/curated/lib/library-good", ok: true, count: 2},
		{dir: "registry/curated/lib/library-missing", reason: "does not export registerThings, which libraryExports in scripts/package-roles.json names"},
		{dir: "packages/plaios-good", ok: true, count: 1},
		{dir: "packages/plaios-page-unresolved", reason: `the page "./web/action" of interface plaios-page-unresolved.action does not resolve through exports`, rule: "plaios-entry-unresolved"},
		{dir: "packages/openclaw-good", ok: true, count: 1},
		{dir: "packages/openclaw-drift", reason: `the tools the entry registers differ from contracts.tools in openclaw.plugin.json: it registers "weather_alerts" that it does not declare`, rule: "openclaw-contract-drift"},
		{dir: "packages/pi-good", ok: true, count: 1},
	}
	if len(rep.Packages) != len(cases) {
		var dirs []string
		for d := range got {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
		t.Errorf("guarded %d packages, want %d: %v", len(rep.Packages), len(cases), dirs)
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.dir, "/", "_"), func(t *testing.T) {
			r := got[c.dir]
			if r == nil {
				t.Fatalf("%s was not guarded", c.dir)
			}
			if r.OK != c.ok {
				t.Fatalf("ok = %v, want %v; reason %q; diagnostics %+v", r.OK, c.ok, r.Reason, r.Diagnostics)
			}
			if !c.ok && !strings.Contains(r.Reason, c.reason) {
				t.Errorf("reason %q\nwant it to contain %q", r.Reason, c.reason)
			}
			if c.ok && r.Reason != "" {
				t.Errorf("an ok package has a reason: %q", r.Reason)
			}
			if c.ok && len(r.Descriptors) != c.count {
				t.Errorf("descriptors %+v, want %d", r.Descriptors, c.count)
			}
			if c.rule != "" {
				found := false
				for _, d := range r.Diagnostics {
					found = found || d.Rule == c.rule
				}
				if !found {
					t.Errorf("no %s diagnostic among %+v (reason %q)", c.rule, r.Diagnostics, r.Reason)
				}
			}
			// Every packed tarball is hashed and kept in --out, with its path relative to it.
			if r.Tarball == "" || filepath.IsAbs(r.Tarball) {
				t.Fatalf("tarball path %q", r.Tarball)
			}
			data, err := os.ReadFile(filepath.Join(out, r.Tarball))
			if err != nil {
				t.Fatal(err)
			}
			s512 := sha512.Sum512(data)
			s1 := sha1.Sum(data)
			if r.Integrity != "sha512-"+base64.StdEncoding.EncodeToString(s512[:]) || r.Shasum != hex.EncodeToString(s1[:]) {
				t.Errorf("hashes %s %s do not match the tarball", r.Integrity, r.Shasum)
			}
			if r.Files < 2 {
				t.Errorf("files = %d", r.Files)
			}
		})
	}

	// The network attempts are recorded even though every pack above swallowed its error.
	if a := got["registry/curated/network/socket-swallowed"].Attempts; len(a) == 0 || a[0].What != "connect" {
		t.Errorf("attempts: %+v", a)
	}

	// guard-report.json has exactly CLI.md's shape.
	data, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	var generic struct {
		SchemaVersion int              `json:"schemaVersion"`
		Packages      []map[string]any `json:"packages"`
	}
	if err := json.Unmarshal(data, &generic); err != nil {
		t.Fatal(err)
	}
	if generic.SchemaVersion != 1 || len(generic.Packages) != len(rep.Packages) {
		t.Fatalf("report: %s", data)
	}
	want := []string{"descriptors", "diagnostics", "dir", "files", "integrity", "name", "ok", "reason", "tarball", "version"}
	for _, p := range generic.Packages {
		var keys []string
		for k := range p {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if strings.Join(keys, ",") != strings.Join(want, ",") {
			t.Fatalf("report keys %v, want %v", keys, want)
		}
	}
	var diag map[string]any
	for _, p := range generic.Packages {
		if p["dir"] == "registry/curated/tools/dotenv" {
			diag = p["diagnostics"].([]any)[0].(map[string]any)
		}
	}
	for _, k := range []string{"rule", "severity", "file", "line", "column", "message"} {
		if _, ok := diag[k]; !ok {
			t.Errorf("a diagnostic lacks %q: %v", k, diag)
		}
	}
	if diag["file"] != "registry/curated/tools/dotenv/.env" || diag["severity"] != "error" {
		t.Errorf("diagnostic: %v", diag)
	}
	if strings.Contains(string(data), "sk-not-a-real-key") {
		t.Fatal("the report carries the secret itself")
	}

	// Nothing is left behind: no guard folder in the temporary directory, no node process.
	assertNoLeftovers(t, opts.TempDir)

	// The text output names each failure as CLI.md says.
	var text strings.Builder
	WriteText(&text, rep)
	for _, line := range []string{
		"ok @guard-fixture/agentos-ext-good@1.0.0 (1 descriptor)\n",
		"FAIL @guard-fixture/agentos-ext-factory-throws@1.0.0 (registry/curated/tools/factory-throws): createExtensionPack threw: the factory refuses to build\n",
		"ok @guard-fixture/pi-good@0.1.0 (1 tool)\n",
		"ok @guard-fixture/plaios-good@0.1.0 (1 interface)\n",
		"ok @guard-fixture/library-good@1.0.0 (2 exports)\n",
		"  registry/curated/tools/undeclared/manifest.json:6:17: warning descriptor-undeclared: the factory returns descriptor \"shout\", which manifest.json does not list\n      hint: add it to extensions in manifest.json\n",
		"36 packages guarded: 15 ok, 21 failed\n",
		// Every schema error, with the tool, the JSON pointer, the line that wrote it and its hint.
		"FAIL @guard-fixture/agentos-ext-typo-schema@1.0.0 (registry/curated/tools/typo-schema): tool \"search\" inputSchema /properties/q/requried: \"requried\" is not a draft-07 keyword; the AgentOS executor (Ajv in strict mode) refuses the schema because of it\n" +
			"  registry/curated/tools/typo-schema/dist/index.js:10:28: error schema-keyword-unknown: tool \"search\" inputSchema /properties/q/requried: \"requried\" is not a draft-07 keyword; the AgentOS executor (Ajv in strict mode) refuses the schema because of it\n" +
			"      hint: Did you mean \"required\"?\n" +
			"  registry/curated/tools/typo-schema/dist/index.js:11:32: error schema-format-unknown: tool \"search\" inputSchema /properties/since/format: The format \"datetime\" is not one ajv-formats knows; the AgentOS executor (Ajv in strict mode) refuses the schema because of it\n" +
			"      hint: Did you mean \"date-time\"?\n",
		"  registry/curated/tools/long-name/dist/index.js:4:23: warning tool-name-invalid: tool \"search the web for very",
		"is 156 characters long; MCP allows at most 128, so plaios mcp serve and export hermes refuse it (AgentOS itself accepts the name)\n",
		"  registry/curated/tools/manifest-broken/manifest.json:7:3: error agentos-manifest-invalid: manifest.json is not valid JSON",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text output lacks %q:\n%s", line, text.String())
		}
	}
	var gh strings.Builder
	WriteGitHub(&gh, rep)
	if !strings.Contains(gh.String(), "::error file=registry/curated/tools/dotenv/.env,line=1,col=1,title=plaios guard::@guard-fixture/agentos-ext-dotenv@1.0.0 (registry/curated/tools/dotenv): the tarball ships .env") {
		t.Errorf("github annotations:\n%s", gh.String())
	}
	if !strings.Contains(gh.String(), "::error file=registry/curated/tools/typo-schema/dist/index.js,line=11,col=32,title=schema-format-unknown::tool \"search\" inputSchema /properties/since/format: The format \"datetime\" is not one ajv-formats knows; the AgentOS executor (Ajv in strict mode) refuses the schema because of it%0Ahint: Did you mean \"date-time\"?\n") {
		t.Errorf("github annotations lack the second schema error with its hint:\n%s", gh.String())
	}
}

// assertNoLeftovers checks what the test's own guard run left: no guard or sandbox folder in
// its temporary folder (baseOptions gave it one: opts.TempDir), and no process the test
// started still running. The test's processes are the test process's children (every orphan
// comes back to it: TestMain's subreaper) that name the test's own folders, where its
// repository, guard's folders and the sandbox's are (testenv.ChildrenNaming): a sandbox's
// init names its root and the step's folder there, and a process guard starts outside a
// sandbox runs in the repository; so the test may run beside others, whose processes name
// theirs.
func assertNoLeftovers(t *testing.T, tmp string) {
	t.Helper()
	root := filepath.Dir(t.TempDir())
	if !strings.HasPrefix(tmp, root+string(filepath.Separator)) {
		t.Fatalf("the temporary folder %s is not the test's own; give assertNoLeftovers baseOptions' TempDir", tmp)
	}
	left, err := guardFolders(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range left {
		t.Errorf("left behind in the temporary folder: %s", name)
	}
	pids, err := testenv.ChildrenNaming(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		t.Errorf("a process the test started is still running: %d %s", pid, testenv.ProcessCommand(pid))
	}
}

// TestRealPacks guards published @framers/agentos-ext-* packs as they are: downloaded once
// from npm, mirrored with their dependencies into the test registry, laid out as an
// agentos-extensions repository. Among them web-browser 1.2.1 and channel-discord 0.1.0 carry
// "workspace:*" in devDependencies, which npm never installs for a consumer, and
// channel-telegram 0.1.0 (like channel-discord) reads its bot token from
// context.options.secrets, as @framers/agentos hands it. What the repository's rules find in
// them is only policy (an MIT licence, no publishConfig, a manifest version behind
// package.json): validate reports nothing else on their files, and with those rules off, as a
// repository of MIT packs would set them, guard passes every one of them, each loaded. (That a
// validate error on the packed files fails guard is TestFixtures' manifest-broken; one guard
// run of these packs is enough, since the rules change nothing of the install or the load.)
func TestRealPacks(t *testing.T) {
	t.Parallel() // see baseOptions
	root := testenv.RepoRoot(t)
	_, mirrored := testenv.SharedMirror(t, filepath.Join(root, "testdata", "guard", "mirror", "package-lock.json"))
	dir := filepath.Join(t.TempDir(), "agentos-extensions")
	roles := map[string]string{}
	for _, p := range mirrored {
		if !strings.HasPrefix(p.Name, "@framers/agentos-ext-") {
			continue
		}
		sub := "registry/curated/real/" + strings.TrimPrefix(p.Name, "@framers/agentos-ext-")
		roles[sub] = "pack"
		target := filepath.Join(dir, filepath.FromSlash(sub))
		if err := os.MkdirAll(target, 0o755); err != nil {
			t.Fatal(err)
		}
		testenv.Run(t, target, nil, "tar", "xzf", p.Tarball, "--strip-components=1")
	}
	if len(roles) != 8 {
		t.Fatalf("the mirror lockfile names %d packs, want 8", len(roles))
	}
	rm, _ := json.Marshal(map[string]any{"roles": roles})
	testenv.WriteFiles(t, dir, map[string]string{"scripts/package-roles.json": string(rm)})

	// By default the candidates are the packages whose version is not on the registry: none.
	opts := baseOptions(t, dir)
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 0 || rep.Skipped != 8 || !strings.Contains(Summary(rep), "nothing to guard") {
		t.Fatalf("default candidates: %d guarded, %d skipped: %s", len(rep.Packages), rep.Skipped, Summary(rep))
	}

	// The repository's rules find only policy in them, and something in each.
	policy := map[string]bool{"agentos-license": true, "agentos-license-file": true, "agentos-publish-access": true, "agentos-version-mismatch": true}
	res, err := check.Validate([]string{dir}, check.ValidateOptions{WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	broken := map[string]bool{}
	for _, d := range res.Diagnostics {
		if d.Severity != check.Error {
			continue
		}
		if !policy[d.Rule] {
			t.Errorf("validate: %s:%d:%d %s: %s", d.File, d.Line, d.Col, d.Rule, d.Message)
		}
		broken[path.Dir(strings.TrimPrefix(d.File, "registry/curated/real/"))] = true
	}
	if len(broken) != 8 {
		t.Errorf("validate found the repository's policy broken in %d of the 8 packs: %v", len(broken), broken)
	}

	// With the policy rules off, every one of them loads and passes.
	opts.All = true
	opts.Severity = map[string]check.Severity{}
	for id := range policy {
		opts.Severity[id] = check.Off
	}
	rep, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 8 {
		t.Fatalf("guarded %d packages, want 8", len(rep.Packages))
	}
	for _, r := range rep.Packages {
		if !r.OK || len(r.Descriptors) == 0 {
			t.Errorf("%s@%s: ok=%v, %s, reason %q", r.Name, r.Version, r.OK, r.Noun(), r.Reason)
		}
		for _, d := range r.Diagnostics {
			if d.Rule == "workspace-protocol" || d.Severity == check.Error || policy[d.Rule] {
				t.Errorf("%s@%s: %s %s: %s", r.Name, r.Version, d.Severity, d.Rule, d.Message)
			}
		}
		if r.Integrity == "" {
			t.Errorf("%s has no integrity", r.Name)
		}
		t.Logf("%s@%s (%s): ok=%v %s", r.Name, r.Version, r.Noun(), r.OK, r.Reason)
	}
	got := byDir(rep)
	ws := got["registry/curated/real/web-search"]
	if ws == nil || len(ws.Descriptors) != 3 || ws.Descriptors[0].ID != "web_search" {
		t.Errorf("web-search descriptors: %+v", ws)
	}
	// The token reached the factories through context.options.secrets (they throw without it).
	for _, d := range []string{"channel-telegram", "channel-discord"} {
		if r := got["registry/curated/real/"+d]; r == nil || len(r.Descriptors) < 2 {
			t.Errorf("%s: %+v", d, r)
		}
	}
}

// TestInstallFallback: when the joint install fails, the candidates are installed in halves
// until the one that breaks it is named; the others load from the projects their halves
// installed into, and it takes a handful of installs, not one per package.
func TestInstallFallback(t *testing.T) {
	t.Parallel() // see baseOptions
	dir := t.TempDir()
	pkg := func(name string, deps string) string {
		return `{"name":"@guard-fixture/` + name + `","version":"1.0.0","type":"module","main":"index.js","dependencies":{` + deps + `}}`
	}
	files := map[string]string{
		"package.json":                 `{"name":"fallback-repo","private":true,"workspaces":["packages/*"]}`,
		"packages/broken/package.json": pkg("broken", `"@guard-fixture/no-such-package":"^9.9.9"`),
		"packages/broken/index.js":     "export const broken = true;\n",
	}
	const fine = 12
	for i := 0; i < fine; i++ {
		n := fmt.Sprintf("fine-%02d", i)
		files["packages/"+n+"/package.json"] = pkg(n, "")
		files["packages/"+n+"/index.js"] = "export const fine = true;\n"
	}
	testenv.WriteFiles(t, dir, files)
	opts := baseOptions(t, dir)
	opts.All = true
	var log strings.Builder
	opts.Log = &log
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	got := byDir(rep)
	for i := 0; i < fine; i++ {
		if r := got[fmt.Sprintf("packages/fine-%02d", i)]; r == nil || !r.OK {
			t.Fatalf("fine-%02d: %+v", i, r)
		}
	}
	r := got["packages/broken"]
	if r == nil || r.OK || !strings.HasPrefix(r.Reason, "install failed: ") || !strings.Contains(r.Reason, "no-such-package") {
		t.Fatalf("broken: %+v", r)
	}
	if !strings.Contains(log.String(), "the joint install failed") {
		t.Errorf("the log does not say the joint install failed:\n%s", log.String())
	}
	// 13 candidates, one culprit: the joint install, then two per halving (13 → 7 → 4 → 2 → 1).
	if n := strings.Count(log.String(), "run npm install "); n > 1+2*4 {
		t.Errorf("%d installs for 13 candidates with one culprit", n)
	}
}

// TestCandidates covers the default selection against the registry, --only, --plan and
// --shard, without packing anything twice.
func TestCandidates(t *testing.T) {
	t.Parallel() // see baseOptions
	reg := testRegistry(t)
	dir := t.TempDir()
	files := map[string]string{"package.json": `{"name":"cands","private":true,"workspaces":["packages/*"]}`}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files["packages/"+n+"/package.json"] = `{"name":"@guard-cands/` + n + `","version":"1.0.0","main":"index.js"}`
		files["packages/"+n+"/index.js"] = "module.exports = {};\n"
	}
	files["packages/private/package.json"] = `{"name":"@guard-cands/private","version":"1.0.0","private":true}`
	// A pack the workspace does not list: guarded alone when named, as npm treats it.
	files["examples/alone/package.json"] = `{"name":"@guard-cands/alone","version":"1.0.0","main":"index.js"}`
	files["examples/alone/index.js"] = "module.exports = {};\n"
	testenv.WriteFiles(t, dir, files)
	reg.Publish(t, filepath.Join(dir, "packages", "b"))

	g := func(mut func(*Options)) *run {
		opts := baseOptions(t, dir)
		mut(&opts)
		r, err := newRun(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.openWorkspace(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	dirs := func(r *run) string {
		cands, _, _, err := r.candidates(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cands {
			out = append(out, c.Dir)
		}
		return strings.Join(out, " ")
	}
	if got := dirs(g(func(o *Options) {})); got != "packages/a packages/c packages/d packages/e" {
		t.Errorf("unpublished: %s", got)
	}
	if got := dirs(g(func(o *Options) { o.All = true })); got != "packages/a packages/b packages/c packages/d packages/e" {
		t.Errorf("--all: %s", got)
	}
	if got := dirs(g(func(o *Options) { o.Only = []string{"packages/d,packages/a"} })); got != "packages/a packages/d" {
		t.Errorf("--only: %s", got)
	}
	var shards []string
	for i := 1; i <= 2; i++ {
		shards = append(shards, dirs(g(func(o *Options) { o.All = true; o.Shard, o.Shards = i, 2 })))
	}
	if strings.Join(shards, " | ") != "packages/a packages/c packages/e | packages/b packages/d" {
		t.Errorf("--shard: %v", shards)
	}
	alone := g(func(o *Options) { o.Paths = []string{"examples/alone"} })
	if got := dirs(alone); alone.ws.Root != filepath.Join(dir, "examples", "alone") || got != "." {
		t.Errorf("a pack no workspace lists: root %s, candidates %q; want the pack alone", alone.ws.Root, got)
	}
	// A folder of no package is a usage error, not "nothing to guard" and exit 0.
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	docsOpts := baseOptions(t, dir)
	docsOpts.Paths = []string{"docs"}
	docs, err := newRun(docsOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := docs.openWorkspace(); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "no package.json") {
		t.Errorf("a folder of no package: %v", err)
	}
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"schemaVersion":1,"releases":[{"name":"@guard-cands/e","dir":"packages/e","next":"1.0.0"},{"name":"@guard-cands/c","dir":"packages/c","next":"1.0.0"}]}`), 0o644)
	if got := dirs(g(func(o *Options) { o.Plan = plan })); got != "packages/c packages/e" {
		t.Errorf("--plan: %s", got)
	}

	// Mistakes are usage errors (exit 2) with a sentence; an unreachable registry is exit 3.
	_, _, _, err = g(func(o *Options) { o.Only = []string{"packages/private"} }).candidates(context.Background())
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "not a publishable package") {
		t.Errorf("--only private: %v", err)
	}
	os.WriteFile(plan, []byte(`{"schemaVersion":1,"releases":[{"name":"@guard-cands/e","dir":"packages/e","next":"1.0.1"}]}`), 0o644)
	_, _, _, err = g(func(o *Options) { o.Plan = plan }).candidates(context.Background())
	if exit.Code(err) != exit.Fail || !strings.Contains(err.Error(), "run plaios release-plan --write first") {
		t.Errorf("--plan version: %v", err)
	}
	_, _, _, err = g(func(o *Options) { o.Registry = "http://127.0.0.1:9/" }).candidates(context.Background())
	if exit.Code(err) != exit.Env || !strings.Contains(err.Error(), "cannot tell which versions are already published") {
		t.Errorf("unreachable registry: %v", err)
	}
	if _, err := newRun(Options{All: true, Only: []string{"x"}}); exit.Code(err) != exit.Usage {
		t.Errorf("--all with --only: %v", err)
	}
}

// TestNoSandbox: when no namespace can be made, guard stops with exit 3 and a sentence.
func TestNoSandbox(t *testing.T) {
	t.Parallel() // see baseOptions
	dir := copyTree(t, filepath.Join(testenv.RepoRoot(t), "testdata", "guard", "fixtures"))
	opts := baseOptions(t, dir)
	opts.Only = []string{"registry/curated/tools/good"}
	// A node that cannot be started stands for a kernel that refuses the namespace: the
	// probe is the first child started in one.
	bad := filepath.Join(t.TempDir(), "node")
	os.WriteFile(bad, []byte("not a program"), 0o644)
	opts.Node = bad
	_, err := Run(context.Background(), opts)
	if exit.Code(err) != exit.Env || !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), "--sandbox off") {
		t.Fatalf("want exit 3 naming --sandbox off, got %d: %v", exit.Code(err), err)
	}
}

// TestPnpmWorkspace: a pnpm workspace packs with pnpm, which rewrites workspace: specifiers;
// packing the same repository with npm leaves them, and guard says so.
func TestPnpmWorkspace(t *testing.T) {
	t.Parallel() // see baseOptions
	bin := testenv.PNPM(t)
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"pnpm-workspace.yaml":       "packages:\n  - packages/*\n",
		"package.json":              `{"name":"pnpm-repo","private":true}`,
		"packages/lib/package.json": `{"name":"@guard-pnpm/lib","version":"1.0.0","type":"module","main":"index.js"}`,
		"packages/lib/index.js":     "export const answer = 42;\n",
		"packages/app/package.json": `{"name":"@guard-pnpm/app","version":"1.0.0","type":"module","main":"index.js","dependencies":{"@guard-pnpm/lib":"workspace:*"}}`,
		"packages/app/index.js":     "import { answer } from '@guard-pnpm/lib';\nexport default answer;\n",
	})
	opts := baseOptions(t, dir)
	opts.All = true
	opts.PNPM = bin
	// pnpm packs what it installed: it reads a workspace: dependency's version from there.
	// Its store and home are the test's: left to itself pnpm puts its store in the user's home
	// (~/.local/share/pnpm/store) or, when the folder is on another file system, at that
	// file system's root (/dev/shm/.pnpm-store under a TMPDIR on a tmpfs).
	home, store := t.TempDir(), filepath.Join(t.TempDir(), "store")
	testenv.Run(t, dir, testenv.WithHome(append(testenv.CleanEnv(), "npm_config_store_dir="+store), home),
		bin, "install", "--ignore-scripts", "--registry", opts.Registry)
	if projects, _ := filepath.Glob(filepath.Join(store, "v*", "projects", "*")); len(projects) != 1 {
		t.Fatalf("pnpm install registered %d projects in the test's store %s, want this workspace", len(projects), store)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Packages {
		if !r.OK {
			t.Errorf("pnpm: %s: %s", r.Name, r.Reason)
		}
	}
	if len(rep.Packages) != 2 {
		t.Fatalf("pnpm: guarded %d packages", len(rep.Packages))
	}

	opts.PackManager = "npm"
	rep, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	app := byDir(rep)["packages/app"]
	if app == nil || app.OK || !strings.Contains(app.Reason, `the packed package.json still says dependencies "@guard-pnpm/lib": "workspace:*"`) || app.Diagnostics[0].Rule != "workspace-protocol" {
		t.Fatalf("npm: %+v", app)
	}
}

// TestInterruptCleansUp: cancelling a run (Ctrl-C) while a package hangs kills its child and
// leaves no temporary folder behind. While the package loads, guard's and the sandbox's
// folders are in Options.TempDir, and none is in the process's TMPDIR (pointed at a folder of
// the test's own): the leftover checks look where guard works.
func TestInterruptCleansUp(t *testing.T) {
	dir := copyTree(t, filepath.Join(testenv.RepoRoot(t), "testdata", "guard", "fixtures"))
	opts := baseOptions(t, dir)
	opts.Only = []string{"registry/curated/tools/hang"}
	opts.Timeout = 10 * time.Minute
	processTmp := t.TempDir()
	for _, k := range []string{"TMPDIR", "TMP", "TEMP"} {
		t.Setenv(k, processTmp) // so the test is not parallel
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var during, duringTMPDIR []string
	opts.Progress = func(p Progress) {
		if p.Stage == "load" && p.Done == 0 {
			during, _ = guardFolders(opts.TempDir)
			duringTMPDIR, _ = guardFolders(processTmp)
			time.AfterFunc(time.Second, cancel)
		}
	}
	start := time.Now()
	_, err := Run(ctx, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("the interrupted run took %v", d)
	}
	if len(during) != 2 || !strings.HasPrefix(during[0], "plaios-guard-") || !strings.HasPrefix(during[1], "plaios-sandbox-") || len(duringTMPDIR) > 0 {
		t.Errorf("while the package loaded, guard's folders were %q in Options.TempDir and %q in TMPDIR; want one guard and one sandbox folder, in Options.TempDir only", during, duringTMPDIR)
	}
	assertNoLeftovers(t, opts.TempDir)
	if left, _ := guardFolders(processTmp); len(left) > 0 {
		t.Errorf("left in the process's TMPDIR: %v", left)
	}
}

// guardFolders lists the guard and sandbox folders in dir, by name (os.ReadDir sorts them).
func guardFolders(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	var found []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "plaios-guard-") || strings.HasPrefix(e.Name(), "plaios-sandbox-") {
			found = append(found, e.Name())
		}
	}
	return found, err
}

// TestStepTimeout: a step that never ends is stopped at --step-timeout with everything it
// started, and fails its package naming the step, while the run goes on. Here a prepack script
// that idles after starting a detached grandchild, and an install whose registry accepts the
// connection and never answers (npm's own fetch timeout is five minutes, with retries): the
// install, which runs no package code and which npm can stall at random, is tried twice.
func TestStepTimeout(t *testing.T) {
	t.Parallel() // see baseOptions
	var accepted atomic.Int32
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		silent.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	pkg := func(name, extra string) string {
		return `{"name":"@guard-step/agentos-ext-` + name + `","version":"1.0.0","type":"module","main":"./dist/index.js",
"files":["dist","manifest.json"],"license":"Apache-2.0","publishConfig":{"access":"public"}` + extra + `}`
	}
	index := "export function createExtensionPack() {\n  return { name: 'x', descriptors: [{ id: 'echo', kind: 'tool', payload: { name: 'echo' } }] };\n}\n"
	manifest := func(name string) string {
		return `{"id":"com.guard.` + name + `","name":"` + name + `","version":"1.0.0","extensions":[{"kind":"tool","id":"echo"}]}`
	}
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json":               `{"name":"step-repo","private":true}`,
		"scripts/package-roles.json": `{"roles":{"registry/curated/tools/loops-prepack":"pack","registry/curated/tools/needs-registry":"pack"}}`,
		"registry/curated/tools/loops-prepack/package.json": pkg("loops-prepack",
			`,"scripts":{"prepack":"node -e \"console.error('waiting for the build server'); require('child_process').spawn('sleep',['600'],{stdio:'ignore',detached:true}).unref(); setInterval(()=>{},1000)\""}`),
		"registry/curated/tools/loops-prepack/manifest.json":  manifest("loops-prepack"),
		"registry/curated/tools/loops-prepack/dist/index.js":  index,
		"registry/curated/tools/needs-registry/package.json":  pkg("needs-registry", `,"dependencies":{"@guard-step/helper":"^1.0.0"}`),
		"registry/curated/tools/needs-registry/manifest.json": manifest("needs-registry"),
		"registry/curated/tools/needs-registry/dist/index.js": index,
	})
	opts := baseOptions(t, dir)
	opts.All = true
	opts.Registry = "http://" + silent.Addr().String() + "/"
	opts.StepTimeout = 8 * time.Second
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	got := byDir(rep)
	for d, want := range map[string][]string{
		"registry/curated/tools/loops-prepack": {
			"npm pack failed: npm did not finish within 8s while packing and was stopped; it runs its prepack script (node -e \"console.error('waiting for the build server'); require('child_process')",
			"…); its last output: waiting for the build server; raise --step-timeout if it is only slow",
			"; raise --step-timeout if it is only slow"},
		"registry/curated/tools/needs-registry": {
			"install failed: npm did not finish within 8s while installing (tried twice) and was stopped",
			"; raise --step-timeout if it is only slow"},
	} {
		r := got[d]
		if r == nil {
			t.Fatalf("%s was not guarded: %+v", d, rep.Packages)
		}
		for _, w := range want {
			if r.OK || !strings.Contains(r.Reason, w) {
				t.Errorf("%s: ok %v, reason %q\nwant it to contain %q", d, r.OK, r.Reason, w)
			}
		}
	}
	if n := accepted.Load(); n < 2 {
		t.Errorf("the silent registry was reached %d times, want one at least for each try of the install", n)
	}
	assertNoLeftovers(t, opts.TempDir)
}

// TestPrepackBuilds: a pack whose dist/ is built by its prepack script, with a tool from
// node_modules/.bin, packs and passes in the layouts that hold that tool: a single-package
// repository (the package is the workspace root, its copy lies over the read-only workspace and
// its node_modules must show through it), a monorepo member using the root's hoisted tool, and
// one using a tool of its own node_modules. The build writes to the copy: the workspace keeps no
// dist/, nor its node_modules what the builder writes there as Vite does (a scratch layer
// takes it; a read-only folder failed it with EROFS). The builder asks git for the commit, as a version banner does: the repository shows
// through the copy (a single-package repository's .git too) and git, run as another user than
// the repository's owner when plaios is root, does not refuse it as of dubious ownership. A
// member whose tool is installed nowhere fails with the shell's 127 explained.
func TestPrepackBuilds(t *testing.T) {
	t.Parallel() // see baseOptions
	builder := func(name string) map[string]string {
		return map[string]string{
			"node_modules/" + name + "/package.json": `{"name":"` + name + `","version":"1.0.0","bin":{"` + name + `":"bin.js"}}`,
			"node_modules/" + name + "/bin.js": `#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
// What Vite does with an ESM config (vite 6, dist/node/chunks/dep-*.js, loadConfigFromBundledFile):
// the bundled config goes to .vite-temp in the nearest node_modules, next to the config only
// when that folder refuses with EACCES; any other error ends the build.
let nm;
for (let d = process.cwd(); !nm; d = path.dirname(d)) {
  if (fs.existsSync(path.join(d, 'node_modules'))) nm = path.join(d, 'node_modules');
  if (path.dirname(d) === d) break;
}
let temp = 'vite.config.mjs.timestamp.mjs';
try {
  fs.mkdirSync(path.join(nm, '.vite-temp'), { recursive: true });
  temp = path.join(nm, '.vite-temp', temp);
} catch (e) {
  if (e.code !== 'EACCES') throw e;
}
fs.writeFileSync(temp, 'export default {};\n');
fs.unlinkSync(temp);
const head = require('node:child_process').execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/index.js', "// built at " + head + "\n" + "export function createExtensionPack() {\n  return { name: 'built', descriptors: [{ id: 'echo', kind: 'tool', payload: { name: 'echo' } }] };\n}\n");
`,
		}
	}
	pack := func(prefix, name, tool string) map[string]string {
		return map[string]string{
			prefix + "package.json": `{"name":"@guard-build/agentos-ext-` + name + `","version":"1.0.0","type":"module","main":"./dist/index.js",
"files":["dist","manifest.json"],"license":"Apache-2.0","publishConfig":{"access":"public"},"scripts":{"prepack":"` + tool + `"}}`,
			prefix + "manifest.json": `{"id":"com.guard.` + name + `","name":"` + name + `","version":"1.0.0","extensions":[{"kind":"tool","id":"echo"}]}`,
			prefix + "README.md":     "# " + name + "\n",
		}
	}
	write := func(t *testing.T, dir string, parts ...map[string]string) {
		for _, files := range parts {
			testenv.WriteFiles(t, dir, files)
		}
		// Each builder's bin.js made executable and linked from node_modules/.bin, as npm does.
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Name() != "bin.js" {
				return err
			}
			tool := filepath.Base(filepath.Dir(p))
			link := filepath.Join(filepath.Dir(filepath.Dir(p)), ".bin", tool)
			if err := os.Chmod(p, 0o755); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				return err
			}
			return os.Symlink(filepath.Join("..", tool, "bin.js"), link)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		parts []map[string]string
		dirs  []string
	}{
		{"single-package", []map[string]string{pack("", "solo", "build-solo"), builder("build-solo")}, []string{"."}},
		{"monorepo", []map[string]string{
			{"package.json": `{"name":"build-repo","private":true,"workspaces":["packages/*"]}`},
			builder("build-hoisted"),
			pack("packages/hoisted/", "hoisted", "build-hoisted"),
			pack("packages/own/", "own", "build-own"),
			prefixed("packages/own/", builder("build-own")),
			pack("packages/uninstalled/", "uninstalled", "build-uninstalled"),
		}, []string{"packages/hoisted", "packages/own", "packages/uninstalled"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, c.parts...)
			testenv.GitInit(t, dir)
			testenv.Git(t, dir, "add", "-A")
			testenv.Git(t, dir, "commit", "-q", "-m", "init")
			head := testenv.Git(t, dir, "rev-parse", "HEAD")
			opts := baseOptions(t, dir)
			opts.All = true
			opts.Out = t.TempDir()
			rep, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			got := byDir(rep)
			if len(rep.Packages) != len(c.dirs) {
				t.Errorf("guarded %d packages, want %d", len(rep.Packages), len(c.dirs))
			}
			for _, d := range c.dirs {
				r := got[d]
				if d == "packages/uninstalled" {
					// Its tool is in no node_modules: the shell's 127 with the shell's own line, explained.
					// (The shell's words differ: dash says "sh: 1: x: not found", bash "sh: x: command not found".)
					hint := "; exit code 127 means a command the script runs was not found: are the package's dependencies installed (npm ci) before guard runs?"
					if r == nil || r.OK || !strings.HasPrefix(r.Reason, "npm pack failed: ") || !strings.Contains(r.Reason, "command sh -c build-uninstalled; its output: sh: ") ||
						!strings.Contains(r.Reason, "build-uninstalled: ") || !strings.Contains(r.Reason, "not found"+hint) {
						t.Errorf("%s: %+v\nwant npm's lines, the shell's, then %q", d, r, hint)
					}
					continue
				}
				if r == nil || !r.OK || len(r.Descriptors) != 1 {
					t.Errorf("%s: %+v", d, r)
					continue
				}
				for _, p := range []string{filepath.Join(d, "dist"), filepath.Join(d, "node_modules", ".vite-temp"), filepath.Join("node_modules", ".vite-temp")} {
					if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
						t.Errorf("%s: the prepack build wrote %s into the workspace (%v)", d, p, err)
					}
				}
				if built := testenv.TarballFiles(t, filepath.Join(opts.Out, r.Tarball))["package/dist/index.js"]; !strings.HasPrefix(built, "// built at "+head+"\n") {
					t.Errorf("%s: the build did not read the commit from git: %.80q", d, built)
				}
			}
		})
	}
}

// prefixed puts every path of files under prefix.
func prefixed(prefix string, files map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[prefix+k] = v
	}
	return out
}

// TestInstallScripts: the joint install runs no install script; afterwards only the
// dependencies the role map's fixtures.<dir>.installScripts names are rebuilt.
func TestInstallScripts(t *testing.T) {
	t.Parallel() // see baseOptions
	reg := testRegistry(t)
	deps := t.TempDir()
	for _, name := range []string{"native", "other"} {
		testenv.WriteFiles(t, filepath.Join(deps, name), map[string]string{
			"package.json": `{"name":"@guard-scripts/` + name + `","version":"1.0.0","main":"index.js",
"scripts":{"install":"node -e \"require('fs').writeFileSync('built.txt', 'built')\""}}`,
			"index.js": "module.exports = {};\n",
		})
		reg.Publish(t, filepath.Join(deps, name))
	}
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json": `{"name":"scripts-repo","private":true}`,
		"scripts/package-roles.json": `{"roles":{"registry/curated/tools/uses-native":"pack"},
"fixtures":{"registry/curated/tools/uses-native":{"installScripts":["@guard-scripts/native"]}}}`,
		"registry/curated/tools/uses-native/package.json": `{"name":"@guard-scripts/agentos-ext-uses-native","version":"1.0.0","type":"module",
"main":"./dist/index.js","files":["dist","manifest.json"],"license":"Apache-2.0","publishConfig":{"access":"public"},"dependencies":{"@guard-scripts/native":"^1.0.0","@guard-scripts/other":"^1.0.0"}}`,
		"registry/curated/tools/uses-native/manifest.json": `{"id":"com.guard.uses-native","name":"uses-native","version":"1.0.0","extensions":[{"kind":"tool","id":"echo"}]}`,
		"registry/curated/tools/uses-native/dist/index.js": `
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
const require = createRequire(import.meta.url);
const built = (name) => fs.existsSync(path.join(path.dirname(require.resolve(name + '/package.json')), 'built.txt'));
if (!built('@guard-scripts/native')) throw new Error('the native dependency was not rebuilt');
if (built('@guard-scripts/other')) throw new Error('an install script that no fixture names ran');
export function createExtensionPack() {
  return { name: 'uses-native', descriptors: [{ id: 'echo', kind: 'tool', payload: { name: 'echo' } }] };
}
`,
	})
	opts := baseOptions(t, dir)
	opts.All = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 1 || !rep.Packages[0].OK {
		t.Fatalf("%+v", rep.Packages[0])
	}
}

// TestWorkspaceProtocolWithNPM holds guard to what npm does with a packed workspace:
// specifier: a consumer's npm install never reads a dependency's devDependencies, so a tarball
// with "workspace:*" there installs, while one with it in dependencies does not. The real npm
// installs both tarballs from the test registry, and guard's verdicts agree with it.
func TestWorkspaceProtocolWithNPM(t *testing.T) {
	t.Parallel() // see baseOptions
	reg := testRegistry(t)
	npm := testenv.LookPath(t, "npm")
	dir := t.TempDir()
	pkg := func(name, field string) string {
		return `{"name":"@guard-ws/` + name + `","version":"1.0.0","type":"module","main":"index.js","license":"MIT",
"` + field + `":{"@guard-ws/helper":"workspace:*"}}`
	}
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json":                 `{"name":"ws-repo","private":true,"workspaces":["packages/*"]}`,
		"packages/helper/package.json": `{"name":"@guard-ws/helper","version":"1.0.0","type":"module","main":"index.js","license":"MIT"}`,
		"packages/helper/index.js":     "export const help = true;\n",
		"packages/helper/README.md":    "# helper\n\n```js\nimport { help } from '@guard-ws/helper';\n```\n",
		"packages/dev/package.json":    pkg("dev", "devDependencies"),
		"packages/dev/index.js":        "export const dev = true;\n",
		"packages/dev/README.md":       "# dev\n\n```js\nimport { dev } from '@guard-ws/dev';\n```\n",
		"packages/dep/package.json":    pkg("dep", "dependencies"),
		"packages/dep/index.js":        "export const dep = true;\n",
		"packages/dep/README.md":       "# dep\n\n```js\nimport { dep } from '@guard-ws/dep';\n```\n",
	})
	env := reg.NPMEnv()
	packs := t.TempDir()
	testenv.Run(t, dir, env, npm, "pack", "--pack-destination", packs, "./packages/dev", "./packages/dep")
	install := func(name string) (string, error) {
		project := t.TempDir()
		testenv.WriteFiles(t, project, map[string]string{"package.json": `{"name":"consumer","private":true,"dependencies":{"@guard-ws/` + name + `":"file:` + filepath.Join(packs, "guard-ws-"+name+"-1.0.0.tgz") + `"}}`})
		return testenv.RunErr(project, env, npm, "install", "--no-audit", "--no-fund")
	}
	if out, err := install("dev"); err != nil {
		t.Fatalf("npm refused the tarball with workspace:* in devDependencies: %v\n%s", err, out)
	}
	out, err := install("dep")
	if err == nil || !strings.Contains(out, "EUNSUPPORTEDPROTOCOL") {
		t.Fatalf("npm installed the tarball with workspace:* in dependencies (%v):\n%s", err, out)
	}

	opts := baseOptions(t, dir)
	opts.Only = []string{"packages/dev", "packages/dep"}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	got := byDir(rep)
	if r := got["packages/dev"]; r == nil || !r.OK {
		t.Errorf("dev: %+v", r)
	}
	if r := got["packages/dep"]; r == nil || r.OK || r.Diagnostics[0].Rule != "workspace-protocol" || !strings.Contains(r.Reason, `dependencies "@guard-ws/helper": "workspace:*"`) {
		t.Errorf("dep: %+v", r)
	}
}

// TestOfflineInstallOfMembers: members that depend only on each other install without the
// network and pass; npm is told so (--offline), so that it asks the registry, which the
// install's sandbox cannot reach, for nothing. With the network, it is not.
func TestOfflineInstallOfMembers(t *testing.T) {
	t.Parallel() // see baseOptions
	for _, c := range []struct {
		network bool
		want    string
	}{
		{false, "install --ignore-scripts --no-audit --no-fund --no-package-lock --legacy-peer-deps --loglevel=error --registry http://r.invalid/ --offline"},
		{true, "install --ignore-scripts --no-audit --no-fund --no-package-lock --legacy-peer-deps --loglevel=error --registry http://r.invalid/"},
	} {
		if got := strings.Join(installArgs("http://r.invalid/", c.network), " "); got != c.want {
			t.Errorf("network %v: npm %s, want npm %s", c.network, got, c.want)
		}
	}

	dir := t.TempDir()
	readme := func(name string) string {
		return "# " + name + "\n\n```js\nimport '@guard-off/" + name + "';\n```\n"
	}
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json":               `{"name":"off-repo","private":true,"workspaces":["packages/*"]}`,
		"packages/base/package.json": `{"name":"@guard-off/base","version":"1.0.0","type":"module","main":"index.js","license":"MIT"}`,
		"packages/base/index.js":     "export const base = 1;\n",
		"packages/base/README.md":    readme("base"),
		"packages/user/package.json": `{"name":"@guard-off/user","version":"1.0.0","type":"module","main":"index.js","license":"MIT","dependencies":{"@guard-off/base":"^1.0.0"}}`,
		"packages/user/index.js":     "import { base } from '@guard-off/base';\nexport const user = base + 1;\n",
		"packages/user/README.md":    readme("user"),
	})
	opts := baseOptions(t, dir)
	opts.All = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 2 {
		t.Errorf("guarded %d packages, want 2", len(rep.Packages))
	}
	for _, r := range rep.Packages {
		if !r.OK {
			t.Errorf("%s: %s", r.Name, r.Reason)
		}
	}
}
