// Package scaffoldtest gives the tests of create and guard the packages create writes, built:
// every case of testdata/golden/create/cases.json (the golden files) written by
// scaffold.Plan and Write into one npm-workspaces monorepo with the PLAIOS declaration
// packages, installed from the npm registry, built with `npm run build` (the tsc each package
// pins), and, for the AgentOS packs, type-checked against the oldest @framers/agentos their
// peer range admits. Building them is the slowest part of the suite and two packages' tests need
// the same build, so it is made once per content: the monorepo is kept in the test cache under
// the hash of every file written, the node and npm versions and the pinned openclaw install,
// and made again whenever any of them changes. The tests then run what they prove (npm test,
// the runtimes' CLIs, guard) on that build, which they must not write to.
package scaffoldtest

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/scaffold"
	"github.com/plaios/plaios/internal/testenv"
)

// Case is one package of cases.json.
type Case struct {
	Runtime  string   `json:"runtime"`
	Kinds    []string `json:"kinds"`
	Name     string   `json:"name"`
	Category string   `json:"category,omitempty"`
	Dir      string   `json:"dir,omitempty"` // the package folder, when the runtime's default would be taken
}

// Options returns the create options of the case, to be given a WorkDir.
func (c Case) Options() scaffold.Options {
	return scaffold.Options{Runtime: c.Runtime, Kinds: append([]string(nil), c.Kinds...), Name: c.Name, Category: c.Category, Dir: c.Dir}
}

// Cases reads testdata/golden/create/cases.json: the packages the golden files pin and the
// end-to-end tests build, by the name of their golden folder. Every name is distinct, so that
// all of them fit in one workspace, and so is every folder.
func Cases(t testing.TB) map[string]Case {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "create", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]Case
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("testdata/golden/create/cases.json: %v", err)
	}
	names := map[string]string{}
	for id, c := range cases {
		key := c.Runtime + " " + c.Name
		if other, dup := names[key]; dup {
			t.Fatalf("cases.json: %s and %s both make the %s package %q", id, other, c.Runtime, c.Name)
		}
		names[key] = id
	}
	return cases
}

// Monorepo is the built monorepo of every case.
type Monorepo struct {
	Dir      string                        // the repository root; read only
	Packages map[string]*scaffold.Scaffold // by case; Dir is inside Dir
}

// rootPackageJSON makes the monorepo: packages, AgentOS packs and the declaration packages.
const rootPackageJSON = `{"name":"create-e2e","private":true,"workspaces":["packages/*","registry/curated/*/*","types/*"]}` + "\n"

// recipe names the way fill builds; change it when fill changes, to build afresh.
const recipe = "npm install --legacy-peer-deps --ignore-scripts --omit=optional; openclaw linked; npm run build; AgentOS packs type-checked against the floor; v2"

var built struct {
	sync.Mutex
	repo map[string]*Monorepo
}

// Built returns the monorepo with every case written, installed and built, making it first
// when the test cache does not hold it for this content (under a lock, so that parallel test
// binaries build it once). A failed install or build fails the test and keeps nothing.
func Built(t testing.TB) *Monorepo {
	t.Helper()
	testenv.SkipShort(t, "installs from the npm registry and builds every template")
	npm := testenv.LookPath(t, "npm")
	node := testenv.LookPath(t, "node")
	ocBin, _ := testenv.OpenClaw(t)

	stage := t.TempDir()
	cases := Cases(t)
	planned := write(t, stage, cases)
	key := sha256.New()
	hashTree(t, key, stage)
	for _, v := range []string{recipe, ocBin,
		strings.TrimSpace(testenv.Run(t, stage, nil, node, "--version")),
		strings.TrimSpace(testenv.Run(t, stage, nil, npm, "--version"))} {
		key.Write([]byte(v + "\x00"))
	}
	id := hex.EncodeToString(key.Sum(nil))[:20]

	built.Lock()
	defer built.Unlock()
	if m := built.repo[id]; m != nil {
		return m
	}
	cache := testenv.CacheDir(t, "generated-"+id)
	dir := testenv.Cached(t, cache, func(dir string) {
		fill(t, stage, dir, npm, ocBin, planned)
	})
	now := time.Now()
	_ = os.Chtimes(cache, now, now) // in use: see evict
	evict(filepath.Dir(cache), cache)

	m := &Monorepo{Dir: dir, Packages: map[string]*scaffold.Scaffold{}}
	for name, s := range planned {
		rel, err := filepath.Rel(stage, s.Dir)
		if err != nil {
			t.Fatal(err)
		}
		c := *s
		c.Root, c.Dir = dir, filepath.Join(dir, rel)
		m.Packages[name] = &c
	}
	if built.repo == nil {
		built.repo = map[string]*Monorepo{}
	}
	built.repo[id] = m
	return m
}

// write lays out the monorepo in dir and writes every case into it with scaffold.Plan and
// Write, as `plaios create` would in that repository.
func write(t testing.TB, dir string, cases map[string]Case) map[string]*scaffold.Scaffold {
	t.Helper()
	testenv.WriteFiles(t, dir, map[string]string{"package.json": rootPackageJSON})
	types := filepath.Join(testenv.RepoRoot(t), "testdata", "plaios-types")
	for _, name := range []string{"core", "microfrontend"} {
		testenv.CopyTree(t, filepath.Join(types, name), filepath.Join(dir, "types", name))
	}
	ids := make([]string, 0, len(cases))
	for id := range cases {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := map[string]*scaffold.Scaffold{}
	for _, id := range ids {
		opts := cases[id].Options()
		opts.WorkDir = dir
		s, err := scaffold.Plan(opts)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if err := s.Write(); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		out[id] = s
	}
	return out
}

// fill copies the written monorepo into dir, installs it once for all, links the pinned
// openclaw where npm would have put the (650 MB) peer, builds every package, two at a time,
// and type-checks the AgentOS packs against the oldest @framers/agentos their peer range admits.
func fill(t testing.TB, stage, dir, npm, ocBin string, planned map[string]*scaffold.Scaffold) {
	t.Helper()
	testenv.CopyTree(t, stage, dir)
	// --legacy-peer-deps keeps npm from installing the openclaw peer; the cached pinned install
	// is linked in its place. --omit=optional leaves out @framers/agentos's optional
	// local-model stack (onnxruntime, 350 MB), which the packs neither import nor type-check
	// against.
	testenv.Run(t, dir, nil, npm, "install", "--no-audit", "--no-fund", "--prefer-offline", "--legacy-peer-deps", "--ignore-scripts", "--omit=optional")
	ocPkg := filepath.Join(filepath.Dir(filepath.Dir(ocBin)), "openclaw")
	if err := os.Symlink(ocPkg, filepath.Join(dir, "node_modules", "openclaw")); err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(testenv.Run(t, dir, nil, "node", "-p", `require("typescript/package.json").version`)); v != "5.9.3" {
		t.Fatalf("the packages installed TypeScript %s, want the pinned 5.9.3", v)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	var mu sync.Mutex
	var failed []string
	for id, s := range planned {
		rel, _ := filepath.Rel(stage, s.Dir)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if out, err := testenv.RunErr(filepath.Join(dir, rel), testenv.ChildEnv(t, nil), npm, "run", "build"); err != nil {
				mu.Lock()
				failed = append(failed, id+": npm run build: "+err.Error()+"\n"+out)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(failed) > 0 {
		sort.Strings(failed)
		t.Fatalf("the generated packages do not build:\n%s", strings.Join(failed, "\n"))
	}
	for id, s := range planned {
		if s.Runtime == scaffold.AgentOS {
			rel, _ := filepath.Rel(stage, s.Dir)
			c := *s
			c.Dir = filepath.Join(dir, rel)
			t.Logf("%s: type-check against the floor of its @framers/agentos peer range", id)
			compileAgainstFloor(t, dir, &c)
		}
	}
}

// hashTree feeds every file under dir (path and content, in a fixed order) to h.
func hashTree(t testing.TB, h interface{ Write([]byte) (int, error) }, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(filepath.ToSlash(rel) + "\x00"))
		h.Write(data)
		h.Write([]byte{0})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// unusedFor is how long a built monorepo of other content stays in the cache unused.
const unusedFor = 72 * time.Hour

// evict removes the built monorepos of other content that no test has used for unusedFor
// (each is a few hundred megabytes; every template change makes a new one), and what a killed
// run left half made.
func evict(parent, keep string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(parent, e.Name())
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "generated-") || p == keep {
			continue
		}
		info, err := e.Info()
		if err == nil && time.Since(info.ModTime()) > unusedFor {
			_ = os.RemoveAll(p)
		}
	}
}

// compileAgainstFloor type-checks an AgentOS pack next to the oldest @framers/agentos its peer
// range admits (the floor of DefaultVersions.AgentOSPeer), with every other dependency from
// the monorepo's install.
func compileAgainstFloor(t testing.TB, repo string, s *scaffold.Scaffold) {
	t.Helper()
	floor := strings.TrimPrefix(scaffold.DefaultVersions.AgentOSPeer, ">=")
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

func untar(t testing.TB, tgz, dest string) {
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

func copyFile(t testing.TB, src, dst string) {
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
