package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/plaios/plaios/internal/testenv"
)

// The want sections of testdata/packs/bad are plaios's own output (rewritten by -update). So
// that a finding is not true only because plaios says so, every fixture whose rule reads a
// fact another tool decides is also put to that tool here: the pinned npm (what it packs,
// which names it takes, what it publishes), node-semver, Node (JSON.parse and exports
// resolution), Ajv configured as the AgentOS executor (which schemas it refuses), js-yaml and
// the JSON5 parser OpenClaw reads its manifest with; pinnedByOtherTests names the tests that
// hold a fixture's rule to a tool on cases of their own. The fixtures whose rule is a
// runtime's documented convention, which no tool here decides, are listed in
// pinnedByPlaiosAlone with the document they follow. The README's test section says which is
// which.

// fact is one thing an outside tool must say about a fixture.
type fact struct {
	Kind string `json:"kind"` // see externalFacts
	Dir  string `json:"dir"`  // the package folder inside the fixture ("" = the fixture's root)
	File string `json:"file,omitempty"`
	Ptr  string `json:"ptr,omitempty"` // JSON pointer into File
	Arg  string `json:"arg,omitempty"`
	Want string `json:"want,omitempty"` // the error code the tool must answer with, when it names one
}

const (
	agentosDemo = "registry/curated/tools/demo"
)

// externalFacts are, per fixture, what the outside tools say:
//
//	npm-pack-excludes Arg   `npm pack --dry-run` does not pack the file Arg (made first if missing, as a build would)
//	npm-pack-includes Arg   `npm pack --dry-run` packs Arg
//	npm-pack-fails          `npm pack` refuses the package
//	npm-packs-as-written Arg the package.json npm packs still holds Arg
//	npm-name-invalid Arg    npm's validate-npm-package-name refuses the name Arg for a new package
//	semver-invalid File Ptr node-semver's valid() refuses the version at Ptr
//	json-invalid File       JSON.parse throws
//	json5-invalid File      OpenClaw's JSON5 parser throws
//	yaml-invalid File       js-yaml's load throws
//	node-exports-refuses Arg Node refuses to resolve the specifier Arg (with the code Want)
//	ajv-refuses File Ptr    Ajv, configured as the AgentOS executor, refuses to compile the schema at Ptr
//	ajv-async File Ptr      that Ajv compiles the schema at Ptr to an asynchronous validator
//	ajv-default-invalid File Ptr that Ajv finds the default of the schema at Ptr invalid against it
var externalFacts = map[string][]fact{
	"package-name-invalid":       {{Kind: "npm-name-invalid", Arg: "@Acme/Weather"}},
	"package-version-invalid":    {{Kind: "semver-invalid", File: "package.json", Ptr: "/version"}},
	"package-json-invalid":       {{Kind: "json-invalid", File: "package.json"}, {Kind: "npm-pack-fails"}},
	"entry-not-shipped":          {{Kind: "npm-pack-excludes", Arg: "lib/index.js"}},
	"entry-not-shipped-dist":     {{Kind: "npm-pack-excludes", Arg: "dist/index.js"}},
	"manifest-not-shipped":       {{Kind: "npm-pack-excludes", Arg: "agent-os.package.yaml"}},
	"openclaw-entry-not-shipped": {{Kind: "npm-pack-excludes", Arg: "index.ts"}},
	"pi-extension-missing":       {{Kind: "npm-pack-excludes", Arg: "src/index.ts"}},
	"secret-shipped":             {{Kind: "npm-pack-includes", Arg: ".env"}, {Kind: "npm-pack-includes", Arg: "scripts/deploy.js"}},
	"workspace-protocol":         {{Kind: "npm-packs-as-written", Arg: `"@acme/core": "workspace:*"`}, {Kind: "npm-packs-as-written", Arg: `"zod": "catalog:"`}},
	"exports-target-invalid": {
		{Kind: "node-exports-refuses", Arg: "demo/up", Want: "ERR_INVALID_PACKAGE_TARGET"},
		{Kind: "node-exports-refuses", Arg: "demo/enc", Want: "ERR_INVALID_PACKAGE_TARGET"},
		// Node takes "./x" under "./mixed" for a condition that never matches: the subpath the
		// author meant is not exported.
		{Kind: "node-exports-refuses", Arg: "demo/x", Want: "ERR_PACKAGE_PATH_NOT_EXPORTED"},
	},
	"agentos-manifest-invalid-json":   {{Kind: "json-invalid", Dir: agentosDemo, File: "manifest.json"}},
	"openclaw-manifest-invalid-json5": {{Kind: "json5-invalid", File: "openclaw.plugin.json"}},
	"plaios-manifest-invalid-yaml":    {{Kind: "yaml-invalid", File: "agent-os.package.yaml"}},
	"plaios-manifest-invalid":         {{Kind: "yaml-invalid", File: "agent-os.package.yaml"}}, // the repeated key
	"schema-invalid":                  {{Kind: "ajv-refuses", File: "openclaw.plugin.json", Ptr: "/configSchema"}},
	"schema-type-unknown":             {{Kind: "ajv-refuses", File: "openclaw.plugin.json", Ptr: "/configSchema/properties/days"}},
	"schema-type-unknown-config":      {{Kind: "ajv-refuses", Dir: agentosDemo, File: "manifest.json", Ptr: "/configuration/properties/demo.retries"}},
	"schema-draft":                    {{Kind: "ajv-refuses", File: "openclaw.plugin.json", Ptr: "/configSchema"}},
	"schema-meta-id":                  {{Kind: "ajv-refuses", File: "openclaw.plugin.json", Ptr: "/configSchema"}},
	"schema-format-unknown":           {{Kind: "ajv-refuses", File: "openclaw.plugin.json", Ptr: "/configSchema/properties/when"}},
	"schema-keyword-unknown":          {{Kind: "ajv-refuses", File: "openclaw.plugin.json", Ptr: "/configSchema"}},
	"schema-async":                    {{Kind: "ajv-async", File: "openclaw.plugin.json", Ptr: "/configSchema"}},
	"schema-default-invalid":          {{Kind: "ajv-default-invalid", File: "openclaw.plugin.json", Ptr: "/configSchema/properties/days"}},
	"types-not-shipped":               {{Kind: "npm-pack-excludes", Arg: "dist/index.d.ts"}, {Kind: "npm-pack-excludes", Arg: "index.d.ts"}},
	"openclaw-entry-escapes":          {{Kind: "npm-pack-excludes", Arg: "lib/index.js"}},
	"openclaw-entry-runtime":          {{Kind: "npm-pack-excludes", Dir: "plugins/brave", Arg: "dist/index.js"}},
}

// pinnedByOtherTests are the fixtures whose rule another test of this package holds to the
// real tool, on cases of its own.
var pinnedByOtherTests = map[string]string{
	"entry-typescript":              "TestEntryTypeScriptFollowsNode (Node 24 and the machine's Node import such packages)",
	"openclaw-entry-escapes":        "TestOpenClawEntryAgreesWithOpenClaw (the real openclaw plugins install)",
	"openclaw-entry-runtime":        "TestOpenClawEntryAgreesWithOpenClaw (the real openclaw plugins install)",
	"workspace-protocol":            "TestWorkspaceProtocolFollowsNPM (npm packs and installs every dependency field)",
	"pi-extension-missing-resolved": "TestPiExtensionsAgreeWithPi (internal/pack: the pinned Pi's own package manager resolves the same folders, globs and patterns)",
}

// pinnedByPlaiosAlone are the fixtures whose finding no tool here decides: the rule reads a
// runtime's documented convention (or a field's documented type), and the fixture's want
// section is plaios's reading of it.
var pinnedByPlaiosAlone = map[string]string{
	"package-json-invalid-types":       "npm's package.json documentation (npm pack takes these fields)",
	"readme-missing":                   "plaios's own convention (a README with an example)",
	"readme-missing-example":           "plaios's own convention (a README with an example)",
	"agentos-kind-unknown":             "the AgentOS extension kinds (RUNTIMES.md)",
	"agentos-license":                  "the AgentOS registry's licence (RUNTIMES.md)",
	"agentos-license-file":             "the AgentOS registry's licence (RUNTIMES.md)",
	"agentos-manifest-invalid":         "the AgentOS manifest shape (RUNTIMES.md)",
	"agentos-manifest-not-exported":    "the AgentOS pack layout (RUNTIMES.md)",
	"agentos-name":                     "the AgentOS registry's naming (RUNTIMES.md)",
	"agentos-peer-range":               "the AgentOS peer convention (RUNTIMES.md)",
	"agentos-peer-range-missing":       "the AgentOS peer convention (RUNTIMES.md)",
	"agentos-publish-access":           "npm's scoped publishing default and the AgentOS registry (RUNTIMES.md)",
	"agentos-secret-undeclared":        "the AgentOS secret catalogue (RUNTIMES.md)",
	"agentos-version-mismatch":         "the AgentOS release convention (RELEASE.md)",
	"openclaw-entry":                   "OpenClaw's package.json contract (RUNTIMES.md)",
	"openclaw-manifest-invalid":        "OpenClaw's manifest contract (RUNTIMES.md)",
	"openclaw-version-mismatch":        "the release convention (RELEASE.md)",
	"pi-peer-range":                    "Pi's package contract (RUNTIMES.md)",
	"plaios-class-missing":             "the PLAIOS host's manifest contract (RUNTIMES.md)",
	"plaios-config-invalid":            "the PLAIOS host's manifest contract (RUNTIMES.md)",
	"plaios-dependency-unknown":        "the PLAIOS host's manifest contract (RUNTIMES.md)",
	"plaios-entry-unresolved":          "the PLAIOS host's manifest contract, resolved as Node resolves exports (the exports oracle)",
	"plaios-field-ignored":             "the PLAIOS host's manifest contract (RUNTIMES.md)",
	"plaios-interface-duplicate":       "the PLAIOS host's manifest contract (RUNTIMES.md)",
	"plaios-kind-unknown":              "the PLAIOS host's kinds (RUNTIMES.md)",
	"plaios-manifest-invalid-empty":    "the PLAIOS host's manifest contract (RUNTIMES.md)",
	"plaios-page-missing":              "the PLAIOS host's page layout (RUNTIMES.md)",
	"plaios-startup-invalid":           "the PLAIOS host's manifest contract (RUNTIMES.md)",
	"plaios-version-mismatch":          "the release convention (RELEASE.md)",
	"role-missing":                     "the role map of RELEASE.md",
	"role-orphan":                      "the role map of RELEASE.md",
	"role-unknown":                     "the role map of RELEASE.md",
	"schema-not-strict":                "strict function calling as PLAIOS capabilities need it (RUNTIMES.md)",
	"tool-name-invalid":                "the runtimes' and MCP's tool name rules (RUNTIMES.md)",
	"agentos-name-no-roles":            "the AgentOS registry's naming (RUNTIMES.md)",
	"host-runtime-dependency-agentos":  "the hosts' peer convention (RUNTIMES.md)",
	"host-runtime-dependency-openclaw": "the hosts' peer convention (RUNTIMES.md)",
	"path-outside-package":             "npm packs only the package folder (npm's documentation of files, main and bin)",
}

// factsScript answers every fact with the pinned tools: one node process for all but npm.
const factsScript = `
const path = require('path');
const fs = require('fs');
const { createRequire } = require('module');
const [nm, json5Dir] = process.argv.slice(1);
const Ajv = require(path.join(nm, 'ajv'));
const addFormats = require(path.join(nm, 'ajv-formats'));
const semver = require(path.join(nm, 'semver'));
const yaml = require(path.join(nm, 'js-yaml'));
const validateName = require(path.join(nm, 'npm', 'node_modules', 'validate-npm-package-name'));
const JSON5 = require(json5Dir);
// at reads a JSON pointer, failing (and so failing the test) when it leads nowhere, so that a
// wrong pointer cannot pass for a refused schema.
const at = (doc, ptr) => ptr.split('/').slice(1).reduce((v, k) => {
  k = k.replace(/~1/g, '/').replace(/~0/g, '~');
  if (v === null || typeof v !== 'object' || !(k in v)) throw new Error('no ' + ptr);
  return v[k];
}, doc);
const ajv = () => { const a = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true }); addFormats(a); return a; };
// refused runs f and answers with its error's code (or message), or false when it succeeds.
const refused = (f) => { try { f(); return false; } catch (e) { return String(e.code || e.message || e); } };
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', () => {
  const out = JSON.parse(input).map((c) => {
    // Files are read outside refused: a missing file fails the test instead of passing.
    const text = c.file ? fs.readFileSync(path.join(c.root, c.file), 'utf8') : '';
    switch (c.kind) {
      case 'npm-name-invalid': return validateName(c.arg).validForNewPackages === false || 'valid';
      case 'semver-invalid': return semver.valid(at(JSON.parse(text), c.ptr)) === null || 'valid';
      case 'json-invalid': return refused(() => JSON.parse(text)) || 'parses';
      case 'json5-invalid': return refused(() => JSON5.parse(text)) || 'parses';
      case 'yaml-invalid': return refused(() => yaml.load(text)) || 'loads';
      case 'node-exports-refuses': {
        const req = createRequire(path.join(c.project, 'index.js'));
        req.resolve(c.arg.split('/')[0]); // the package itself resolves: the setup is right
        return refused(() => req.resolve(c.arg)) || 'resolves';
      }
      case 'ajv-refuses': { const s = at(JSON.parse(text), c.ptr); return refused(() => ajv().compile(s)) || 'compiles'; }
      case 'ajv-async': return ajv().compile(at(JSON.parse(text), c.ptr)).$async === true || 'not async';
      case 'ajv-default-invalid': {
        // The default checked against its own schema (an Ajv that fills no defaults, so that
        // strict mode does not refuse a default at the root).
        const s = at(JSON.parse(text), c.ptr);
        const a = new Ajv({ allErrors: true }); addFormats(a);
        return !a.validate(s, s.default) || 'valid';
      }
    }
    return 'unknown fact ' + c.kind;
  });
  process.stdout.write(JSON.stringify({ node: process.version, answers: out }));
});
`

// TestBadPacksAgreeWithTheTools puts every fixture of externalFacts to its tool, and checks
// that every fixture of testdata/packs/bad is either there or in pinnedByPlaiosAlone.
func TestBadPacksAgreeWithTheTools(t *testing.T) {
	testenv.SkipShort(t, "asks npm, node, Ajv and JSON5 about every bad pack")
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "packs", "bad", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		names = append(names, name)
		_, ext := externalFacts[name]
		_, other := pinnedByOtherTests[name]
		_, alone := pinnedByPlaiosAlone[name]
		if (ext || other) == alone {
			t.Errorf("testdata/packs/bad/%s.txtar: list it in externalFacts (what a tool must say about it) or pinnedByOtherTests, or else in pinnedByPlaiosAlone (the convention it follows)", name)
		}
	}
	for name := range externalFacts {
		if !slices.Contains(names, name) {
			t.Errorf("externalFacts names %s, which is not a fixture", name)
		}
	}
	for name := range pinnedByOtherTests {
		if !slices.Contains(names, name) {
			t.Errorf("pinnedByOtherTests names %s, which is not a fixture", name)
		}
	}

	type question struct {
		fact
		Root    string `json:"root"`
		Project string `json:"project,omitempty"`
		name    string
	}
	var nodeQs []question
	sort.Strings(names)
	for _, name := range names {
		for _, f := range externalFacts[name] {
			root := extractFixture(t, filepath.Join(testenv.RepoRoot(t), "testdata", "packs", "bad", name+".txtar"))
			pkg := filepath.Join(root, filepath.FromSlash(f.Dir))
			switch {
			case strings.HasPrefix(f.Kind, "npm-pack"):
				t.Run(name+"/"+f.Kind+"/"+f.Arg, func(t *testing.T) {
					t.Parallel() // each its own npm process and folder
					checkNPMPack(t, name, pkg, f)
				})
			default:
				q := question{fact: f, Root: pkg, name: name}
				if f.Kind == "node-exports-refuses" {
					q.Project = t.TempDir()
					link := filepath.Join(q.Project, "node_modules", strings.Split(f.Arg, "/")[0])
					if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(pkg, link); err != nil {
						t.Fatal(err)
					}
				}
				nodeQs = append(nodeQs, q)
			}
		}
	}

	ocBin, _ := testenv.OpenClaw(t)
	json5Dir := filepath.Join(filepath.Dir(filepath.Dir(ocBin)), "json5")
	var reply struct {
		Node    string `json:"node"`
		Answers []any  `json:"answers"`
	}
	testenv.AskNode(t, nil, nodeQs, &reply, "-e", factsScript, testenv.NodeModules(t), json5Dir)
	if len(reply.Answers) != len(nodeQs) {
		t.Fatalf("node answered %d of %d", len(reply.Answers), len(nodeQs))
	}
	if reply.Node != testenv.OracleNodeVersion {
		t.Fatalf("the facts ran on node %s, want the pinned %s", reply.Node, testenv.OracleNodeVersion)
	}
	for i, q := range nodeQs {
		// The yes/no facts answer true; the refusals answer the error's code or message, and
		// "parses", "loads", "resolves" or "compiles" when the tool accepts.
		a := reply.Answers[i]
		var ok bool
		switch refusal, _ := a.(string); q.Kind {
		case "npm-name-invalid", "semver-invalid", "ajv-async", "ajv-default-invalid":
			ok = a == true
		default:
			ok = refusal != "" && !slices.Contains([]string{"parses", "loads", "resolves", "compiles"}, refusal) && (q.Want == "" || refusal == q.Want)
		}
		if !ok {
			t.Errorf("%s: %s %s %s %s: the tool does not agree (%v)", q.name, q.Kind, q.File, q.Ptr, q.Arg, a)
		}
	}
	t.Logf("%d fixtures pinned here by npm, node-semver, Node, Ajv, js-yaml or JSON5, %d by other tests' oracles; %d by plaios's reading of a runtime's convention",
		len(externalFacts), len(pinnedByOtherTests), len(pinnedByPlaiosAlone))
}

// checkNPMPack asks the pinned npm about one fixture.
func checkNPMPack(t *testing.T, name, pkg string, f fact) {
	t.Helper()
	argv, env := testenv.OracleNPM(t)
	env = testenv.ChildEnv(t, env)
	run := func(args ...string) (string, error) {
		return testenv.RunErr(pkg, env, argv[0], append(argv[1:], args...)...)
	}
	switch f.Kind {
	case "npm-pack-fails":
		if out, err := run("pack", "--dry-run", "--json", "--ignore-scripts"); err == nil {
			t.Errorf("%s: npm pack accepts the package:\n%s", name, out)
		}
		return
	case "npm-packs-as-written":
		dest := t.TempDir()
		if out, err := run("pack", "--pack-destination", dest, "--ignore-scripts", "--silent"); err != nil {
			t.Fatalf("%s: npm pack: %v\n%s", name, err, out)
		}
		tgz, _ := filepath.Glob(filepath.Join(dest, "*.tgz"))
		if len(tgz) != 1 {
			t.Fatalf("%s: npm pack wrote %v", name, tgz)
		}
		if pj := packedFile(t, tgz[0], "package/package.json"); !strings.Contains(pj, f.Arg) {
			t.Errorf("%s: the package.json npm packs does not hold %s:\n%s", name, f.Arg, pj)
		}
		return
	}
	target := filepath.Join(pkg, filepath.FromSlash(f.Arg))
	if _, err := os.Stat(target); os.IsNotExist(err) {
		testenv.WriteFiles(t, pkg, map[string]string{f.Arg: "export {};\n"}) // as the build would make it
	}
	out, err := run("pack", "--dry-run", "--json", "--ignore-scripts", "--foreground-scripts=false", "--loglevel=silent")
	if err != nil {
		t.Fatalf("%s: npm pack --dry-run: %v\n%s", name, err, out)
	}
	var res []struct {
		Files []struct{ Path string } `json:"files"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &res); err != nil || len(res) != 1 {
		t.Fatalf("%s: npm pack --json: %v\n%s", name, err, out)
	}
	packed := false
	for _, file := range res[0].Files {
		packed = packed || file.Path == f.Arg
	}
	if want := f.Kind == "npm-pack-includes"; packed != want {
		t.Errorf("%s: npm packs %s: %v, the finding needs %v", name, f.Arg, packed, want)
	}
}

// extractFixture writes a fixture's files (all but want) into a temporary folder.
func extractFixture(t *testing.T, file string) string {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{}
	for _, f := range ar.Files {
		if f.Name != "want" {
			files[f.Name] = string(f.Data)
		}
	}
	testenv.WriteFiles(t, dir, files)
	return dir
}

// packedFile reads one file out of a tarball.
func packedFile(t *testing.T, tgz, name string) string {
	t.Helper()
	data, ok := testenv.TarballFiles(t, tgz)[name]
	if !ok {
		t.Fatalf("%s has no %s", tgz, name)
	}
	return data
}
