// Package bench measures plaios against what a user would do instead. Run with `make bench`.
package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/sandbox"
	"github.com/plaios/plaios/internal/testenv"
)

const packs = 20

// benchRepo writes an agentos-extensions style repository of n packs with no dependencies, so
// that nothing but the local disk is involved.
func benchRepo(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	roles := []string{}
	files := map[string]string{}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("tool%02d", i)
		d := "registry/curated/bench/" + name
		roles = append(roles, fmt.Sprintf("%q: \"pack\"", d))
		files[d+"/package.json"] = fmt.Sprintf(`{"name":"@bench/agentos-ext-%s","version":"1.0.0","type":"module","main":"./dist/index.js",
"exports":{".":{"import":"./dist/index.js"},"./manifest.json":"./manifest.json"},"files":["dist","manifest.json"],
"license":"Apache-2.0","publishConfig":{"access":"public"},"peerDependencies":{"@framers/agentos":">=0.1.0"}}`, name)
		files[d+"/manifest.json"] = fmt.Sprintf(`{"id":"com.bench.%s","name":"%s","version":"1.0.0","extensions":[{"kind":"tool","id":"%s","entry":"./dist/index.js"}]}`, name, name, name)
		files[d+"/dist/index.js"] = fmt.Sprintf(`const tool = { id: %[1]q, name: %[1]q, displayName: %[1]q, description: 'bench tool',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  async execute(a) { return { success: true, output: a }; } };
export function createExtensionPack() { return { name: %[1]q, descriptors: [{ id: %[1]q, kind: 'tool', payload: tool }] }; }
export default createExtensionPack;
`, name)
	}
	files["package.json"] = `{"name":"bench-repo","private":true}`
	files["scripts/package-roles.json"] = `{"roles":{` + strings.Join(roles, ",") + `}}`
	testenv.WriteFiles(b, dir, files)
	return dir
}

func run(b *testing.B, dir string, name string, args ...string) {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = benchEnv(b)
	if name == "node" {
		// The environment guard gives a loaded package: node starts without extra CA files.
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

var cacheOnce sync.Once
var cacheDir string

func benchEnv(b *testing.B) []string {
	cacheOnce.Do(func() { cacheDir = testenv.CacheDir(b, "npm-cache") })
	return append(testenv.CleanEnv(), "npm_config_cache="+cacheDir, "npm_config_registry=http://127.0.0.1:9/")
}

func packDirs(dir string) []string {
	var out []string
	for i := 0; i < packs; i++ {
		out = append(out, filepath.Join(dir, "registry", "curated", "bench", fmt.Sprintf("tool%02d", i)))
	}
	return out
}

func installProject(b *testing.B, dir string, tarballs []string) {
	b.Helper()
	deps := []string{}
	for _, tb := range tarballs {
		base := strings.TrimSuffix(filepath.Base(tb), "-1.0.0.tgz")
		deps = append(deps, fmt.Sprintf(`"@%s": "file:%s"`, strings.Replace(base, "-", "/", 1), tb))
	}
	testenv.WriteFiles(b, dir, map[string]string{"package.json": `{"name":"p","private":true,"type":"module","dependencies":{` + strings.Join(deps, ",") + `}}`})
	run(b, dir, "npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock", "--legacy-peer-deps", "--loglevel=error")
}

// floor does only the unavoidable work, as fast as plain tools allow on this machine: pack
// (two npm processes, one per core), one joint install, one node start per pack importing it
// and calling its factory (two at a time).
func floor(b *testing.B, repo string) time.Duration {
	start := time.Now()
	out := b.TempDir()
	dirs := packDirs(repo)
	var wg sync.WaitGroup
	for _, half := range [][]string{dirs[:packs/2], dirs[packs/2:]} {
		wg.Add(1)
		go func(half []string) {
			defer wg.Done()
			run(b, repo, "npm", append([]string{"pack", "--pack-destination", out}, half...)...)
		}(half)
	}
	wg.Wait()
	var tarballs []string
	for i := 0; i < packs; i++ {
		tarballs = append(tarballs, filepath.Join(out, fmt.Sprintf("bench-agentos-ext-tool%02d-1.0.0.tgz", i)))
	}
	project := b.TempDir()
	installProject(b, project, tarballs)
	sem := make(chan struct{}, 2)
	for i := 0; i < packs; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			run(b, project, "node", "--input-type=module", "-e", fmt.Sprintf(`const m = await import('@bench/agentos-ext-tool%02d'); m.createExtensionPack({});`, i))
		}(i)
	}
	wg.Wait()
	return time.Since(start)
}

// sequential is what a shell script does: for each pack, npm pack, npm install it into a
// fresh project, node imports it.
func sequential(b *testing.B, repo string) time.Duration {
	start := time.Now()
	out := b.TempDir()
	for i, d := range packDirs(repo) {
		run(b, repo, "npm", "pack", "--pack-destination", out, d)
		project := b.TempDir()
		installProject(b, project, []string{filepath.Join(out, fmt.Sprintf("bench-agentos-ext-tool%02d-1.0.0.tgz", i))})
		run(b, project, "node", "--input-type=module", "-e", fmt.Sprintf(`const m = await import('@bench/agentos-ext-tool%02d'); m.createExtensionPack({});`, i))
	}
	return time.Since(start)
}

func guardRun(b *testing.B, repo string) time.Duration {
	start := time.Now()
	for _, kv := range benchEnv(b) {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	rep, err := guard.Run(context.Background(), guard.Options{
		Dir: repo, All: true, Jobs: 2, Timeout: time.Minute, Sandbox: sandbox.Auto,
		Registry: "http://127.0.0.1:9/", Out: b.TempDir(),
	})
	if err != nil {
		b.Fatal(err)
	}
	if n := len(rep.Failed()); n > 0 || len(rep.Packages) != packs {
		b.Fatalf("guard: %d packages, %d failed: %s", len(rep.Packages), n, guard.Summary(rep))
	}
	return time.Since(start)
}

// BenchmarkGuard20 guards 20 packs and compares with the floor and with a sequential script,
// all measured in the same run. It fails when guard is over 1.3× the floor or not 2× faster
// than the script.
func BenchmarkGuard20(b *testing.B) {
	testenv.NodeModules(b)
	repo := benchRepo(b, packs)
	// Warm npm's and the OS's caches once, so that no variant pays for the first run.
	floor(b, repo)
	var g, f, s time.Duration
	for i := 0; i < b.N; i++ {
		g += guardRun(b, repo)
		f += floor(b, repo)
		s += sequential(b, repo)
	}
	n := time.Duration(b.N)
	g, f, s = g/n, f/n, s/n
	b.ReportMetric(g.Seconds(), "guard-s")
	b.ReportMetric(f.Seconds(), "floor-s")
	b.ReportMetric(s.Seconds(), "sequential-s")
	b.ReportMetric(g.Seconds()/f.Seconds(), "x-floor")
	b.ReportMetric(s.Seconds()/g.Seconds(), "x-faster-than-sequential")
	b.Logf("guard %v, floor %v (%.2f×), sequential script %v (guard %.1f× faster)", g, f, g.Seconds()/f.Seconds(), s, s.Seconds()/g.Seconds())
	if g.Seconds() > 1.3*f.Seconds() {
		b.Errorf("guard took %v, over 1.3× the floor of %v", g, f)
	}
	if s.Seconds() < 2*g.Seconds() {
		b.Errorf("guard took %v, not 2× faster than the sequential script's %v", g, s)
	}
}
