package pack

import (
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/workspace"
)

// TestDetect decides runtimes by content only (CLI.md's table): the marker files, a manifest
// that declares extensions, a dependency on @framers/agentos, a pi field — never the scope,
// the name or the folder.
func TestDetect(t *testing.T) {
	fsys := fstest.MapFS{
		"package.json":                     {Data: []byte(`{"name":"root","private":true,"workspaces":["packages/*","registry/curated/*/*","templates/*"]}`)},
		"scripts/package-roles.json":       {Data: []byte(`{"roles":{".":"root","registry/curated/tools/x":"pack","registry/curated/tools/plain":"pack","registry/curated/tools/scoped-only":"pack","templates/t":"template"}}`)},
		"packages/p/package.json":          {Data: []byte(`{"name":"@plaios/p","version":"0.1.0"}`)},
		"packages/p/agent-os.package.yaml": {Data: []byte("schemaVersion: 1\n")},
		"packages/o/package.json":          {Data: []byte(`{"name":"o","version":"0.1.0"}`)},
		"packages/o/openclaw.plugin.json":  {Data: []byte(`{id:"o"}`)},
		"packages/pi/package.json":         {Data: []byte(`{"name":"pi-x","version":"0.1.0","pi":{"extensions":["./a.js"]}}`)},
		// A manifest.json that declares no extensions (a web app manifest) is not AgentOS.
		"packages/m/package.json":  {Data: []byte(`{"name":"not-agentos","version":"0.1.0"}`)},
		"packages/m/manifest.json": {Data: []byte(`{"name":"My App","icons":[]}`)},
		// A community pack: any scope, any folder, a manifest declaring extensions.
		"packages/demo/package.json":  {Data: []byte(`{"name":"@acme/agentos-ext-demo","version":"0.1.0","peerDependencies":{"@framers/agentos":">=0.9.0"}}`)},
		"packages/demo/manifest.json": {Data: []byte(`{"id":"com.acme.demo","name":"demo","version":"0.1.0","extensions":[{"kind":"tool","id":"demo"}]}`)},
		// The manifest alone decides, without any dependency…
		"packages/manifest-only/package.json":  {Data: []byte(`{"name":"manifest-only","version":"0.1.0"}`)},
		"packages/manifest-only/manifest.json": {Data: []byte(`{"id":"m","name":"m","version":"0.1.0","extensions":[]}`)},
		// …and any kind of dependency on the runtime decides, without a manifest.
		"packages/dev-dep/package.json":              {Data: []byte(`{"name":"dev-dep","version":"0.1.0","devDependencies":{"@framers/agentos":"^0.9.0"}}`)},
		"packages/opt-dep/package.json":              {Data: []byte(`{"name":"opt-dep","version":"0.1.0","optionalDependencies":{"@framers/agentos":"*"}}`)},
		"packages/dep/package.json":                  {Data: []byte(`{"name":"dep","version":"0.1.0","dependencies":{"@framers/agentos":"*"}}`)},
		"packages/broken/package.json":               {Data: []byte(`{"name":"broken","version":"0.1.0","peerDependencies":{"@framers/agentos":"*"}}`)},
		"packages/broken/manifest.json":              {Data: []byte(`{"extensions": [`)},
		"packages/similar/package.json":              {Data: []byte(`{"name":"similar","version":"0.1.0","dependencies":{"@framers/agentos-ext-web-search":"*"}}`)},
		"registry/curated/tools/x/package.json":      {Data: []byte(`{"name":"@framers/agentos-ext-x","version":"1.0.0"}`)},
		"registry/curated/tools/x/manifest.json":     {Data: []byte(`{"name":"x","version":"1.0.0","extensionId":"x","kind":"tool","entryPoint":"./dist/index.js"}`)},
		"registry/curated/tools/plain/package.json":  {Data: []byte(`{"name":"plain","version":"1.0.0"}`)},
		"registry/curated/tools/plain/manifest.json": {Data: []byte(`{"id":"a","name":"a","version":"1.0.0","extensions":[]}`)},
		// The framers scope and the curated folder alone decide nothing.
		"registry/curated/tools/scoped-only/package.json": {Data: []byte(`{"name":"@framers/agentos-ext-scoped-only","version":"1.0.0"}`)},
		"templates/t/package.json":                        {Data: []byte(`{"name":"@framers/agentos-template-t","version":"1.0.0","peerDependencies":{"@framers/agentos":">=0.9.0"}}`)},
	}
	ws, err := workspace.Discover(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Runtime{"packages/p": PLAIOS, "packages/o": OpenClaw, "packages/pi": Pi, "packages/m": None,
		"packages/demo": AgentOS, "packages/manifest-only": AgentOS, "packages/dev-dep": AgentOS, "packages/opt-dep": AgentOS,
		"packages/dep": AgentOS, "packages/broken": AgentOS, "packages/similar": None,
		"registry/curated/tools/x": AgentOS, "registry/curated/tools/plain": AgentOS, "registry/curated/tools/scoped-only": None,
		"templates/t": AgentOS}
	seen := 0
	for _, p := range LoadAll(ws, None) {
		seen++
		w, ok := want[p.Dir]
		if !ok {
			t.Errorf("unexpected package %s", p.Dir)
		}
		if got := p.Runtime; got != w {
			t.Errorf("%s: runtime %q, want %q", p.Dir, got, w)
		}
		if p.Dir == "registry/curated/tools/x" && (!p.AgentOS.Flat || p.AgentOS.Extensions[0].ID != "x") {
			t.Errorf("flat provider form not read: %+v", p.AgentOS)
		}
		if p.Dir == "packages/demo" && (p.AgentOS == nil || len(p.AgentOS.Extensions) != 1) {
			t.Errorf("the community pack's manifest was not read: %+v", p.AgentOS)
		}
		if p.Dir == "packages/broken" && (p.AgentOS == nil || p.AgentOS.Err == nil) {
			t.Errorf("a broken manifest of an AgentOS pack must be kept with its error: %+v", p.AgentOS)
		}
	}
	if seen != len(want) {
		t.Errorf("loaded %d packages, want %d", seen, len(want))
	}
	// The root catalog of a framers repository is a plain package by its content.
	root := &workspace.Package{Dir: ".", Role: workspace.RoleRoot, JSON: workspace.ReadPackageJSON(fsys, ".")}
	if got := Detect(ws, root, None); got != None {
		t.Errorf("the root package: runtime %q, want none", got)
	}
	if got := Detect(ws, ws.Package("packages/m"), Pi); got != Pi {
		t.Errorf("a forced runtime must win, got %q", got)
	}
	if p := Load(ws, ws.Package("packages/m"), AgentOS); p.Runtime != AgentOS || p.AgentOS == nil {
		t.Errorf("a forced AgentOS must read the manifest: %+v", p)
	}
}

func TestParsePLAIOSTypesAndDuplicates(t *testing.T) {
	fsys := fstest.MapFS{"m.yaml": {Data: []byte(`schemaVersion: 1
id: w
version: 1.0
interfaces:
  - id: w.action
    kind: action
    className: C
    entry: ./x
    web: { entry: ./web/y }
    startup: { when: manual }
    config:
      - key: k
        type: number
        default: 10
  - id: w.input
    kind: input
    kind: output
`)}}
	m := ParsePLAIOS(fsys, "m.yaml")
	if m.Err != nil {
		t.Fatal(m.Err)
	}
	if YAMLType(m.SchemaVersion) != "integer" || YAMLType(m.Version) != "float" {
		t.Errorf("types: schemaVersion %s, version %s", YAMLType(m.SchemaVersion), YAMLType(m.Version))
	}
	if len(m.Duplicates) != 1 || m.Duplicates[0].Value != "kind" || m.Duplicates[0].Line != 17 {
		t.Errorf("duplicates = %+v", m.Duplicates)
	}
	a := m.Ifaces[0]
	if a.EntryPath() != "./x" || a.WebEntryPath() != "./web/y" || Scalar(a.When) != "manual" || YAMLType(a.Fields[0].Default) != "integer" {
		t.Errorf("interface = %+v", a)
	}
	if m.Ifaces[1].WebEntryPath() != "./web/output" || m.Ifaces[1].EntryPath() != "." {
		t.Errorf("defaults: %s %s", m.Ifaces[1].WebEntryPath(), m.Ifaces[1].EntryPath())
	}
	bad := ParsePLAIOS(fstest.MapFS{"m.yaml": {Data: []byte("a: [1\n")}}, "m.yaml")
	if ye, ok := bad.Err.(*YAMLSyntaxError); !ok || ye.Line == 0 {
		t.Errorf("syntax error = %#v", bad.Err)
	}
}

func TestYAMLTypeIsYAML12Core(t *testing.T) {
	for src, want := range map[string]string{
		"1": "integer", "+1": "integer", "0o17": "integer", "0x1F": "integer", "010": "integer",
		"1.0": "float", ".5": "float", "1e3": "float", "1.": "float", "-.inf": "float", ".NaN": "float",
		"1_000": "string", "0b101": "string", "2001-12-14": "string", "0.1.0": "string", "yes": "string", "on": "string",
		"true": "boolean", "FALSE": "boolean", "~": "null", "Null": "null", "\"1.0\"": "string", "'true'": "string",
		"!!str 1": "string", "!!int 7": "integer",
	} {
		fsys := fstest.MapFS{"m.yaml": {Data: []byte("version: " + src + "\n")}}
		m := ParsePLAIOS(fsys, "m.yaml")
		if got := YAMLType(m.Version); got != want {
			t.Errorf("version: %s reads as %s, want %s", src, got, want)
		}
	}
}

// FuzzCoreType holds the hand-written YAML 1.2 core schema resolution to the schema's own
// regular expressions.
func FuzzCoreType(f *testing.F) {
	for _, s := range []string{"", "~", "null", "NULL", "nUll", "true", "False", "yes", "1", "-1", "+0", "0o17", "0o8", "0x1F", "0xg",
		"1_000", "0b101", "1.", ".5", "-.5", "1e3", "1.5E-3", "1e", ".", "+.inf", "-.Inf", ".nan", "-.nan", "2026-01-01", "1.2.3", "١"} {
		f.Add(s)
	}
	null := regexp.MustCompile(`^(?:null|Null|NULL|~|)$`)
	boolean := regexp.MustCompile(`^(?:true|True|TRUE|false|False|FALSE)$`)
	integer := regexp.MustCompile(`^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$`)
	float := regexp.MustCompile(`^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	f.Fuzz(func(t *testing.T, v string) {
		want := "string"
		switch {
		case null.MatchString(v):
			want = "null"
		case boolean.MatchString(v):
			want = "boolean"
		case integer.MatchString(v):
			want = "integer"
		case float.MatchString(v):
			want = "float"
		}
		if got := coreType(v); got != want {
			t.Fatalf("coreType(%q) = %s, the core schema says %s", v, got, want)
		}
	})
}

// TestBuiltEntryCandidates: the compiled files openclaw 2026.9.6 tries for a TypeScript entry,
// in its order (the list is the one its installer prints, "expected ./dist/index.js, …").
func TestBuiltEntryCandidates(t *testing.T) {
	for entry, want := range map[string]string{
		"./src/index.ts": "./dist/index.js, ./dist/index.mjs, ./dist/index.cjs, ./dist/src/index.js, ./dist/src/index.mjs, ./dist/src/index.cjs, ./src/index.js, ./src/index.mjs, ./src/index.cjs",
		"./index.ts":     "./dist/index.js, ./dist/index.mjs, ./dist/index.cjs, ./index.js, ./index.mjs, ./index.cjs",
		"lib/main.mts":   "./dist/lib/main.mjs, ./dist/lib/main.js, ./dist/lib/main.cjs, lib/main.mjs, lib/main.js, lib/main.cjs",
		"./a.cts":        "./dist/a.cjs, ./dist/a.js, ./dist/a.mjs, ./a.cjs, ./a.js, ./a.mjs",
		"./dist/x.js":    "",
	} {
		if got := strings.Join(BuiltEntryCandidates(entry), ", "); got != want {
			t.Errorf("%s:\n got %s\nwant %s", entry, got, want)
		}
	}
}

// TestOpenClawEntries reads entries as openclaw's installer does: runtimeExtensions pair one
// to one, a non-array runtimeExtensions counts as none, setup entries pair the same way.
func TestOpenClawEntries(t *testing.T) {
	parse := func(s string) *jsonpos.Value {
		v, err := jsonpos.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	entries, problems, missing := OpenClawEntries(parse(`{"openclaw":{"extensions":["./index.ts"],"runtimeExtensions":["./dist/index.js"],"setupEntry":"./setup.ts","runtimeSetupEntry":"./dist/setup.js"}}`))
	if missing || len(problems) != 0 || len(entries) != 2 || entries[0].Runtime.Str != "./dist/index.js" || entries[1].Field != "openclaw.setupEntry" || entries[1].Runtime.Str != "./dist/setup.js" {
		t.Errorf("official layout: %+v %+v %v", entries, problems, missing)
	}
	if entries, _, _ := OpenClawEntries(parse(`{"openclaw":{"extensions":["./a.js"],"runtimeExtensions":"./b.js"}}`)); len(entries) != 1 || entries[0].Runtime != nil {
		t.Errorf("a runtimeExtensions that is not a list counts as none: %+v", entries)
	}
	for doc, want := range map[string]string{
		`{"openclaw":[]}`:                                                      "package.json openclaw must be an object",
		`{"openclaw":{"extensions":"./a.js"}}`:                                 "package.json openclaw.extensions must be an array",
		`{"openclaw":{"extensions":[]}}`:                                       "package.json openclaw.extensions is empty",
		`{"openclaw":{"extensions":[" "]}}`:                                    "package.json openclaw.extensions[0] must be a non-empty string",
		`{"openclaw":{"extensions":["./a.ts"],"runtimeExtensions":["", "x"]}}`: "package.json openclaw.runtimeExtensions[0] must be a non-empty string",
		`{"openclaw":{"extensions":["./a.js"],"runtimeSetupEntry":"./s.js"}}`:  "package.json openclaw.runtimeSetupEntry requires openclaw.setupEntry",
	} {
		_, problems, _ := OpenClawEntries(parse(doc))
		if len(problems) != 1 || problems[0].Message != want {
			t.Errorf("%s: %+v, want %q", doc, problems, want)
		}
	}
	for _, doc := range []string{`{}`, `{"openclaw":null}`, `{"openclaw":{}}`} {
		if _, _, missing := OpenClawEntries(parse(doc)); !missing {
			t.Errorf("%s: not missing", doc)
		}
	}
}

// TestFramersLayout: the framers' agentos-extensions layout is a pack under registry/curated/,
// or a template under templates/ of a repository that has registry/curated/; a community
// repository's packages/ and templates/ are not.
func TestFramersLayout(t *testing.T) {
	framers := fstest.MapFS{"registry/curated/tools/x/package.json": {Data: []byte(`{}`)}, "templates/t/package.json": {Data: []byte(`{}`)}}
	community := fstest.MapFS{"packages/x/package.json": {Data: []byte(`{}`)}, "templates/t/package.json": {Data: []byte(`{}`)}}
	for _, c := range []struct {
		fsys fstest.MapFS
		dir  string
		want bool
	}{
		{framers, "registry/curated/tools/x", true},
		{framers, "registry/curated/auth", true},
		{framers, "templates/t", true},
		{framers, ".", false},
		{community, "packages/x", false},
		{community, "templates/t", false},
		{community, "registry/curated/tools/x", true},
	} {
		if got := FramersLayout(c.fsys, c.dir); got != c.want {
			t.Errorf("FramersLayout(%s) = %v, want %v", c.dir, got, c.want)
		}
	}
}
