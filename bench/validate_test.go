package bench

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/testenv"
)

const validatePacks = 200

// validateRepo writes a pnpm monorepo of n built packs, a quarter of each runtime (PLAIOS,
// AgentOS under registry/curated with a role map, OpenClaw, Pi), each with its manifest, a
// README, sources and built dist files.
func validateRepo(b testing.TB, n int) (root string, dirs []string) {
	b.Helper()
	root = b.TempDir()
	files := map[string]string{
		"package.json":        `{"name":"bench-monorepo","private":true}`,
		"pnpm-workspace.yaml": "packages:\n  - \"packages/*\"\n  - \"registry/curated/*/*\"\n",
	}
	roles := `{"roles":{`
	readme := "# pack\n\n```sh\nnpm install it\n```\n"
	for i := 0; i < n; i++ {
		var dir string
		add := func(p, c string) { files[dir+"/"+p] = c }
		switch i % 4 {
		case 0:
			dir = fmt.Sprintf("packages/plaios%03d", i)
			name := fmt.Sprintf("plaios%03d", i)
			add("package.json", fmt.Sprintf(`{"name":"@plaios/%s","version":"0.1.0","type":"module","main":"./dist/src/index.js",
"exports":{".":{"types":"./dist/src/index.d.ts","import":"./dist/src/index.js"},"./web/*":{"types":"./dist/web/*/index.d.ts","import":"./dist/web/*/index.js"},"./web/styles.css":"./web/styles.css"},
"files":["dist","web","agent-os.package.yaml"]}`, name))
			add("agent-os.package.yaml", fmt.Sprintf("schemaVersion: 1\nid: %s\nname: %s\nversion: 0.1.0\ninterfaces:\n  - id: %s.action\n    kind: action\n    className: ACapability\n    config:\n      - key: apiKey\n        env: API_KEY\n        type: secret\n", name, name, name))
			add("src/index.ts", "export class ACapability {}\n")
			add("web/action/index.tsx", "export default function P() { return null; }\n")
			add("web/styles.css", "\n")
			add("dist/src/index.js", "export class ACapability {}\n")
			add("dist/src/index.d.ts", "export declare class ACapability {}\n")
			add("dist/web/action/index.js", "export default function P() { return null; }\n")
			add("dist/web/action/index.d.ts", "export default function P(): null;\n")
		case 1:
			dir = fmt.Sprintf("registry/curated/tools/tool%03d", i)
			name := fmt.Sprintf("tool%03d", i)
			roles += fmt.Sprintf("%q:\"pack\",", dir)
			add("package.json", fmt.Sprintf(`{"name":"@framers/agentos-ext-%s","version":"1.0.0","type":"module","license":"Apache-2.0","main":"./dist/index.js",
"types":"./dist/index.d.ts","exports":{".":{"types":"./dist/index.d.ts","import":"./dist/index.js"},"./manifest.json":"./manifest.json"},
"files":["dist","manifest.json"],"publishConfig":{"access":"public"},"peerDependencies":{"@framers/agentos":">=0.9.164"}}`, name))
			add("manifest.json", fmt.Sprintf(`{"id":"com.framers.ext.%s","name":"%s","version":"1.0.0","extensions":[{"kind":"tool","id":"%s_run","entry":"./dist/tools/run.js",
"inputSchema":{"type":"object","additionalProperties":false,"properties":{"q":{"type":"string"}},"required":["q"]}}],
"requiredSecrets":[{"id":"%s.apiKey"}],"configuration":{"properties":{"%s.apiKey":{"type":"string","secret":true}}}}`, name, name, name, name, name))
			add("src/index.ts", "export function createExtensionPack() { return { name: 'x', descriptors: [] }; }\n")
			add("dist/index.js", "export function createExtensionPack() { return { name: 'x', descriptors: [] }; }\n")
			add("dist/index.d.ts", "export declare function createExtensionPack(): unknown;\n")
			add("dist/tools/run.js", "export {};\n")
		case 2:
			dir = fmt.Sprintf("packages/claw%03d", i)
			name := fmt.Sprintf("claw%03d", i)
			add("package.json", fmt.Sprintf(`{"name":"%s","version":"0.1.0","type":"module","main":"./dist/index.js","exports":{".":{"types":"./dist/index.d.ts","default":"./dist/index.js"}},"files":["dist","openclaw.plugin.json","README.md"],
"dependencies":{"typebox":"^1.4.3"},"peerDependencies":{"openclaw":">=2026.5.17"},"openclaw":{"extensions":["./dist/index.js"]}}`, name))
			add("openclaw.plugin.json", fmt.Sprintf(`{"id":"%s","name":"%s","version":"0.1.0","configSchema":{"type":"object","additionalProperties":false,"properties":{}},"contracts":{"tools":["%s_run"]}}`, name, name, name))
			add("src/index.ts", "export default {};\n")
			add("dist/index.js", "export default {};\n")
			add("dist/index.d.ts", "declare const p: {};\nexport default p;\n")
		case 3:
			dir = fmt.Sprintf("packages/pi%03d", i)
			name := fmt.Sprintf("pi%03d", i)
			add("package.json", fmt.Sprintf(`{"name":"pi-%s","version":"0.1.0","type":"module","main":"./dist/index.js","exports":{".":{"types":"./dist/index.d.ts","default":"./dist/index.js"}},"keywords":["pi-package"],"files":["dist","README.md"],
"peerDependencies":{"@earendil-works/pi-coding-agent":"*","typebox":"*"},"pi":{"extensions":["./dist/index.js"]}}`, name))
			add("src/index.ts", "export default function (pi: unknown) {}\n")
			add("dist/index.js", "export default function (pi) {}\n")
			add("dist/index.d.ts", "export default function (pi: unknown): void;\n")
		}
		if i%4 != 1 {
			roles += fmt.Sprintf("%q:\"pack\",", dir)
		}
		add("README.md", readme)
		dirs = append(dirs, dir)
	}
	files["scripts/package-roles.json"] = roles[:len(roles)-1] + `}}`
	testenv.WriteFiles(b, root, files)
	return root, dirs
}

func runValidate(b *testing.B, bin, dir string, args ...string) {
	b.Helper()
	c := exec.Command(bin, append([]string{"validate"}, args...)...)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		b.Fatalf("plaios validate in %s: %v\n%s", dir, err, out)
	}
}

// validateGoPerRun is BenchmarkValidateMonorepo's time, for the ratio BenchmarkValidatePublint
// reports when both run.
var validateGoPerRun time.Duration

// BenchmarkValidateMonorepo runs `plaios validate` (the built binary, a whole process) on the
// 200-pack monorepo. The budget: under 1 s on 2 cores.
func BenchmarkValidateMonorepo(b *testing.B) {
	bin := startupBinary(b)
	root, _ := validateRepo(b, validatePacks)
	runValidate(b, bin, root) // warm the page cache; must find nothing
	start := time.Now()
	runs := 0
	for b.Loop() {
		runValidate(b, bin, root)
		runs++
	}
	validateGoPerRun = time.Since(start) / time.Duration(runs)
	b.ReportMetric(validateGoPerRun.Seconds()*1000, "ms/200-packs")
}

// BenchmarkValidateOnePackage runs `plaios validate <one pack>` (budget: under 20 ms wall), as a
// pack author does: a lone package folder, then one pack of each runtime inside the 200-pack
// monorepo (validate reads the whole workspace's layout and role map, and only that pack's files).
func BenchmarkValidateOnePackage(b *testing.B) {
	bin := startupBinary(b)
	lone := b.TempDir()
	testenv.WriteFiles(b, lone, map[string]string{
		"package.json": `{"name":"lone-pack","version":"1.0.0","license":"MIT","type":"module","main":"./dist/index.js",
"exports":{".":"./dist/index.js"},"files":["dist"]}`,
		"dist/index.js": "export default {};\n",
		"README.md":     "# lone-pack\n\n```sh\nnpm install lone-pack\n```\n",
	})
	root, dirs := validateRepo(b, validatePacks)
	cases := []struct{ name, dir string }{{"lone", lone}}
	for i, d := range dirs[:4] { // one of each runtime
		cases = append(cases, struct{ name, dir string }{"monorepo-" + []string{"plaios", "agentos", "openclaw", "pi"}[i], filepath.Join(root, filepath.FromSlash(d))})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			runValidate(b, bin, c.dir)
			for b.Loop() {
				runValidate(b, bin, c.dir)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/package")
		})
	}
}

// BenchmarkValidatePublint is what a user would run instead: publint (pinned in
// testdata/node, started with node directly, which is cheaper than npx; packing with npm, as
// pnpm is not installed) once per package, one
// after another. It reports how many times faster plaios validate is on the same monorepo.
func BenchmarkValidatePublint(b *testing.B) {
	node := testenv.LookPath(b, "node")
	cli := filepath.Join(testenv.NodeModules(b), "publint", "src", "cli.js")
	root, dirs := validateRepo(b, validatePacks)
	start := time.Now()
	runs := 0
	for b.Loop() {
		for _, d := range dirs {
			out, err := testenv.RunErr(filepath.Join(root, filepath.FromSlash(d)), nil, node, cli, "--pack", "npm")
			if err != nil {
				b.Fatalf("publint in %s: %v\n%s", d, err, out)
			}
		}
		runs++
	}
	publintPerRun := time.Since(start) / time.Duration(runs)
	b.StopTimer()
	goPerRun := validateGoPerRun
	if goPerRun == 0 {
		bin := startupBinary(b)
		t := time.Now()
		runValidate(b, bin, root)
		goPerRun = time.Since(t)
	}
	b.ReportMetric(publintPerRun.Seconds(), "publint-s")
	b.ReportMetric(goPerRun.Seconds(), "plaios-s")
	b.ReportMetric(publintPerRun.Seconds()/goPerRun.Seconds(), "plaios-speedup-x")
}
