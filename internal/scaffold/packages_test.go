package scaffold

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// e2ePackages are the packages TestGeneratedPackagesBuildAndPass makes: every PLAIOS kind
// alone and all eleven together, every AgentOS template, the OpenClaw plugin and the Pi
// package.
func e2ePackages() []Options {
	var out []Options
	for _, k := range Kinds(PLAIOS) {
		out = append(out, Options{Runtime: PLAIOS, Kinds: []string{k}, Name: "p-" + k})
	}
	out = append(out,
		Options{Runtime: PLAIOS, Kinds: Kinds(PLAIOS), Name: "every-kind"},
		Options{Runtime: AgentOS, Kinds: []string{"tool"}, Name: "a-tool", Category: "research"},
		Options{Runtime: AgentOS, Kinds: []string{"multi-tool"}, Name: "a-multi"},
		Options{Runtime: AgentOS, Kinds: []string{"guardrail"}, Name: "a-guard"},
		Options{Runtime: OpenClaw, Kinds: []string{"tool"}, Name: "weather"},
		Options{Runtime: Pi, Kinds: []string{"tool"}, Name: "pi-weather"},
	)
	return out
}

// probe imports a built package with every way out to the network replaced by a trap, makes
// what the host would make (PLAIOS: every exported class with empty options; AgentOS: the
// pack; OpenClaw: the entry; Pi: the extension against a stand-in API) and fails when
// anything reached for the network.
const probe = `
import net from "node:net";
import dns from "node:dns";
import { pathToFileURL } from "node:url";
const reached = [];
globalThis.fetch = async (url) => { reached.push("fetch " + url); throw new Error("network refused"); };
net.Socket.prototype.connect = function () { reached.push("connect"); throw new Error("network refused"); };
dns.lookup = (host) => { reached.push("lookup " + host); throw new Error("network refused"); };
const [runtime, entry] = process.argv.slice(2);
const mod = await import(pathToFileURL(entry).href);
let made = 0;
if (runtime === "plaios") {
  for (const [name, value] of Object.entries(mod)) {
    if (typeof value === "function" && /^[A-Z]/.test(name)) { new value({}); made++; }
  }
} else if (runtime === "agentos") {
  const pack = mod.createExtensionPack({});
  if (!pack.descriptors.length) throw new Error("returned no descriptors");
  made = pack.descriptors.length;
} else if (runtime === "openclaw") {
  if (!mod.default || typeof mod.default !== "object") throw new Error("no plugin entry");
  made = 1;
} else {
  const tools = [];
  mod.default({ registerTool: (tool) => tools.push(tool) });
  made = tools.length;
}
if (made === 0) throw new Error("made nothing");
if (reached.length) { console.error("reached for the network while loading or constructing: " + reached.join(", ")); process.exit(1); }
console.log("made " + made);
`

// TestGeneratedPackagesBuildAndPass is the end-to-end proof of `create`: it writes every
// package of e2ePackages into one npm-workspaces monorepo (with the PLAIOS declaration
// packages as members), installs once from the npm registry, then for each package runs its
// build (the real tsc it pins) and its own test with real node, imports it with the network
// trapped, and checks the OpenClaw plugin with the real `openclaw plugins validate` and
// `build --check`, and the AgentOS packs against the oldest @framers/agentos their peer
// range admits.
func TestGeneratedPackagesBuildAndPass(t *testing.T) {
	testenv.SkipShort(t, "installs from the npm registry and builds every template (about a minute)")
	testenv.LookPath(t, "node")
	npm := testenv.LookPath(t, "npm")
	ocBin, ocEnv := testenv.OpenClaw(t)

	repo := t.TempDir()
	testenv.WriteFiles(t, repo, map[string]string{
		"package.json": `{"name":"create-e2e","private":true,"workspaces":["packages/*","registry/curated/*/*","types/*"]}` + "\n",
		"probe.mjs":    probe,
	})
	types := filepath.Join(testenv.RepoRoot(t), "testdata", "plaios-types")
	for _, name := range []string{"core", "microfrontend"} {
		testenv.CopyTree(t, filepath.Join(types, name), filepath.Join(repo, "types", name))
	}
	var made []*Scaffold
	for _, opts := range e2ePackages() {
		opts.WorkDir = repo
		s, err := Plan(opts)
		if err != nil {
			t.Fatalf("%s: %v", opts.Name, err)
		}
		if err := s.Write(); err != nil {
			t.Fatalf("%s: %v", opts.Name, err)
		}
		made = append(made, s)
	}

	// One install for all. --legacy-peer-deps keeps npm from installing the openclaw peer
	// (650 MB); the cached pinned install is linked in its place below. --omit=optional leaves
	// out @framers/agentos's optional local-model stack (onnxruntime, 350 MB), which the packs
	// neither import nor type-check against.
	testenv.Run(t, repo, nil, npm, "install", "--no-audit", "--no-fund", "--prefer-offline", "--legacy-peer-deps", "--ignore-scripts", "--omit=optional")
	ocPkg := filepath.Join(filepath.Dir(filepath.Dir(ocBin)), "openclaw")
	if err := os.Symlink(ocPkg, filepath.Join(repo, "node_modules", "openclaw")); err != nil {
		t.Fatal(err)
	}
	if v := testenv.Run(t, repo, nil, "node", "-p", `require("typescript/package.json").version`); strings.TrimSpace(v) != "5.9.3" {
		t.Fatalf("the packages installed TypeScript %s, want the pinned 5.9.3", v)
	}

	for _, s := range made {
		s := s
		t.Run(s.Runtime+"/"+s.Name, func(t *testing.T) {
			t.Parallel()
			testenv.Run(t, s.Dir, nil, npm, "run", "build")
			out := testenv.Run(t, s.Dir, nil, npm, "test")
			if !strings.Contains(out, "# fail 0") || strings.Contains(out, "# pass 0") {
				t.Fatalf("npm test did not pass every test:\n%s", out)
			}
			entry := map[string]string{PLAIOS: "dist/src/index.js"}[s.Runtime]
			if entry == "" {
				entry = "dist/index.js"
			}
			testenv.Run(t, repo, nil, "node", "probe.mjs", s.Runtime, filepath.Join(s.Dir, entry))
			switch s.Runtime {
			case PLAIOS:
				// Only types come from the host: the declaration packages hold no code, so the
				// probe's import would have failed on a run-time import; check the text too.
				for _, k := range s.Kinds {
					js, err := os.ReadFile(filepath.Join(s.Dir, "dist", "src", k+".js"))
					if err != nil || strings.Contains(string(js), "@plaios/") {
						t.Errorf("dist/src/%s.js imports the host at run time (%v)", k, err)
					}
					if _, err := os.Stat(filepath.Join(s.Dir, "dist", "web", k, "index.js")); err != nil {
						t.Errorf("the %s page was not built: %v", k, err)
					}
				}
			case OpenClaw:
				out := testenv.Run(t, s.Dir, ocEnv, ocBin, "plugins", "validate", "--entry", "./dist/index.js")
				if !strings.Contains(out, "Plugin "+s.Name+" is valid.") {
					t.Errorf("openclaw plugins validate:\n%s", out)
				}
				out = testenv.Run(t, s.Dir, ocEnv, ocBin, "plugins", "build", "--entry", "./dist/index.js", "--check")
				if !strings.Contains(out, "Plugin metadata is up to date.") {
					t.Errorf("openclaw plugins build --check:\n%s", out)
				}
			case AgentOS:
				compileAgainstFloor(t, repo, s)
			}
		})
	}
}

// compileAgainstFloor type-checks an AgentOS pack next to the oldest @framers/agentos its peer
// range admits (the floor of DefaultVersions.AgentOSPeer), with every other dependency from
// the monorepo's install.
func compileAgainstFloor(t *testing.T, repo string, s *Scaffold) {
	t.Helper()
	floor := strings.TrimPrefix(DefaultVersions.AgentOSPeer, ">=")
	tgz := filepath.Join(testenv.Cached(t, testenv.CacheDir(t, "agentos-"+floor), func(dir string) {
		testenv.Run(t, dir, nil, "npm", "pack", "@framers/agentos@"+floor, "--silent")
	}), "framers-agentos-"+floor+".tgz")
	dir := filepath.Join(t.TempDir(), "floor")
	nm := filepath.Join(dir, "node_modules")
	entries, err := os.ReadDir(filepath.Join(repo, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(nm, "@framers", "agentos"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "@framers" && e.Name() != ".bin" {
			if err := os.Symlink(filepath.Join(repo, "node_modules", e.Name()), filepath.Join(nm, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	untar(t, tgz, filepath.Join(nm, "@framers", "agentos"))
	if b, _ := os.ReadFile(filepath.Join(nm, "@framers", "agentos", "package.json")); !strings.Contains(string(b), `"version": "`+floor+`"`) {
		t.Fatalf("the floor tarball is not @framers/agentos %s", floor)
	}
	pack := filepath.Join(dir, "pack")
	testenv.CopyTree(t, filepath.Join(s.Dir, "src"), filepath.Join(pack, "src"))
	copyFile(t, filepath.Join(s.Dir, "tsconfig.json"), filepath.Join(pack, "tsconfig.json"))
	testenv.Run(t, pack, nil, testenv.Bin(t, "tsc"), "-p", "tsconfig.json", "--noEmit")
}

func untar(t *testing.T, tgz, dest string) {
	t.Helper()
	f, err := os.Open(tgz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(filepath.ToSlash(h.Name), "package/")
		if h.Typeflag != tar.TypeReg || strings.Contains(name, "..") {
			continue
		}
		p := filepath.Join(dest, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		out.Close()
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
