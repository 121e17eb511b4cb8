package check

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/plaios/plaios/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/packs/bad/*.txtar")

// rulesMD is RULES.md's catalogue, section by section: every ID with its default severity
// (the first one its row gives) and family. The rules must be exactly these.
var rulesMD = map[string][]string{
	"Any package": strings.Fields(`package-json-invalid:error package-name-invalid:error package-version-invalid:error
		exports-target-invalid:error entry-not-shipped:error manifest-not-shipped:error workspace-protocol:error
		secret-shipped:error readme-missing:warning types-not-shipped:error entry-typescript:error
		host-runtime-dependency:warning path-outside-package:error`),
	"AgentOS": strings.Fields(`agentos-manifest-invalid:error agentos-version-mismatch:error agentos-name:warning
		agentos-license:error agentos-license-file:error agentos-publish-access:error agentos-kind-unknown:warning
		agentos-secret-undeclared:warning agentos-manifest-not-exported:warning agentos-peer-range:warning
		role-missing:error role-unknown:error role-orphan:error`),
	"PLAIOS": strings.Fields(`plaios-manifest-invalid:error plaios-kind-unknown:error plaios-class-missing:error
		plaios-interface-duplicate:error plaios-dependency-unknown:error plaios-entry-unresolved:error
		plaios-page-missing:error plaios-version-mismatch:error plaios-config-invalid:error plaios-field-ignored:warning
		plaios-startup-invalid:error`),
	"OpenClaw and Pi": strings.Fields(`openclaw-manifest-invalid:error openclaw-version-mismatch:error openclaw-entry:error
		openclaw-contract-drift:error pi-peer-range:error pi-extension-missing:error`),
	"Tool schemas": strings.Fields(`schema-invalid:error schema-type-unknown:error schema-draft:error schema-meta-id:error
		schema-async:error schema-format-unknown:warning schema-keyword-unknown:warning schema-default-invalid:warning
		schema-not-strict:warning tool-name-invalid:error descriptor-undeclared:warning`),
}

func TestCatalogueMatchesRULESmd(t *testing.T) {
	var want []string
	for family, rows := range rulesMD {
		for _, row := range rows {
			id, sev, _ := strings.Cut(row, ":")
			want = append(want, id)
			r := Lookup(id)
			if r == nil {
				continue // reported below
			}
			if r.Severity.String() != sev || r.Family != family {
				t.Errorf("rule %s: %s in %q, RULES.md says %s in %q", id, r.Severity, r.Family, sev, family)
			}
		}
	}
	sort.Strings(want)
	if got := RuleIDs(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("rule IDs differ from RULES.md\n got: %v\nwant: %v", got, want)
	}
	for _, r := range Rules() {
		if len(r.Help) < 60 || r.Family == "" || r.Severity == Off {
			t.Errorf("rule %s needs a family, a default severity and a real help paragraph", r.ID)
		}
		if r.Run == nil && r.RunWorkspace == nil && !r.Guard && !strings.HasPrefix(r.ID, "schema-") && r.ID != "tool-name-invalid" {
			t.Errorf("rule %s has no run function and is not a guard rule", r.ID)
		}
	}
}

// extract writes a txtar archive's files (all but "want") into a temporary folder.
func extract(t *testing.T, file string) (dir string, ar *txtar.Archive) {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	files := map[string]string{}
	for _, f := range ar.Files {
		if f.Name != "want" {
			files[f.Name] = string(f.Data)
		}
	}
	testenv.WriteFiles(t, dir, files)
	return dir, ar
}

func validateDir(t *testing.T, dir string) *Result {
	t.Helper()
	res, err := Validate([]string{dir}, ValidateOptions{WorkDir: dir})
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return res
}

func render(diags []Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.File + ":" + strconv.Itoa(d.Line) + ":" + strconv.Itoa(d.Col) + ": " + d.Severity.String() + " " + d.Rule + ": " + d.Message + "\n")
		if d.Hint != "" {
			b.WriteString("    hint: " + d.Hint + "\n")
		}
	}
	return b.String()
}

func TestGoodPacksHaveNoFinding(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/packs/good/*.txtar")
	if len(files) < 5 {
		t.Fatalf("expected the good fixtures of every runtime, found %d", len(files))
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			dir, _ := extract(t, f)
			res := validateDir(t, dir)
			if len(res.Diagnostics) > 0 {
				t.Errorf("a good pack has findings:\n%s", render(res.Diagnostics))
			}
			if len(res.Targets) == 0 {
				t.Error("no package was checked")
			}
		})
	}
}

// TestBadPacks runs each broken fixture and compares every finding (file, position, rule,
// message, hint) with the fixture's want section. `go test -update` rewrites them.
func TestBadPacks(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/packs/bad/*.txtar")
	fired := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) {
			dir, ar := extract(t, f)
			res := validateDir(t, dir)
			got := render(res.Diagnostics)
			rule := ruleOf(name)
			found := false
			for _, d := range res.Diagnostics {
				fired[d.Rule] = true
				if d.Rule == rule {
					found = true
				}
			}
			if !found {
				t.Errorf("fixture %s does not trip %s; got:\n%s", name, rule, got)
			}
			var want []byte
			idx := -1
			for i, af := range ar.Files {
				if af.Name == "want" {
					want, idx = af.Data, i
				}
			}
			if *update {
				if idx < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					idx = len(ar.Files) - 1
				}
				ar.Files[idx].Data = []byte(got)
				if err := os.WriteFile(f, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal(want, []byte(got)) {
				t.Errorf("findings differ (run go test -update to accept)\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
	for _, r := range Rules() {
		if !r.Guard && !fired[r.ID] {
			t.Errorf("no fixture under testdata/packs/bad trips %s", r.ID)
		}
	}
}

// ruleOf maps a fixture name to the rule it is about: the longest rule ID it starts with.
func ruleOf(name string) string {
	best := ""
	for _, id := range RuleIDs() {
		if (name == id || strings.HasPrefix(name, id+"-")) && len(id) > len(best) {
			best = id
		}
	}
	return best
}

// TestValidateOnePackageOfAWorkspace validates one package of a repository: only that
// package is checked, and the workspace rules still name the other packages they concern.
func TestValidateOnePackageOfAWorkspace(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"pnpm-workspace.yaml":        "packages:\n  - \"packages/*\"\n",
		"package.json":               `{"name":"root","private":true}`,
		"scripts/package-roles.json": `{"roles":{"packages/a":"pack"}}`,
		"packages/a/package.json":    `{"name":"a","version":"v1"}`,
		"packages/b/package.json":    `{"name":"@x/b-has-no-role","version":"1.0.0"}`,
		"packages/c/package.json":    `{"name": broken`,
	})
	res, err := Validate([]string{"packages/a"}, ValidateOptions{WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Targets) != 1 || res.Targets[0].Pack.Dir != "packages/a" {
		t.Fatalf("targets = %+v", res.Targets)
	}
	got := render(res.Diagnostics)
	for _, want := range []string{"packages/a/package.json:1:23: error package-version-invalid", "workspace package @x/b-has-no-role (packages/b) has no role"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "packages/c/package.json") {
		t.Errorf("a package that was not asked for was checked:\n%s", got)
	}
}

// TestValidateAPackNoWorkspaceLists validates a pack kept in a folder that the workspace
// around it does not list (an example beside the packages, or a checkout inside another
// repository's workspace): it is judged as a package on its own, as npm treats it
// (workspace.PackageRoot), not refused for not being one of the workspace's packages.
func TestValidateAPackNoWorkspaceLists(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json":                  `{"name":"mono","private":true,"workspaces":["packages/*"]}`,
		"packages/a/package.json":       `{"name":"a","version":"1.0.0"}`,
		"examples/weather/package.json": `{"name":"weather","version":"v1"}`,
	})
	res, err := Validate([]string{"examples/weather"}, ValidateOptions{WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Targets) != 1 || res.Targets[0].Pack.Dir != "." || res.Targets[0].Root != filepath.Join(dir, "examples", "weather") {
		t.Fatalf("targets = %+v, want the pack alone", res.Targets)
	}
	if got := render(res.Diagnostics); !strings.Contains(got, "examples/weather/package.json:1:29: error package-version-invalid") {
		t.Errorf("the pack's own finding is missing:\n%s", got)
	}
	// A folder that holds no package of any workspace is still refused, saying so.
	if _, err := Validate([]string{"examples"}, ValidateOptions{WorkDir: dir}); err == nil || !strings.Contains(err.Error(), "no package.json") {
		t.Errorf("a folder of no package: %v", err)
	}
}

// TestRunASubsetOfRules runs one rule alone on a pack that breaks several: only that rule's
// findings come back, and the full list finds the others.
func TestRunASubsetOfRules(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json": `{"name":"Bad-Name","version":"v1","files":["dist"],"main":"./dist/index.js"}`,
	})
	only := func(ids ...string) []*Rule {
		var out []*Rule
		for _, id := range ids {
			r := Lookup(id)
			if r == nil {
				t.Fatalf("no rule %s", id)
			}
			out = append(out, r)
		}
		return out
	}
	run := func(rs []*Rule) map[string]bool {
		res, err := Validate([]string{dir}, ValidateOptions{WorkDir: dir, Options: Options{Rules: rs}})
		if err != nil {
			t.Fatal(err)
		}
		fired := map[string]bool{}
		for _, d := range res.Diagnostics {
			fired[d.Rule] = true
		}
		return fired
	}
	if got := run(only("package-version-invalid")); len(got) != 1 || !got["package-version-invalid"] {
		t.Errorf("one rule run: fired %v, want only package-version-invalid", got)
	}
	all := run(nil)
	for _, id := range []string{"package-version-invalid", "package-name-invalid", "readme-missing"} {
		if !all[id] {
			t.Errorf("the full list does not fire %s: %v", id, all)
		}
	}
	if got := run([]*Rule{}); len(got) != 0 {
		t.Errorf("an empty list fired %v", got)
	}
}

// TestRuleListIsWhole: every rule of the list has a distinct ID, and Lookup finds each.
func TestRuleListIsWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range rules {
		if seen[r.ID] {
			t.Errorf("rule %s is listed twice", r.ID)
		}
		seen[r.ID] = true
		if Lookup(r.ID) != r {
			t.Errorf("Lookup(%s) does not return the listed rule", r.ID)
		}
	}
}

// TestManifestSchemasAreMetadata validates the published @framers/agentos-ext-telegram@1.1.1,
// whose manifest wraps each tool's arguments as extensions[].schema.input: the wrappers are
// read as such (no "input is not a keyword"), and what remains are the pack's real faults —
// none of them a schema finding. Checked as a lone folder, outside the framers' layout, its MIT
// licence is no fault (agentos-license binds only that layout).
func TestManifestSchemasAreMetadata(t *testing.T) {
	dir, _ := extract(t, "../../testdata/packs/real/agentos-ext-telegram-1.1.1.txtar")
	res := validateDir(t, dir)
	if len(res.Targets) != 1 || res.Targets[0].Pack.Runtime != "agentos" {
		t.Fatalf("the pack must be checked as AgentOS: %+v", res.Targets)
	}
	want := `manifest.json:5:14: error agentos-version-mismatch: manifest version 1.0.0 differs from package.json version 1.1.1 (package.json is ahead)
    hint: write "1.1.1" in manifest.json
manifest.json:139:7: warning agentos-secret-undeclared: configuration property "telegram.botToken" is secret but requiredSecrets/optionalSecrets do not list it
    hint: add "telegram.botToken" to "requiredSecrets" (or "optionalSecrets")
package.json:51:25: warning agentos-peer-range: the @framers/agentos peer range "^0.1.0" has an upper bound
    hint: write ">=0.1.0"
`
	if got := render(res.Diagnostics); got != want {
		t.Errorf("findings differ\n--- got\n%s--- want\n%s", got, want)
	}

	// A typo inside a wrapper is found at its place, and is a warning: the executor never
	// compiles the manifest.
	dir = t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json": `{"name":"@acme/agentos-ext-typo","version":"1.0.0","license":"Apache-2.0","publishConfig":{"access":"public"},"peerDependencies":{"@framers/agentos":">=0.9.0"}}`,
		"manifest.json": `{"id":"com.acme.typo","name":"typo","version":"1.0.0","extensions":[{"kind":"tool","id":"t","schema":{
  "input": {"type": "object", "requried": ["q"], "properties": {"q": {"type": "str"}}},
  "output": {"type": "object"}}}]}`,
	})
	res, err := Validate([]string{dir}, ValidateOptions{WorkDir: dir, Options: Options{Rules: []*Rule{schemaInvalidRule, schemaKeywordUnknownRule, schemaTypeUnknownRule}}})
	if err != nil {
		t.Fatal(err)
	}
	want = `manifest.json:2:31: warning schema-keyword-unknown: extensions[0].schema.input/requried: "requried" is not a draft-07 keyword; a registry reading manifest.json (the AgentOS executor never compiles it) passes over it, so the schema checks less than it reads
    hint: Did you mean "required"?
manifest.json:2:79: warning schema-type-unknown: extensions[0].schema.input/properties/q/type: "type" "str" is not a JSON Schema type (string, number, integer, boolean, null, object, array); a registry reading manifest.json (the AgentOS executor never compiles it) cannot use the schema
    hint: Did you mean "string"?
`
	if got := render(res.Diagnostics); got != want {
		t.Errorf("findings differ\n--- got\n%s--- want\n%s", got, want)
	}
}

// TestAgentOSNameWithoutRoleMap: in a registry/curated layout without scripts/package-roles.json
// the name is checked, and --rule agentos-name=error raises it there.
func TestAgentOSNameWithoutRoleMap(t *testing.T) {
	dir, _ := extract(t, "../../testdata/packs/bad/agentos-name-no-roles.txtar")
	res, err := Validate([]string{dir}, ValidateOptions{WorkDir: dir, Options: Options{Severity: map[string]Severity{"agentos-name": Error}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, d.Severity.String()+" "+d.Rule+" "+d.File)
	}
	if want := "error agentos-name registry/curated/tools/demo/package.json"; strings.Join(got, "\n") != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if res.Summary.Errors != 1 {
		t.Errorf("summary %+v", res.Summary)
	}
}

// TestFramersConventionsOnlyInTheirLayout puts one AgentOS pack (MIT, a LICENSE of its own) in
// a community repository and at its place in the framers' agentos-extensions layout: the
// repository's conventions (agentos-license, agentos-license-file) fire only in the latter,
// and the rules about what npm and the runtime do (here agentos-version-mismatch) in both.
func TestFramersConventionsOnlyInTheirLayout(t *testing.T) {
	files := func(dir string) map[string]string {
		return map[string]string{
			dir + "/package.json": `{
  "name": "@acme/agentos-ext-demo",
  "version": "0.1.0",
  "type": "module",
  "license": "MIT",
  "main": "./index.js",
  "exports": { ".": "./index.js", "./manifest.json": "./manifest.json" },
  "files": ["index.js", "manifest.json"],
  "publishConfig": { "access": "public" },
  "peerDependencies": { "@framers/agentos": ">=0.9.164" }
}`,
			dir + "/manifest.json": `{"id": "com.acme.demo", "name": "Demo", "version": "0.0.9", "extensions": [{"kind": "tool", "id": "demo"}]}`,
			dir + "/index.js":      "export function createExtensionPack() { return { name: 'demo', descriptors: [] }; }\n",
			dir + "/LICENSE":       "MIT License\n",
			dir + "/README.md":     "# demo\n\n```js\nimport '@acme/agentos-ext-demo';\n```\n",
		}
	}
	for _, c := range []struct {
		root map[string]string
		dir  string
		want string
	}{
		{map[string]string{"package.json": `{"name":"acme","private":true,"workspaces":["packages/*"]}`}, "packages/demo",
			"packages/demo/manifest.json:1:52 agentos-version-mismatch"},
		{map[string]string{"pnpm-workspace.yaml": "packages:\n  - \"registry/curated/*/*\"\n"}, "registry/curated/tools/demo",
			"registry/curated/tools/demo/LICENSE:1:1 agentos-license-file\n" +
				"registry/curated/tools/demo/manifest.json:1:52 agentos-version-mismatch\n" +
				"registry/curated/tools/demo/package.json:2:11 agentos-name\n" +
				"registry/curated/tools/demo/package.json:5:14 agentos-license"},
	} {
		dir := t.TempDir()
		all := files(c.dir)
		for k, v := range c.root {
			all[k] = v
		}
		testenv.WriteFiles(t, dir, all)
		res := validateDir(t, dir)
		var got []string
		for _, d := range res.Diagnostics {
			got = append(got, d.File+":"+strconv.Itoa(d.Line)+":"+strconv.Itoa(d.Col)+" "+d.Rule)
		}
		if strings.Join(got, "\n") != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.dir, strings.Join(got, "\n"), c.want)
		}
	}
}
