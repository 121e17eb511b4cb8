package check

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/plaios/plaios/internal/testenv"
)

// TestOpenClawEntryAgreesWithOpenClaw packs OpenClaw plugins with real npm and installs each
// tarball with the real `openclaw plugins install` (openclaw 2026.9.6): openclaw-entry fires
// exactly for the plugins openclaw refuses. The published @openclaw/brave-plugin@2026.9.5
// (TypeScript source in openclaw.extensions, the built file in openclaw.runtimeExtensions)
// installs and passes; without its dist it is refused and the rule names runtimeExtensions.
// validate judges a folder before its build (a file under dist/ counts as shipped when "files"
// covers it; guard checks the real tarball), so each refused plugin here leaves its built file
// out of "files", which no build fixes.
func TestOpenClawEntryAgreesWithOpenClaw(t *testing.T) {
	testenv.SkipShort(t, "runs npm and the real openclaw")
	bin, ocEnv := testenv.OpenClaw(t)
	ar, err := txtar.ParseFile("../../testdata/packs/good/openclaw-brave-plugin.txtar")
	if err != nil {
		t.Fatal(err)
	}
	brave := map[string]string{}
	for _, f := range ar.Files {
		brave[f.Name] = string(f.Data)
	}
	without := func(files map[string]string, prefix string) map[string]string {
		out := map[string]string{}
		for k, v := range files {
			if !strings.HasPrefix(k, prefix) {
				out[k] = v
			}
		}
		return out
	}
	with := func(files map[string]string, k, v string) map[string]string {
		out := map[string]string{}
		for a, b := range files {
			out[a] = b
		}
		out[k] = v
		return out
	}
	plugin := func(openclaw string, files ...string) map[string]string {
		m := map[string]string{
			"package.json":         `{"name":"weather","version":"1.0.0","type":"module","files":["dist","openclaw.plugin.json","README.md"],"openclaw":` + openclaw + `}`,
			"openclaw.plugin.json": `{"id":"weather","version":"1.0.0","configSchema":{"type":"object","additionalProperties":false}}`,
			"README.md":            "# weather\n\n```sh\nopenclaw plugins install weather\n```\n",
			"src/index.ts":         "export default {};\n",
		}
		for _, f := range files {
			m[f] = "export default { id: 'weather', name: 'Weather', register() {} };\n"
		}
		return m
	}
	cases := []struct {
		name     string
		files    map[string]string
		installs bool
	}{
		{"brave-as-published", brave, true},
		{"brave-without-dist", with(without(brave, "dist/"), "package.json", strings.Replace(brave["package.json"], `"dist/**",`, "", 1)), false},
		{"brave-runtime-is-source", with(brave, "package.json", strings.Replace(brave["package.json"], `"./dist/index.js"`, `"./index.ts"`, 1)), false},
		{"typescript-source-built-to-dist", plugin(`{"extensions":["./src/index.ts"]}`, "dist/index.js"), true},
		{"typescript-source-not-shipped-built", with(plugin(`{"extensions":["./src/index.ts"]}`), "package.json", `{"name":"weather","version":"1.0.0","type":"module","files":["src","openclaw.plugin.json","README.md"],"openclaw":{"extensions":["./src/index.ts"]}}`), false},
		{"javascript-entry", plugin(`{"extensions":["./dist/index.js"]}`, "dist/index.js"), true},
		{"runtime-extensions-unpaired", plugin(`{"extensions":["./src/index.ts","./src/other.ts"],"runtimeExtensions":["./dist/index.js"]}`, "dist/index.js", "dist/other.js"), false},
	}
	tmp := t.TempDir()
	npmArgv, _ := testenv.OracleNPM(t) // npm packs as the pinned npm; openclaw runs on its Node 24
	env := append(ocEnv, "npm_config_cache="+filepath.Join(tmp, "npm-cache"), "TMPDIR="+tmp, "npm_config_registry=http://127.0.0.1:9/")
	if v := strings.TrimSpace(testenv.Run(t, tmp, env, bin, "--version")); !strings.Contains(v, "2026.9.6") {
		t.Fatalf("openclaw --version: %s; the oracle is openclaw 2026.9.6", v)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // a folder and an OPENCLAW_HOME of its own; most of the time is the CLI
			dir := filepath.Join(tmp, c.name)
			testenv.WriteFiles(t, dir, c.files)
			res := validateDir(t, dir)
			var fired []string
			for _, d := range res.Diagnostics {
				if d.Rule == "openclaw-entry" {
					fired = append(fired, d.Message)
				}
			}
			out := testenv.Run(t, dir, env, npmArgv[0], append(npmArgv[1:], "pack", "--json", "--foreground-scripts=false")...)
			var packed []struct {
				Filename string `json:"filename"`
			}
			if err := json.Unmarshal([]byte(out), &packed); err != nil || len(packed) != 1 {
				t.Fatalf("npm pack --json: %v\n%s", err, out)
			}
			home := filepath.Join(tmp, "home-"+c.name)
			runEnv := testenv.WithHome(append(append([]string(nil), env...), "OPENCLAW_HOME="+home, "OPENCLAW_STATE_DIR="+filepath.Join(home, "state")), home)
			out, err := testenv.RunErr(dir, runEnv, bin, "plugins", "install", "--force", "--accept-capabilities", filepath.Join(dir, packed[0].Filename))
			installed := err == nil && strings.Contains(out, "Installed plugin:")
			if installed != c.installs {
				t.Fatalf("openclaw plugins install: installed=%v, expected %v\n%s", installed, c.installs, out)
			}
			if (len(fired) > 0) == installed {
				t.Errorf("openclaw-entry fired %v, but openclaw installed=%v:\n%s", fired, installed, out)
			}
			t.Logf("openclaw: %s\nplaios: %v", lastLine(out), fired)
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
