package check

import (
	"regexp"
	"testing"
	"testing/fstest"

	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/workspace"
)

// FuzzValidate feeds arbitrary package.json, runtime manifests and role maps to every rule:
// no input may make validate panic (a rule that panics is turned into a diagnostic, which this
// test also refuses), and every finding must carry a rule, a file and a position.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"name":"x","version":"1.0.0","exports":{"./*":"./dist/*.js"},"files":["dist","!dist/*.map"]}`),
		[]byte("schemaVersion: 1\ninterfaces:\n  - id: a\n    kind: action\n"), []byte(`{"id":"a","configSchema":{"type":"object"}}`),
		[]byte(`{"roles":{".":"pack"}}`))
	f.Add([]byte(`{"name":"@framers/agentos-ext-x","version":"1","openclaw":{"extensions":[1]},"pi":{"extensions":["./a"]}}`),
		[]byte("version: 1.0\nversion: 2\ninterfaces: {}\n"), []byte(`{id:'x',configSchema:{type:"int",required:"a"},}`),
		[]byte(`{"roles":[]}`))
	f.Add([]byte(`[]`), []byte(`- a`), []byte(`nul`), []byte(``))
	f.Fuzz(func(t *testing.T, pkgJSON, yamlManifest, jsonManifest, roles []byte) {
		fsys := fstest.MapFS{
			"package.json":               {Data: []byte(`{"name":"root","private":true,"workspaces":["p/*"]}`)},
			"scripts/package-roles.json": {Data: roles},
			"p/a/package.json":           {Data: pkgJSON},
			"p/a/agent-os.package.yaml":  {Data: yamlManifest},
			"p/b/package.json":           {Data: pkgJSON},
			"p/b/manifest.json":          {Data: jsonManifest},
			"p/c/package.json":           {Data: pkgJSON},
			"p/c/openclaw.plugin.json":   {Data: jsonManifest},
			"p/a/README.md":              {Data: []byte("# a\n")},
		}
		ws, err := workspace.Discover(fsys)
		if err != nil {
			return
		}
		for _, force := range []pack.Runtime{pack.None, pack.AgentOS, pack.Pi} {
			diags := Run(ws, pack.LoadAll(ws, force), Options{Jobs: 2})
			for _, d := range diags {
				if d.Rule == "" || d.File == "" || d.Line < 1 || d.Col < 1 || d.Message == "" {
					t.Fatalf("malformed diagnostic %+v", d)
				}
				if len(d.Message) > 20 && d.Message[:20] == "internal error while" {
					t.Fatalf("a rule panicked: %+v", d)
				}
			}
		}
	})
}

// FuzzHandMatchers holds the hand-written matchers to the expressions they replace.
func FuzzHandMatchers(f *testing.F) {
	for _, s := range []string{"", "a", "@s/a", "@/a", "@s/", "@s/a/b", "a/b", "@s", "API_KEY", "9X", "_x1", "# t\n```ts\n", "    ```", "   ~~~x", "x\n  ```", "\n\n~~"} {
		f.Add(s)
	}
	scoped := regexp.MustCompile(`^(?:@([^/]+?)/)?([^/]+?)$`)
	fence := regexp.MustCompile("(?m)^ {0,3}(```|~~~)")
	env := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	f.Fuzz(func(t *testing.T, s string) {
		m := scoped.FindStringSubmatch(s)
		scope, last, ok := splitName(s)
		if ok != (m != nil) || (ok && (scope != m[1] || last != m[2])) {
			t.Fatalf("splitName(%q) = %q, %q, %v; the expression gives %q", s, scope, last, ok, m)
		}
		if hasFence([]byte(s)) != fence.MatchString(s) {
			t.Fatalf("hasFence(%q) = %v", s, !fence.MatchString(s))
		}
		if isEnvName(s) != env.MatchString(s) {
			t.Fatalf("isEnvName(%q) = %v", s, !env.MatchString(s))
		}
	})
}
