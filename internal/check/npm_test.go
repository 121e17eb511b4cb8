package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// TestWorkspaceProtocolFollowsNPM packs, with real npm, a package carrying a `workspace:` or
// `catalog:` specifier in each dependency field and installs the tarball into an empty project
// from a Verdaccio without uplinks: npm never reads a dependency's devDependencies, so only
// those install, and workspace-protocol fires exactly for the fields whose install fails
// (RULES.md). The published @framers/agentos-ext-web-browser@1.2.1 and
// @framers/agentos-ext-channel-discord@0.1.0 carry "@framers/agentos": "workspace:*" in
// devDependencies and install.
func TestWorkspaceProtocolFollowsNPM(t *testing.T) {
	testenv.SkipShort(t, "runs npm and Verdaccio")
	reg := testenv.Verdaccio(t)
	tmp := t.TempDir()
	env := append(reg.NPMEnv(), "npm_config_cache="+filepath.Join(tmp, "npm-cache"), "TMPDIR="+tmp)
	if v := strings.TrimSpace(testenv.Run(t, tmp, env, "npm", "--version")); !strings.HasPrefix(v, "11.") {
		t.Fatalf("npm %s: the oracle is npm 11", v)
	} else {
		t.Logf("npm %s", v)
	}
	cases := []struct {
		field, spec string
		installs    bool
	}{
		{"devDependencies", "workspace:*", true},
		{"devDependencies", "catalog:", true},
		{"dependencies", "workspace:*", false},
		{"dependencies", "catalog:", false},
		{"peerDependencies", "workspace:^", false},
		{"optionalDependencies", "workspace:*", false},
	}
	for i, c := range cases {
		t.Run(c.field+"-"+strings.TrimSuffix(c.spec, ":"), func(t *testing.T) {
			name := "wsproto-" + strings.ToLower(c.field) + "-" + string(rune('a'+i))
			dep := "@acme/core"
			if c.spec == "catalog:" {
				dep = "zod"
			}
			pj, err := json.Marshal(map[string]any{"name": name, "version": "1.0.0", "main": "index.js", c.field: map[string]string{dep: c.spec}})
			if err != nil {
				t.Fatal(err)
			}
			pkg := filepath.Join(tmp, name)
			testenv.WriteFiles(t, pkg, map[string]string{
				"package.json": string(pj),
				"index.js":     "module.exports = 1;\n",
				"README.md":    "# " + name + "\n\n```js\nrequire('" + name + "');\n```\n",
			})

			// plaios's verdict.
			res := validateDir(t, pkg)
			fired := false
			for _, d := range res.Diagnostics {
				if d.Rule == "workspace-protocol" {
					fired = true
				}
			}

			// npm's.
			out := testenv.Run(t, pkg, env, "npm", "pack", "--json", "--foreground-scripts=false")
			var packed []struct {
				Filename string `json:"filename"`
			}
			if err := json.Unmarshal([]byte(out), &packed); err != nil || len(packed) != 1 {
				t.Fatalf("npm pack --json: %v\n%s", err, out)
			}
			consumer := filepath.Join(tmp, "consumer-"+name)
			testenv.WriteFiles(t, consumer, map[string]string{"package.json": `{"name":"consumer","version":"1.0.0","private":true}`})
			out, err = testenv.RunErr(consumer, env, "npm", "install", filepath.Join(pkg, packed[0].Filename), "--ignore-scripts", "--foreground-scripts=false")
			_, statErr := os.Stat(filepath.Join(consumer, "node_modules", name, "package.json"))
			installed := err == nil && statErr == nil
			if installed != c.installs {
				t.Fatalf("npm install of a tarball with %s %q: installed=%v, expected %v\n%s", c.field, c.spec, installed, c.installs, out)
			}
			if !installed && !strings.Contains(out, "EUNSUPPORTEDPROTOCOL") {
				t.Fatalf("npm install failed for another reason than the protocol:\n%s", out)
			}
			if fired == installed {
				t.Errorf("%s %q: workspace-protocol fired=%v but npm installed=%v; the rule must fire exactly when the install fails", c.field, c.spec, fired, installed)
			}
		})
	}
}
