package scaffold_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/scaffold"
	"github.com/plaios/plaios/internal/scaffold/scaffoldtest"
	"github.com/plaios/plaios/internal/testenv"
)

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

// TestGeneratedPackagesBuildAndPass is the end-to-end proof of `create`: every case of
// testdata/golden/create (scaffoldtest.Built: written into one npm-workspaces monorepo with the
// PLAIOS declaration packages as members, installed once from the npm registry and built with
// the real tsc each package pins) holds exactly its golden files, passes its own test with real
// node, and imports with the network trapped; the OpenClaw plugin passes the real `openclaw
// plugins validate` and `build --check` (and Built type-checked the AgentOS packs against the
// oldest @framers/agentos their peer range admits). So every golden file is one that tsc, node
// and the runtime's CLI accepted.
func TestGeneratedPackagesBuildAndPass(t *testing.T) {
	repo := scaffoldtest.Built(t)
	npm := testenv.LookPath(t, "npm")
	ocBin, ocEnv := testenv.OpenClaw(t)
	probeFile := filepath.Join(t.TempDir(), "probe.mjs")
	if err := os.WriteFile(probeFile, []byte(probe), 0o644); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "create")
	if len(repo.Packages) < len(scaffold.Kinds(scaffold.PLAIOS))+5 {
		t.Fatalf("only %d packages were built", len(repo.Packages))
	}
	for name, s := range repo.Packages {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sameAsGolden(t, s.Dir, filepath.Join(golden, name))
			out := testenv.Run(t, s.Dir, nil, npm, "test")
			if !strings.Contains(out, "# fail 0") || strings.Contains(out, "# pass 0") {
				t.Fatalf("npm test did not pass every test:\n%s", out)
			}
			entry := map[string]string{scaffold.PLAIOS: "dist/src/index.js"}[s.Runtime]
			if entry == "" {
				entry = "dist/index.js"
			}
			testenv.Run(t, repo.Dir, nil, "node", probeFile, s.Runtime, filepath.Join(s.Dir, entry))
			switch s.Runtime {
			case scaffold.PLAIOS:
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
			case scaffold.OpenClaw:
				out := testenv.Run(t, s.Dir, ocEnv, ocBin, "plugins", "validate", "--entry", "./dist/index.js")
				if !strings.Contains(out, "Plugin "+s.Name+" is valid.") {
					t.Errorf("openclaw plugins validate:\n%s", out)
				}
				out = testenv.Run(t, s.Dir, ocEnv, ocBin, "plugins", "build", "--entry", "./dist/index.js", "--check")
				if !strings.Contains(out, "Plugin metadata is up to date.") {
					t.Errorf("openclaw plugins build --check:\n%s", out)
				}
			}
		})
	}
}

// sameAsGolden checks that every golden file is in the built package, byte for byte, and that
// the package holds no other source (what the build and the install added aside).
func sameAsGolden(t *testing.T, dir, golden string) {
	t.Helper()
	want := map[string]bool{}
	err := filepath.WalkDir(golden, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(golden, p)
		want[filepath.ToSlash(rel)] = true
		w, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		g, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil || !bytes.Equal(g, w) {
			t.Errorf("the built package's %s is not the golden file (%v)", rel, err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read the golden tree: %v", err)
	}
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "dist" || rel == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !want[rel] {
			t.Errorf("the built package holds %s, which the golden tree does not", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
