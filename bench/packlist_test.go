package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/npm/packlist"
	"github.com/plaios/plaios/internal/testenv"
)

const packlistPackages = 200

// packlistRepo writes a workspace monorepo of n packages in four shapes that exercise npm's
// packlist rules: a `files` list with a build folder, an .npmignore (with a nested one), a
// .gitignore only (with a nested one), and `files` globs with negations plus bin and main
// outside them. The root has its own .gitignore, which npm applies to every workspace.
func packlistRepo(b *testing.B, n int) (root string, pkgs []string) {
	b.Helper()
	root = b.TempDir()
	files := map[string]string{
		"package.json": `{"name":"monorepo","private":true,"workspaces":["packages/*"]}`,
		".gitignore":   "*.log\ncoverage/\n.env\n",
	}
	for i := 0; i < n; i++ {
		dir := fmt.Sprintf("packages/pack%03d", i)
		pkgs = append(pkgs, dir)
		name := fmt.Sprintf("@bench/pack%03d", i)
		add := func(p, content string) { files[dir+"/"+p] = content }
		add("README.md", "# "+name+"\n")
		add("CHANGELOG.md", "## 1.0.0\n")
		add("debug.log", "x")
		add("coverage/lcov.info", "x")
		add(".env", "TOKEN=x")
		for j := 0; j < 4; j++ {
			add(fmt.Sprintf("src/mod%d.ts", j), "export const x = 1\n")
			add(fmt.Sprintf("test/mod%d.test.ts", j), "test\n")
		}
		switch i % 4 {
		case 0:
			add("package.json", fmt.Sprintf(`{"name":%q,"version":"1.0.0","main":"dist/index.js","files":["dist","!dist/**/*.map"]}`, name))
			for j := 0; j < 4; j++ {
				add(fmt.Sprintf("dist/mod%d.js", j), "x")
				add(fmt.Sprintf("dist/mod%d.js.map", j), "x")
				add(fmt.Sprintf("dist/types/mod%d.d.ts", j), "x")
			}
			add("dist/index.js", "x")
			add("tsconfig.json", "{}")
		case 1:
			add("package.json", fmt.Sprintf(`{"name":%q,"version":"1.0.0","main":"lib/index.js"}`, name))
			add(".npmignore", "test/\nsrc/\n*.map\ntsconfig.json\n")
			add("docs/.npmignore", "drafts/\n")
			add("docs/guide.md", "x")
			add("docs/drafts/wip.md", "x")
			for j := 0; j < 5; j++ {
				add(fmt.Sprintf("lib/mod%d.js", j), "x")
				add(fmt.Sprintf("lib/mod%d.js.map", j), "x")
			}
			add("lib/index.js", "x")
			add("LICENSE", "MIT")
		case 2:
			add("package.json", fmt.Sprintf(`{"name":%q,"version":"1.0.0"}`, name))
			add(".gitignore", "dist/\n*.tmp\n")
			add("lib/.gitignore", "generated/\n")
			add("lib/generated/g.js", "x")
			add("lib/a.js", "x")
			add("dist/out.js", "x")
			add("scratch.tmp", "x")
			add("index.js", "x")
		case 3:
			add("package.json", fmt.Sprintf(`{"name":%q,"version":"1.0.0","main":"./main.js","bin":{"tool%03d":"./bin/cli.js"},"files":["lib/**/*.js","!lib/**/*.test.js","{docs,examples}/"]}`, name, i))
			add("main.js", "x")
			add("bin/cli.js", "x")
			add("bin/other.js", "x")
			add("docs/a.md", "x")
			add("examples/e.js", "x")
			for j := 0; j < 4; j++ {
				add(fmt.Sprintf("lib/sub%d/mod.js", j), "x")
				add(fmt.Sprintf("lib/sub%d/mod.test.js", j), "x")
			}
			add("LICENCE.txt", "MIT")
		}
	}
	testenv.WriteFiles(b, root, files)
	return root, pkgs
}

func goPacklists(b *testing.B, root string, pkgs []string) map[string][]string {
	b.Helper()
	fsys := os.DirFS(root)
	out := make(map[string][]string, len(pkgs))
	for _, p := range pkgs {
		l, err := packlist.Load(fsys, p, packlist.Options{WorkspaceRoot: "."})
		if err != nil {
			b.Fatalf("packlist.Load(%s): %v", p, err)
		}
		out[p] = l.Files()
	}
	return out
}

// goPacklistPerRun is BenchmarkPacklistGo's time for the 200 packages, for the ratio
// BenchmarkPacklistNPM reports when both run.
var goPacklistPerRun time.Duration

// BenchmarkPacklistGo computes the shipped files of 200 workspace packages with packlist.Load.
func BenchmarkPacklistGo(b *testing.B) {
	root, pkgs := packlistRepo(b, packlistPackages)
	start := time.Now()
	runs := 0
	for b.Loop() {
		goPacklists(b, root, pkgs)
		runs++
	}
	goPacklistPerRun = time.Since(start) / time.Duration(runs)
	b.ReportMetric(goPacklistPerRun.Seconds(), "go-s")
	b.ReportMetric(float64(goPacklistPerRun.Microseconds())/float64(len(pkgs)), "µs/package")
}

// BenchmarkPacklistNPM is what a user's script does instead: `npm pack --dry-run --json` in each
// package folder, one after another. It checks that npm and Go list the same files, and reports
// how many times faster Go is (against BenchmarkPacklistGo's time from the same run, or its own
// measurement when run alone).
func BenchmarkPacklistNPM(b *testing.B) {
	testenv.LookPath(b, "npm")
	root, pkgs := packlistRepo(b, packlistPackages)
	var npmLists map[string][]string
	start := time.Now()
	runs := 0
	for b.Loop() {
		npmLists = map[string][]string{}
		for _, p := range pkgs {
			out, err := testenv.RunErr(filepath.Join(root, filepath.FromSlash(p)), testenv.CleanEnv(), "npm", "pack",
				"--dry-run", "--json", "--foreground-scripts=false", "--ignore-scripts", "--loglevel=silent")
			if err != nil {
				b.Fatalf("npm pack in %s: %v\n%s", p, err, out)
			}
			var res []struct {
				Files []struct {
					Path string `json:"path"`
				} `json:"files"`
			}
			if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &res); err != nil || len(res) != 1 {
				b.Fatalf("npm pack output in %s: %v\n%s", p, err, out)
			}
			var files []string
			for _, f := range res[0].Files {
				files = append(files, f.Path)
			}
			slices.Sort(files)
			npmLists[p] = files
		}
		runs++
	}
	npmPerRun := time.Since(start) / time.Duration(runs)
	b.StopTimer()

	goPerRun := goPacklistPerRun
	if goPerRun == 0 {
		best := time.Duration(1 << 62)
		for range 5 {
			t := time.Now()
			goPacklists(b, root, pkgs)
			best = min(best, time.Since(t))
		}
		goPerRun = best
	}
	goLists := goPacklists(b, root, pkgs)
	for _, p := range pkgs {
		if !slices.Equal(goLists[p], npmLists[p]) {
			b.Fatalf("%s: Go and npm disagree\n  go:  %q\n  npm: %q", p, goLists[p], npmLists[p])
		}
	}
	b.ReportMetric(npmPerRun.Seconds(), "npm-s")
	b.ReportMetric(goPerRun.Seconds(), "go-s")
	b.ReportMetric(npmPerRun.Seconds()/goPerRun.Seconds(), "go-speedup-x")
}
