package scaffold

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/templates"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/create from what create renders")

func TestCaseConversions(t *testing.T) {
	for _, c := range []struct{ in, pascal, camel, snake, upper, title string }{
		{"weather", "Weather", "weather", "weather", "WEATHER", "Weather"},
		{"web-search", "WebSearch", "webSearch", "web_search", "WEB_SEARCH", "Web Search"},
		{"a2-b3c", "A2B3c", "a2B3c", "a2_b3c", "A2_B3C", "A2 B3c"},
	} {
		if got := []string{Pascal(c.in), Camel(c.in), Snake(c.in), Upper(c.in), Title(c.in)}; strings.Join(got, "|") != strings.Join([]string{c.pascal, c.camel, c.snake, c.upper, c.title}, "|") {
			t.Errorf("%s: got %v", c.in, got)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"weather", "web-search", "a", "x1-2y", strings.Repeat("a", 64)} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "Weather", "web_search", "web search", "@scope/x", "a/b", "..", "a..b", "-a", "a-", "a--b", "1abc", "café", strings.Repeat("a", 65), "node_modules/x"} {
		err := CheckName(bad)
		if err == nil {
			t.Errorf("CheckName(%q) = nil, want a refusal", bad)
			continue
		}
		if exit.Code(err) != exit.Usage {
			t.Errorf("CheckName(%q): exit code %d, want 2", bad, exit.Code(err))
		}
	}
}

func TestCheckKinds(t *testing.T) {
	got, err := checkKinds(PLAIOS, []string{"input", " output"})
	if err != nil || strings.Join(got, ",") != "input,output" {
		t.Fatalf("got %v, %v", got, err)
	}
	if got, _ := checkKinds(AgentOS, nil); got[0] != "tool" {
		t.Errorf("agentos default kind %v", got)
	}
	if got, _ := checkKinds(PLAIOS, nil); got[0] != "action" {
		t.Errorf("plaios default kind %v", got)
	}
	for _, c := range []struct {
		runtime string
		kinds   []string
		want    string
	}{
		{PLAIOS, []string{"tool"}, `unknown kind "tool" for runtime plaios; use one of input, output, action, agent, orchestrator, discovery, database, memory, system1, system2, env`},
		{AgentOS, []string{"action"}, `unknown kind "action" for runtime agentos; use one of tool, multi-tool, guardrail`},
		{PLAIOS, []string{"input", "input"}, `kind "input" is given twice`},
		{PLAIOS, []string{"input", ""}, `an empty kind`},
		{AgentOS, []string{"tool", "guardrail"}, `runtime agentos makes one package from one template`},
	} {
		_, err := checkKinds(c.runtime, c.kinds)
		if err == nil || !strings.Contains(err.Error(), c.want) || exit.Code(err) != exit.Usage {
			t.Errorf("%s %v: got %v, want exit 2 with %q", c.runtime, c.kinds, err, c.want)
		}
	}
}

func TestNpmName(t *testing.T) {
	for _, c := range []struct{ runtime, scope, want string }{
		{PLAIOS, "", "@plaios/weather"},
		{PLAIOS, "acme", "@acme/weather"},
		{PLAIOS, "@acme", "@acme/weather"},
		{AgentOS, "", "@framers/agentos-ext-weather"},
		{AgentOS, "@acme", "@acme/agentos-ext-weather"},
		{OpenClaw, "", "openclaw-plugin-weather"},
		{OpenClaw, "@acme", "@acme/weather"},
		{Pi, "", "pi-weather"},
	} {
		got, err := npmName(c.runtime, "weather", c.scope)
		if err != nil || got != c.want {
			t.Errorf("%s %q: got %q, %v; want %q", c.runtime, c.scope, got, err, c.want)
		}
	}
	if _, err := npmName(PLAIOS, "weather", "@Bad Scope"); err == nil || exit.Code(err) != exit.Usage {
		t.Errorf("bad scope: %v", err)
	}
}

// goldenCases are the packages the golden files pin, as testdata/golden/create/cases.json lists
// them (the root package's TestFirstRun builds the same cases end to end): every PLAIOS kind
// alone, two kinds and all eleven in one package, and every template of the other runtimes.
func goldenCases(t *testing.T) map[string]Options {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "create", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list map[string]struct {
		Runtime, Name, Category, Dir string
		Kinds                        []string
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("cases.json: %v", err)
	}
	cases := map[string]Options{}
	for id, c := range list {
		cases[id] = Options{Runtime: c.Runtime, Kinds: c.Kinds, Name: c.Name, Category: c.Category, Dir: c.Dir}
	}
	for _, k := range Kinds(PLAIOS) {
		if c, ok := cases["plaios-"+k]; !ok || len(c.Kinds) != 1 || c.Kinds[0] != k {
			t.Errorf("cases.json has no case plaios-%s for the kind %s alone", k, k)
		}
	}
	for _, rt := range []string{AgentOS, OpenClaw, Pi} {
		for _, k := range Kinds(rt) {
			if _, ok := cases[rt+"-"+k]; !ok {
				t.Errorf("cases.json has no case %s-%s for that template", rt, k)
			}
		}
	}
	return cases
}

// TestGolden renders every case and compares the whole tree with testdata/golden/create/<case>
// (run with -update to rewrite them after a deliberate template change).
func TestGolden(t *testing.T) {
	golden := filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "create")
	for name, opts := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			opts.WorkDir = t.TempDir()
			s, err := Plan(opts)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(golden, name)
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				for _, f := range s.Files {
					p := filepath.Join(dir, filepath.FromSlash(f.Path))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			want := readTree(t, dir)
			got := map[string]string{}
			for _, f := range s.Files {
				got[f.Path] = string(f.Data)
			}
			for p, w := range want {
				g, ok := got[p]
				switch {
				case !ok:
					t.Errorf("%s is in the golden tree but was not rendered", p)
				case g != w:
					t.Errorf("%s differs from testdata/golden/create/%s/%s (run go test ./internal/scaffold -run TestGolden -update after a deliberate change):\n%s", p, name, p, firstDiff(w, g))
				}
			}
			for p := range got {
				if _, ok := want[p]; !ok {
					t.Errorf("%s was rendered but is not in the golden tree", p)
				}
			}
		})
	}
}

// readTree reads a golden tree, saying how to make it when it is missing.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("read the golden tree %s: %v (run with -update to create it)", dir, err)
	}
	return testenv.ReadTree(t, dir)
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return ""
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestGeneratedManifestsAgree checks, for every golden case, what the runtimes read: the
// manifest parses, its version is package.json's, the PLAIOS interfaces have the ids and
// classes create promises, and the AgentOS extension ids are the tool names.
func TestGeneratedManifestsAgree(t *testing.T) {
	// The TypeScript the first run installs and builds every template with.
	var templates struct{ Dependencies map[string]string }
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "node", "templates", "package.json"))
	if err != nil || json.Unmarshal(data, &templates) != nil || templates.Dependencies["typescript"] == "" {
		t.Fatalf("testdata/node/templates/package.json pins no typescript (%v)", err)
	}
	pinned := templates.Dependencies["typescript"]
	// One TypeScript in the repository: the oracle tsc of testdata/node (guard's source-map
	// positions) is the templates' own.
	if pinned != testenv.OracleTypeScriptVersion {
		t.Errorf("testdata/node/templates pins typescript %s, the oracle tsc of testdata/node is %s: move both", pinned, testenv.OracleTypeScriptVersion)
	}
	for name, opts := range goldenCases(t) {
		opts.WorkDir = t.TempDir()
		s, err := Plan(opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files := map[string][]byte{}
		for _, f := range s.Files {
			files[f.Path] = f.Data
		}
		var pkg struct {
			Name, Version, License string
			Files                  []string
			Exports                map[string]any
			PeerDependencies       map[string]string
			DevDependencies        map[string]string
			PublishConfig          map[string]string
		}
		if err := json.Unmarshal(files["package.json"], &pkg); err != nil {
			t.Fatalf("%s: package.json: %v", name, err)
		}
		if pkg.Name != s.Package || pkg.Version != Version {
			t.Errorf("%s: package.json name/version %s@%s", name, pkg.Name, pkg.Version)
		}
		if ts := pkg.DevDependencies["typescript"]; ts != "~"+pinned {
			t.Errorf("%s: typescript %q, want ~%s, the TypeScript testdata/node/templates pins", name, ts, pinned)
		}
		if !bytes.Contains(files["README.md"], []byte("```")) {
			t.Errorf("%s: README.md has no fenced code example", name)
		}
		switch s.Runtime {
		case PLAIOS:
			var m struct {
				SchemaVersion int `yaml:"schemaVersion"`
				ID, Name      string
				Version       any
				Interfaces    []struct {
					ID, Kind, Name string
					ClassName      string `yaml:"className"`
					Config         []map[string]any
				}
			}
			if err := yaml.Unmarshal(files["agent-os.package.yaml"], &m); err != nil {
				t.Fatalf("%s: agent-os.package.yaml: %v", name, err)
			}
			if v, ok := m.Version.(string); !ok || v != pkg.Version || m.SchemaVersion != 1 || m.ID != s.Name {
				t.Errorf("%s: manifest schemaVersion %d id %q version %#v", name, m.SchemaVersion, m.ID, m.Version)
			}
			if len(m.Interfaces) != len(s.Kinds) {
				t.Fatalf("%s: %d interfaces for kinds %v", name, len(m.Interfaces), s.Kinds)
			}
			for i, it := range m.Interfaces {
				k := s.Kinds[i]
				if it.ID != s.Name+"."+k || it.Kind != k || it.ClassName != Pascal(s.Name)+suffix(k) {
					t.Errorf("%s: interface %+v", name, it)
				}
				if _, ok := files["web/"+k+"/index.tsx"]; !ok {
					t.Errorf("%s: no page web/%s/index.tsx", name, k)
				}
				if !bytes.Contains(files["src/index.ts"], []byte("export { "+it.ClassName+" }")) {
					t.Errorf("%s: src/index.ts does not export %s", name, it.ClassName)
				}
				if bytes.Contains(files["src/"+k+".ts"], []byte(`from "@plaios/`)) && !bytes.Contains(files["src/"+k+".ts"], []byte(`import type {`)) {
					t.Errorf("%s: src/%s.ts imports the host at run time", name, k)
				}
			}
			if strings.Join(pkg.Files, ",") != "dist,web,agent-os.package.yaml" {
				t.Errorf("%s: files %v", name, pkg.Files)
			}
			if len(pkg.Exports) != 3 || pkg.Exports["./web/styles.css"] != "./web/styles.css" {
				t.Errorf("%s: exports %v", name, pkg.Exports)
			}
		case AgentOS:
			var m struct {
				ID, Version string
				Extensions  []struct{ Kind, ID, Entry string }
			}
			if err := json.Unmarshal(files["manifest.json"], &m); err != nil {
				t.Fatalf("%s: manifest.json: %v", name, err)
			}
			if m.ID != "com.framers.ext."+s.Name || m.Version != pkg.Version || len(m.Extensions) == 0 {
				t.Errorf("%s: manifest %+v", name, m)
			}
			for _, e := range m.Extensions {
				if !bytes.Contains(files["src/index.ts"], []byte(e.ID)) && !sourceHas(files, "name = '"+e.ID+"'") {
					t.Errorf("%s: extension %s is not a tool name or descriptor id in src", name, e.ID)
				}
				src := "src/" + strings.TrimSuffix(strings.TrimPrefix(e.Entry, "./dist/"), ".js") + ".ts"
				if _, ok := files[src]; !ok {
					t.Errorf("%s: entry %s has no source %s", name, e.Entry, src)
				}
			}
			if pkg.License != "Apache-2.0" || pkg.PublishConfig["access"] != "public" || pkg.PeerDependencies["@framers/agentos"] != ">=0.9.12" || pkg.Exports["./manifest.json"] != "./manifest.json" {
				t.Errorf("%s: package.json %+v", name, pkg)
			}
			if _, ok := files["LICENSE"]; ok {
				t.Errorf("%s: an AgentOS pack must not have its own LICENSE", name)
			}
		case OpenClaw:
			var m struct {
				ID, Version string
				Contracts   struct{ Tools []string }
			}
			if err := json.Unmarshal(files["openclaw.plugin.json"], &m); err != nil {
				t.Fatalf("%s: openclaw.plugin.json: %v", name, err)
			}
			if m.ID != s.Name || m.Version != pkg.Version || strings.Join(m.Contracts.Tools, ",") != Snake(s.Name)+"_stats" {
				t.Errorf("%s: manifest %+v", name, m)
			}
		case Pi:
			if pkg.PeerDependencies["@earendil-works/pi-coding-agent"] != "*" {
				t.Errorf("%s: Pi core packages must be peers with range *: %v", name, pkg.PeerDependencies)
			}
		}
	}
}

func sourceHas(files map[string][]byte, s string) bool {
	for p, b := range files {
		if strings.HasPrefix(p, "src/") && bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

// TestTemplatesParse renders nothing but parses every embedded template, so that a broken
// template fails here with its file name.
func TestTemplatesParse(t *testing.T) {
	n := 0
	err := fs.WalkDir(templates.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == "templates.go" {
			return err
		}
		n++
		r := &renderer{src: source{base: templates.FS}, files: map[string][]byte{}}
		_, err = r.render(p, &Data{})
		if err != nil && strings.Contains(err.Error(), "does not parse") {
			t.Errorf("%v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("only %d template files embedded", n)
	}
}

func TestPlanRefusals(t *testing.T) {
	work := t.TempDir()
	testenv.WriteFiles(t, work, map[string]string{"packages/taken/x.txt": "mine", "packages/file": "not a folder"})
	for _, c := range []struct {
		name string
		opts Options
		want string
	}{
		{"bad name", Options{Name: "Weather"}, `"Weather" is not a valid package name`},
		{"unknown runtime", Options{Name: "w", Runtime: "hermes"}, `unknown runtime "hermes"; use one of plaios, agentos, openclaw, pi`},
		{"unknown kind", Options{Name: "w", Kinds: []string{"widget"}}, `unknown kind "widget" for runtime plaios`},
		{"existing folder", Options{Name: "taken"}, `packages/taken already exists and is not empty`},
		{"file in the way", Options{Name: "file"}, `is a file, not a folder`},
		{"category elsewhere", Options{Name: "w", Category: "research"}, `--category applies to runtime agentos only`},
		{"bad category", Options{Name: "w", Runtime: AgentOS, Category: "Re search"}, `--category "Re search" is not a folder name`},
		{"bad template dir", Options{Name: "w", Template: "nope"}, `--template nope is not a folder`},
		{"multi-line description", Options{Name: "w", Description: "a\nb"}, `--description must be one line`},
	} {
		c.opts.WorkDir = work
		_, err := Plan(c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || exit.Code(err) != exit.Usage {
			t.Errorf("%s: got %v (exit %d), want exit 2 with %q", c.name, err, exit.Code(err), c.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(work, "packages/taken/x.txt")); string(b) != "mine" {
		t.Errorf("a refusal touched an existing file")
	}
}

func TestPlanLayoutAndDetection(t *testing.T) {
	repo := t.TempDir()
	testenv.WriteFiles(t, repo, map[string]string{
		"package.json":                       `{"name":"root","private":true,"workspaces":["packages/*"]}`,
		"registry/curated/research/.keep":    "",
		"registry/curated/research/x/a.json": "{}",
	})
	sub := filepath.Join(repo, "registry", "curated")
	s, err := Plan(Options{Name: "web-search", WorkDir: sub})
	if err != nil {
		t.Fatal(err)
	}
	if s.Runtime != AgentOS || s.Category != "tools" || s.Dir != filepath.Join(repo, "registry", "curated", "tools", "web-search") || s.Package != "@framers/agentos-ext-web-search" {
		t.Errorf("detected %s %s %s %s", s.Runtime, s.Category, s.Dir, s.Package)
	}
	g, err := Plan(Options{Name: "guard", Kinds: []string{"guardrail"}, WorkDir: repo})
	if err != nil || g.Category != "safety" {
		t.Errorf("guardrail category: %v %v", g, err)
	}
	plain := t.TempDir()
	p, err := Plan(Options{Name: "weather", WorkDir: plain, Dir: "elsewhere/w"})
	if err != nil || p.Runtime != PLAIOS || p.Dir != filepath.Join(plain, "elsewhere", "w") || p.RoleMap != nil {
		t.Errorf("plain: %+v %v", p, err)
	}
}

// TestWriteAndForce writes a package, refuses to write it again, and with Force replaces the
// files it writes while keeping the others.
func TestWriteAndForce(t *testing.T) {
	work := t.TempDir()
	s, err := Plan(Options{Name: "weather", WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(); err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Files {
		b, err := os.ReadFile(filepath.Join(s.Dir, filepath.FromSlash(f.Path)))
		if err != nil || !bytes.Equal(b, f.Data) {
			t.Fatalf("%s not written: %v", f.Path, err)
		}
	}
	assertNoStaging(t, filepath.Dir(s.Dir))
	// The package folder gets the mode any new folder gets (0777 less the umask), not the
	// 0700 of the staging folder it was renamed from.
	probe := filepath.Join(work, "probe")
	if err := os.Mkdir(probe, 0o777); err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(probe)
	if got, err := os.Stat(s.Dir); err != nil || got.Mode().Perm() != want.Mode().Perm() {
		t.Fatalf("the package folder's mode is %v, want %v (%v)", got.Mode().Perm(), want.Mode().Perm(), err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, ".mode")); !os.IsNotExist(err) {
		t.Fatalf("the mode probe was left behind: %v", err)
	}
	if _, err := Plan(Options{Name: "weather", WorkDir: work}); exit.Code(err) != exit.Usage {
		t.Fatalf("second create: %v", err)
	}
	testenv.WriteFiles(t, s.Dir, map[string]string{"README.md": "edited", "notes.txt": "keep me"})
	again, err := Plan(Options{Name: "weather", WorkDir: work, Force: true, Description: "Forced"})
	if err != nil || !again.Exists {
		t.Fatalf("force plan: %v", err)
	}
	if err := again.Write(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Dir, "README.md")); !bytes.Contains(b, []byte("Forced")) {
		t.Errorf("README.md was not replaced: %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Dir, "notes.txt")); string(b) != "keep me" {
		t.Errorf("a file create does not write was lost")
	}
	assertNoStaging(t, filepath.Dir(s.Dir))
}

func assertNoStaging(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".plaios-") {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

// snapshot lists every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = string(b)
		return nil
	})
	return out
}

// TestWriteRollsBack fails every file-system step of a write in turn, in a fresh repository
// with a role map and in an existing folder (--force), and checks that the tree is left exactly
// as it was.
func TestWriteRollsBack(t *testing.T) {
	roles := "{\n  \"roles\": {\n    \".\": \"root\"\n  }\n}\n"
	for _, force := range []bool{false, true} {
		for step := 1; ; step++ {
			repo := t.TempDir()
			testenv.WriteFiles(t, repo, map[string]string{"scripts/package-roles.json": roles, "package.json": `{"name":"r","private":true}`})
			if force {
				testenv.WriteFiles(t, repo, map[string]string{"registry/curated/tools/w/README.md": "old", "registry/curated/tools/w/keep.txt": "keep"})
			}
			before := snapshot(t, repo)
			s, err := Plan(Options{Name: "w", Runtime: AgentOS, WorkDir: repo, Force: force})
			if err != nil {
				t.Fatal(err)
			}
			if s.RoleMap == nil {
				t.Fatal("no role map edit planned")
			}
			calls := 0
			fail := func() error {
				calls++
				if calls == step {
					return &fs.PathError{Op: "write", Path: "x", Err: errors.New("no space left on device")}
				}
				return nil
			}
			ops := fsOps{
				MkdirAll: func(p string, m fs.FileMode) error {
					if err := fail(); err != nil {
						return err
					}
					return os.MkdirAll(p, m)
				},
				MkdirTemp: func(d, p string) (string, error) {
					if err := fail(); err != nil {
						return "", err
					}
					return os.MkdirTemp(d, p)
				},
				WriteFile: func(p string, b []byte, m fs.FileMode) error {
					if err := fail(); err != nil {
						return err
					}
					return os.WriteFile(p, b, m)
				},
				Rename: func(a, b string) error {
					if err := fail(); err != nil {
						return err
					}
					return os.Rename(a, b)
				},
				RemoveAll: os.RemoveAll,
				Remove:    os.Remove,
			}
			err = s.write(ops)
			if err == nil {
				if step == 1 {
					t.Fatal("no step failed")
				}
				b, _ := os.ReadFile(filepath.Join(repo, "scripts", "package-roles.json"))
				if !strings.Contains(string(b), `"registry/curated/tools/w": "pack"`) {
					t.Errorf("role map not updated: %s", b)
				}
				break
			}
			if exit.Code(err) != exit.Env || !strings.Contains(err.Error(), "no space left on device; nothing was written") {
				t.Errorf("force=%v step %d: error %v", force, step, err)
			}
			after := snapshot(t, repo)
			if len(after) != len(before) {
				t.Errorf("force=%v step %d: the tree changed:\nbefore %v\nafter  %v", force, step, keys(before), keys(after))
			}
			for p, c := range before {
				if after[p] != c {
					t.Errorf("force=%v step %d: %s changed", force, step, p)
				}
			}
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestAddRoleKeepsFormatting adds a pack to the real role map of the corpus and checks that
// only the one line changes, in alphabetical place.
func TestAddRoleKeepsFormatting(t *testing.T) {
	corpus, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "corpus", "agentos-extensions", "scripts", "package-roles.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, added, err := AddRole(corpus, "registry/curated/research/web-search-two", "pack")
	if err != nil || !added {
		t.Fatalf("%v %v", added, err)
	}
	oldLines, newLines := strings.Split(string(corpus), "\n"), strings.Split(string(out), "\n")
	if len(newLines) != len(oldLines)+1 {
		t.Fatalf("%d lines became %d", len(oldLines), len(newLines))
	}
	i := 0
	for i < len(oldLines) && oldLines[i] == newLines[i] {
		i++
	}
	if newLines[i] != `    "registry/curated/research/web-search-two": "pack",` || !strings.Contains(newLines[i-1], `"registry/curated/research/web-search"`) {
		t.Errorf("inserted %q after %q", newLines[i], newLines[i-1])
	}
	if strings.Join(oldLines[i:], "\n") != strings.Join(newLines[i+1:], "\n") {
		t.Errorf("the rest of the file changed")
	}
	var v struct{ Roles map[string]string }
	if err := json.Unmarshal(out, &v); err != nil || v.Roles["registry/curated/research/web-search-two"] != "pack" {
		t.Errorf("result: %v", err)
	}
	if _, added, _ := AddRole(out, "registry/curated/research/web-search-two", "pack"); added {
		t.Errorf("added twice")
	}

	for _, c := range []struct{ in, want string }{
		{`{"roles": {}}`, "{\"roles\": {\n  \"a/b\": \"pack\"\n}}"},
		{"{\n  \"roles\": {\"z\": \"pack\"}\n}", "{\n  \"roles\": {\"a/b\": \"pack\", \"z\": \"pack\"}\n}"},
		{"{\n\t\"fixtures\": {},\n\t\"roles\": {\n\t\t\"x\": \"root\",\n\t\t\"b\": \"pack\"\n\t}\n}", "{\n\t\"fixtures\": {},\n\t\"roles\": {\n\t\t\"x\": \"root\",\n\t\t\"b\": \"pack\",\n\t\t\"a/b\": \"pack\"\n\t}\n}"},
	} {
		got, _, err := AddRole([]byte(c.in), "a/b", "pack")
		if err != nil || string(got) != c.want {
			t.Errorf("AddRole(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`[]`, `{"roles": []}`, `{"other": 1}`, `{"roles": {"a": `} {
		if _, _, err := AddRole([]byte(bad), "a/b", "pack"); err == nil {
			t.Errorf("AddRole(%q) accepted a broken role map", bad)
		}
	}
}

// TestTemplateOverlay overrides one embedded file and adds another through --template.
func TestTemplateOverlay(t *testing.T) {
	work := t.TempDir()
	testenv.WriteFiles(t, work, map[string]string{
		"my-templates/plaios/package/README.md":       "# {{.Package}} by ACME\n",
		"my-templates/plaios/action/docs/USAGE.md":    "Call {{.Snake}}_summarize.\n",
		"my-templates/plaios/action/src/__Camel__.md": "{{.Kind.Class}}\n",
	})
	s, err := Plan(Options{Name: "weather", WorkDir: work, Template: "my-templates"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range s.Files {
		got[f.Path] = string(f.Data)
	}
	if got["README.md"] != "# @plaios/weather by ACME\n" || got["docs/USAGE.md"] != "Call weather_summarize.\n" || got["src/weather.md"] != "WeatherCapability\n" {
		t.Errorf("overlay not applied: %q %q %q", got["README.md"], got["docs/USAGE.md"], got["src/weather.md"])
	}
	if !strings.Contains(got["src/action.ts"], "class WeatherCapability") {
		t.Errorf("embedded files missing next to the overlay")
	}
	testenv.WriteFiles(t, work, map[string]string{"broken/plaios/package/README.md": "{{.Nope}}"})
	if _, err := Plan(Options{Name: "weather", WorkDir: work, Template: "broken"}); err == nil || !strings.Contains(err.Error(), "plaios/package/README.md") {
		t.Errorf("a broken overlay template: %v", err)
	}
	mem := fstest.MapFS{"plaios/package/x.txt": {Data: []byte("{{.Name}}")}}
	if _, err := Plan(Options{Name: "weather", WorkDir: work, Templates: mem}); err == nil || !strings.Contains(err.Error(), "no folder plaios/action") {
		t.Errorf("missing kind folder: %v", err)
	}
}

// TestHostDepsInPnpmRepo: in a pnpm repository that holds @plaios/core and
// @plaios/microfrontend (the PLAIOS repository itself), a new package names them as
// workspace:* devDependencies, since pnpm links only declared dependencies, and as optional
// peers; elsewhere it does neither, and builds against its own declarations.
func TestHostDepsInPnpmRepo(t *testing.T) {
	repo := t.TempDir()
	testenv.WriteFiles(t, repo, map[string]string{
		"package.json":                        `{"name":"plaios","private":true}`,
		"pnpm-workspace.yaml":                 "packages:\n  - packages/*\n",
		"packages/core/package.json":          `{"name":"@plaios/core","version":"1.0.0"}`,
		"packages/microfrontend/package.json": `{"name":"@plaios/microfrontend","version":"1.0.0"}`,
	})
	s, err := Plan(Options{Name: "weather", WorkDir: repo})
	if err != nil {
		t.Fatal(err)
	}
	type pkgJSON struct{ DevDependencies, PeerDependencies map[string]string }
	read := func(s *Scaffold) pkgJSON {
		var pkg pkgJSON
		for _, f := range s.Files {
			if f.Path == "package.json" {
				if err := json.Unmarshal(f.Data, &pkg); err != nil {
					t.Fatalf("package.json: %v\n%s", err, f.Data)
				}
			}
		}
		return pkg
	}
	pkg := read(s)
	if pkg.DevDependencies["@plaios/core"] != "workspace:*" || pkg.DevDependencies["@plaios/microfrontend"] != "workspace:*" {
		t.Errorf("devDependencies %v", pkg.DevDependencies)
	}
	if pkg.PeerDependencies["@plaios/core"] != "*" || pkg.PeerDependencies["@plaios/microfrontend"] != "*" {
		t.Errorf("peerDependencies %v", pkg.PeerDependencies)
	}
	// Elsewhere the host packages are no peers: pnpm would install them (optional peers of a
	// workspace package too), and no public registry has them.
	other, err := Plan(Options{Name: "weather", WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	pkg = read(other)
	if _, ok := pkg.PeerDependencies["@plaios/core"]; ok || pkg.DevDependencies["@plaios/core"] != "" {
		t.Errorf("outside the PLAIOS repository: %+v", pkg)
	}
	if pkg.DevDependencies["@types/plaios__core"] != "file:types/plaios/core" || pkg.DevDependencies["@types/plaios__microfrontend"] != "file:types/plaios/microfrontend" {
		t.Errorf("the declarations are not dev dependencies: %v", pkg.DevDependencies)
	}
	if _, err := os.Stat(filepath.Join(repo, "packages", "weather")); err == nil {
		t.Errorf("Plan wrote the package")
	}
}
