package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// TestEntryTypeScriptFollowsNode installs (by hand, as npm lays it out) a package whose entry
// is TypeScript and one whose entry is its built JavaScript, and imports each with Node 24,
// which strips types from local files but refuses them under node_modules, and with the
// machine's Node: entry-typescript fires exactly for the package Node cannot load.
func TestEntryTypeScriptFollowsNode(t *testing.T) {
	testenv.SkipShort(t, "runs node")
	node24 := filepath.Join(testenv.Node24(t), "node")
	nodes := map[string]string{"node 24": node24, "the machine's node": testenv.LookPath(t, "node")}
	if v := strings.TrimSpace(testenv.Run(t, t.TempDir(), nil, node24, "--version")); !strings.HasPrefix(v, "v24.") {
		t.Fatalf("Node 24 is %s", v)
	}
	cases := []struct {
		name, main string
		files      map[string]string
		loads      bool
	}{
		{"ts-main", "./index.ts", map[string]string{"index.ts": "export const x: number = 1;\n"}, false},
		{"ts-exports", "./index.js", map[string]string{"index.js": "export const x = 1;\n", "src/index.ts": "export const x: number = 1;\n"}, false},
		{"js-main", "./index.js", map[string]string{"index.js": "export const x = 1;\n"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pj := `{"name":"tspkg","version":"1.0.0","type":"module","main":"` + c.main + `"}`
			if c.name == "ts-exports" {
				pj = `{"name":"tspkg","version":"1.0.0","type":"module","main":"./index.js","exports":{".":{"import":"./src/index.ts"}}}`
			}
			files := map[string]string{"package.json": pj, "README.md": "# tspkg\n\n```js\nimport 'tspkg';\n```\n"}
			for k, v := range c.files {
				files[k] = v
			}
			pkg := t.TempDir()
			testenv.WriteFiles(t, pkg, files)
			fired := false
			for _, d := range validateDir(t, pkg).Diagnostics {
				fired = fired || d.Rule == "entry-typescript"
			}

			project := t.TempDir()
			testenv.CopyTree(t, pkg, filepath.Join(project, "node_modules", "tspkg"))
			testenv.WriteFiles(t, project, map[string]string{"main.mjs": "import { x } from 'tspkg';\nconsole.log(x);\n"})
			for label, node := range nodes {
				out, err := testenv.RunErr(project, append(testenv.CleanEnv(), "TMPDIR="+t.TempDir()), node, "main.mjs")
				if loads := err == nil && strings.TrimSpace(out) == "1"; loads != c.loads {
					t.Fatalf("%s: loads=%v, expected %v\n%s", label, loads, c.loads, out)
				}
			}
			if fired == c.loads {
				t.Errorf("entry-typescript fired=%v, but Node loads=%v", fired, c.loads)
			}
		})
	}
}
