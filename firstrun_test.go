package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/scaffold"
	"github.com/plaios/plaios/internal/testenv"
)

// firstRunPack is one `plaios create` of the first-run test and what it must do after the
// next steps create prints.
type firstRunPack struct {
	args   []string // after `plaios create`
	golden string   // the case of testdata/golden/create it is, file for file and byte for byte
	checks []string // after the next steps: plaios validate --strict, plaios guard, an export check
}

// quickStartGolden is the golden case the README's quick start makes.
const quickStartGolden = "plaios-action"

// firstRunWorkspace is a fresh workspace a user makes packs in.
type firstRunWorkspace struct {
	name   string
	node24 bool // every step on Node 24 (OpenClaw); else the machine's Node 20
	packs  []firstRunPack
}

// firstRunChecks run in each pack after its next steps; `plaios guard` then runs once at the
// workspace root, for every pack of the workspace together (one tarball install, one
// sandbox), as a repository's CI would.
var firstRunChecks = []string{"plaios validate --strict"}

// checkSays is what a check prints when it passes, by the end of its command line.
var checkSays = [][2]string{
	{"plaios export pi --check", "package.json has what a Pi package needs"},
	{"plaios export openclaw --check", "openclaw.plugin.json is up to date (1 tool)"},
	{"plugins validate --entry ./dist/index.js", "Plugin clock is valid."},
	{"plugins build --entry ./dist/index.js --check", "Plugin metadata is up to date."},
	{"plaios validate --strict", "1 package, 0 errors, 0 warnings"},
}

// firstRunWorkspaces: every runtime and template. The PLAIOS kinds share one pack that has
// all eleven, so that every template file is rendered, built and tested; OpenClaw has its
// own workspace, on Node 24, which its openclaw peer needs. npm's AgentOS packs have a
// workspace of their own too (the three templates, one install each, and the floor check),
// so that the subtests running side by side take about as long as each other.
func firstRunWorkspaces(manager string) []firstRunWorkspace {
	everyKind := firstRunPack{args: []string{"--kind", strings.Join(scaffold.Kinds(scaffold.PLAIOS), ","), "every-kind"}, golden: "plaios-every-kind", checks: firstRunChecks}
	pi := firstRunPack{args: []string{"--runtime", "pi", "tool", "stats"}, golden: "pi-tool", checks: append(firstRunChecks[:1:1], "plaios export pi --check")}
	agentosTool := firstRunPack{args: []string{"--runtime", "agentos", "tool", "search", "--category", "research"}, golden: "agentos-tool", checks: firstRunChecks}
	main := firstRunWorkspace{name: "main", packs: []firstRunPack{everyKind, pi}}
	agentos := firstRunWorkspace{name: "agentos", packs: []firstRunPack{
		agentosTool,
		{args: []string{"--runtime", "agentos", "multi-tool", "notes"}, golden: "agentos-multi-tool", checks: firstRunChecks},
		{args: []string{"--runtime", "agentos", "guardrail", "no-secrets"}, golden: "agentos-guardrail", checks: firstRunChecks},
	}}
	openclaw := firstRunWorkspace{name: "openclaw", node24: true, packs: []firstRunPack{
		// The real openclaw the install brought in is the oracle: it accepts the plugin and its
		// manifest (what the template's plugin:validate script runs, without building again).
		{args: []string{"--runtime", "openclaw", "tool", "clock"}, golden: "openclaw-tool", checks: append(firstRunChecks[:1:1], "plaios export openclaw --check",
			"npx openclaw plugins validate --entry ./dist/index.js", "npx openclaw plugins build --entry ./dist/index.js --check")},
	}}
	if manager == "pnpm" {
		oc := &openclaw.packs[0]
		oc.checks = append(oc.checks[:2:2], "pnpm exec openclaw plugins validate --entry ./dist/index.js", "pnpm exec openclaw plugins build --entry ./dist/index.js --check")
		// One pack per runtime in pnpm's layout, in one workspace: the AgentOS multi-tool and
		// guardrail templates install and build exactly like the tool (the same dependencies,
		// the same tsconfig); the npm workspace builds all three.
		main.packs = []firstRunPack{everyKind, agentosTool, pi}
		return []firstRunWorkspace{main, openclaw}
	}
	return []firstRunWorkspace{main, agentos, openclaw}
}

// TestFirstRun is the first run of a user, done literally: in a fresh npm workspace and in a
// fresh pnpm workspace, against a registry that holds the templates' dependencies but no
// @plaios/* package (Verdaccio with no uplinks; what the templates install mirrored into it),
// it runs `plaios create` for every runtime and template, then exactly the "Next steps" create
// prints (cd, build, test, validate), then `plaios validate --strict`, `plaios guard` and,
// for Pi and OpenClaw, the export check, asserting each exit code. The npm workspace also
// follows the README's quick start as written, and then installs the host packages (the
// declarations of testdata/plaios-types, standing in for the real @plaios/core and
// @plaios/microfrontend) to show that the same PLAIOS packs build against them unchanged.
//
// It is also the end-to-end proof of create's golden files (testdata/golden/create): every
// pack it makes is its golden case, file for file and byte for byte, in the folder the case's
// options give, so each golden file that is built is one that the pinned TypeScript, node's
// test runner, guard's sandboxed load (every class constructed, every factory called, the
// network refused) and the runtime's own CLI accepted. The golden cases it does not make are
// PLAIOS kinds alone or paired; their files are the every-kind pack's, which it builds.
func TestFirstRun(t *testing.T) {
	testenv.SkipShort(t, "installs every template's dependencies from a local registry and builds every pack (minutes)")
	cases := goldenCases(t)
	npm := testenv.LookPath(t, "npm")
	node20 := testenv.LookPath(t, "node")
	// "", not ".": a Dir of the checkout's root keys the cached result on it (see layoutFiles).
	if v := strings.TrimSpace(testenv.Run(t, "", nil, node20, "--version")); !regexp.MustCompile(`^v(20|22)\.`).MatchString(v) {
		t.Fatalf("node on PATH is %s; the first run is a fresh CI machine's, with Node 20", v)
	}
	node24 := testenv.Node24(t)
	if v := strings.TrimSpace(testenv.Run(t, "", nil, filepath.Join(node24, "node"), "--version")); !strings.HasPrefix(v, "v24.") {
		t.Fatalf("testenv.Node24 is %s", v)
	}
	pnpm := testenv.PNPM(t)
	if v := strings.TrimSpace(testenv.Run(t, "", nil, pnpm, "--version")); v != "10.34.9" {
		t.Fatalf("the pinned pnpm is %s, want 10.34.9", v)
	}
	plaios, err := exec.LookPath("plaios")
	if err != nil {
		t.Fatalf("the plaios command of the test binary is not on PATH: %v", err)
	}

	start := time.Now()
	reg := testenv.Verdaccio(t)
	lock := filepath.Join(testenv.RepoRoot(t), "testdata", "node", "templates", "package-lock.json")
	// The TypeScript every build must find: the templates' ~X.Y.Z, which internal/scaffold's
	// TestGeneratedManifestsAgree holds to the version this lock pins and the mirror serves.
	typescript := strings.TrimPrefix(scaffold.DefaultVersions.TypeScript, "~")
	mirrored := testenv.Mirror(t, reg, lock)
	t.Logf("registry with %d mirrored package versions in %s", len(mirrored), time.Since(start).Round(time.Millisecond))
	var floorTarball string
	for _, p := range mirrored {
		if p.Name == "@framers/agentos" && p.Version == strings.TrimPrefix(scaffold.DefaultVersions.AgentOSPeer, ">=") {
			floorTarball = p.Tarball
		}
	}
	if floorTarball == "" {
		t.Fatalf("%s does not hold @framers/agentos %s, the floor of the AgentOS templates' peer range", lock, scaffold.DefaultVersions.AgentOSPeer)
	}

	// A user at a terminal, with a home of their own (per workspace: the openclaw CLI keeps
	// state there) and npm's and pnpm's caches kept between test runs (npm's is CleanEnv's,
	// under NPMEnv: tarballs by integrity; the metadata comes from this run's registry). CI is
	// cleared: pnpm would insist on a lockfile there.
	base := append(reg.NPMEnv(),
		"npm_config_store_dir="+testenv.CacheDir(t, "pnpm-store"),
		"CI=",
	)
	path20 := strings.Join([]string{filepath.Dir(plaios), filepath.Dir(pnpm), filepath.Dir(npm), filepath.Dir(node20), os.Getenv("PATH")}, string(os.PathListSeparator))
	path24 := node24 + string(os.PathListSeparator) + path20
	envWith := func(t *testing.T, path string) []string {
		env := testenv.WithHome(append(append([]string{}, base...), "PATH="+path), t.TempDir())
		// A temporary folder of the workspace's own too (TMPDIR, ChildEnv): guard's and the
		// sandbox's folders go there, not into the machine's /tmp.
		return testenv.ChildEnv(t, testenv.LastWins(env, "PATH", "CI"))
	}

	// The registry holds no @plaios/* package.
	for _, name := range []string{"@plaios/core", "@plaios/microfrontend"} {
		if out, err := testenv.RunErr(t.TempDir(), envWith(t, path20), npm, "view", name, "version"); err == nil || !strings.Contains(out, "E404") {
			t.Fatalf("the registry answers for %s: %v\n%s", name, err, out)
		}
	}

	for _, manager := range []string{"npm", "pnpm"} {
		for _, ws := range firstRunWorkspaces(manager) {
			manager, ws := manager, ws
			t.Run(manager+"/"+ws.name, func(t *testing.T) {
				t.Parallel()
				env := envWith(t, path20)
				if ws.node24 {
					env = envWith(t, path24)
				}
				root := newWorkspace(t, manager)
				r := &firstRunner{t: t, env: env, root: root, manager: manager}
				if manager == "npm" && ws.name == "main" {
					dir := r.quickStart()
					sameAsGolden(t, root, dir, quickStartGolden, cases[quickStartGolden])
					checkTypeScript(t, dir, typescript)
				}
				var agentos []string
				for _, p := range ws.packs {
					dir := r.createAndFollow(p)
					sameAsGolden(t, root, dir, p.golden, cases[p.golden])
					checkTypeScript(t, dir, typescript)
					switch {
					case strings.Contains(strings.Join(p.args, " "), "every-kind"):
						checkPLAIOSBuild(t, dir)
					case p.args[1] == "agentos":
						agentos = append(agentos, dir)
					case p.args[1] == "openclaw":
						checkOpenClawEngines(t, root)
						if manager == "npm" {
							r.checkTypeCost(dir, 50000)
						}
					case p.args[1] == "pi" && manager == "npm":
						r.checkTypeCost(dir, 50000)
					}
				}
				if manager == "npm" && len(agentos) > 0 {
					compileAgainstFloor(t, root, agentos, floorTarball)
				}
				checkGuard(t, r.run(root, "plaios guard"), r.packs)
				if manager == "npm" && ws.name == "main" {
					r.withHostPackages()
				}
				t.Logf("%s/%s: %d steps in %s, %s of CPU", manager, ws.name, r.steps, r.total.Round(time.Second), r.cpu.Round(time.Second))
			})
		}
	}
}

// newWorkspace makes a fresh workspace for manager: the package folders under packages/ and,
// for AgentOS, registry/curated/<category>/ (host/ is where the npm workspace later gets the
// host packages).
func newWorkspace(t *testing.T, manager string) string {
	root := t.TempDir()
	if manager == "pnpm" {
		testenv.WriteFiles(t, root, map[string]string{
			"package.json":        `{"name":"first-run","private":true}` + "\n",
			"pnpm-workspace.yaml": "packages:\n  - packages/*\n  - registry/curated/*/*\n",
		})
	} else {
		testenv.WriteFiles(t, root, map[string]string{
			"package.json": `{"name":"first-run","private":true,"workspaces":["packages/*","registry/curated/*/*","host/*"]}` + "\n",
		})
	}
	return root
}

// firstRunner runs a user's commands, each as typed, and fails the test on any exit code
// other than 0.
type firstRunner struct {
	t       *testing.T
	env     []string
	root    string
	manager string
	steps   int
	total   time.Duration
	cpu     time.Duration
	packs   int // made so far
}

// run runs one command line (words separated by spaces, no quoting) in dir.
func (r *firstRunner) run(dir, line string) string {
	r.t.Helper()
	words := strings.Fields(line)
	bin := words[0]
	if !filepath.IsAbs(bin) {
		var err error
		if bin, err = lookIn(r.env, words[0]); err != nil {
			r.t.Fatalf("%s: %v", line, err)
		}
	}
	start := time.Now()
	cmd := exec.Command(bin, words[1:]...)
	cmd.Dir = dir
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	r.steps++
	r.total += took
	rel, _ := filepath.Rel(r.root, dir)
	if err != nil {
		r.t.Fatalf("`%s` in %s failed after %s (%v):\n%s", line, filepath.ToSlash(rel), took.Round(time.Millisecond), err, out)
	}
	// The CPU of the command and of every descendant it waited for (wait4's rusage).
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	r.cpu += cpu
	r.t.Logf("%-60s in %-32s %s (%s of CPU)", line, filepath.ToSlash(rel), took.Round(time.Millisecond), cpu.Round(time.Millisecond))
	return string(out)
}

// createAndFollow runs `plaios create` at the workspace root, then the next steps it printed,
// then the pack's checks, and returns the pack's folder.
func (r *firstRunner) createAndFollow(p firstRunPack) string {
	r.t.Helper()
	out := r.run(r.root, "plaios create "+strings.Join(p.args, " "))
	r.packs++
	steps := nextSteps(r.t, out)
	if len(steps) < 4 || !strings.HasPrefix(steps[0], "cd ") {
		r.t.Fatalf("create printed no next steps to follow:\n%s", out)
	}
	want := []string{r.manager + " run build", r.manager + " test", "plaios validate"}
	if strings.Join(steps[1:], "|") != strings.Join(want, "|") {
		r.t.Errorf("create's next steps are %q, want cd and %q", steps, want)
	}
	dir := r.root
	for _, s := range steps {
		dir = r.follow(dir, s)
	}
	for _, c := range p.checks {
		out := r.run(dir, c)
		for _, w := range checkSays {
			if strings.HasSuffix(c, w[0]) && !strings.Contains(out, w[1]) {
				r.t.Errorf("`%s` did not say %q:\n%s", c, w[1], out)
			}
		}
	}
	return dir
}

// follow runs one step in dir and returns the folder the next one runs in.
func (r *firstRunner) follow(dir, step string) string {
	r.t.Helper()
	if to, ok := strings.CutPrefix(step, "cd "); ok {
		next := filepath.Join(dir, filepath.FromSlash(to))
		if st, err := os.Stat(next); err != nil || !st.IsDir() {
			r.t.Fatalf("`%s`: no such folder", step)
		}
		return next
	}
	out := r.run(dir, step)
	// node --test reports in TAP on Node 20 (# pass 4) and with its spec reporter on Node 24
	// (ℹ pass 4).
	if strings.HasSuffix(step, " test") && (!regexp.MustCompile(`(?m)^(#|ℹ) fail 0$`).MatchString(out) || !regexp.MustCompile(`(?m)^(#|ℹ) pass [1-9]`).MatchString(out)) {
		r.t.Fatalf("`%s` did not pass every test:\n%s", step, out)
	}
	return dir
}

// quickStart follows the README's quick start (testenv.QuickStart, which testenv's
// TestQuickStartIsTheREADMEs holds to the README's block) and returns the folder of the pack
// it made.
func (r *firstRunner) quickStart() string {
	r.t.Helper()
	dir := r.root
	for _, line := range testenv.QuickStart {
		dir = r.follow(dir, line)
		if strings.HasPrefix(line, "plaios create ") {
			r.packs++
		}
	}
	checkPLAIOSBuild(r.t, dir)
	return dir
}

// withHostPackages installs the host packages next to the PLAIOS packs (the declaration
// packages of testdata/plaios-types, as workspace packages under host/) and builds the quick
// start's pack and the every-kind pack again, from an empty dist: tsc now reads
// @plaios/core's and @plaios/microfrontend's own types, not the pack's declarations, and
// emits exactly what it emitted before, file for file — so the tests the packs passed
// before hold of what they build now. (npm nests the every-kind pack's own declarations
// under it, since the quick start's are at the root, so tsc still reads those there.)
func (r *firstRunner) withHostPackages() {
	r.t.Helper()
	types := filepath.Join(testenv.RepoRoot(r.t), "testdata", "plaios-types")
	for _, name := range []string{"core", "microfrontend"} {
		testenv.CopyTree(r.t, filepath.Join(types, name), filepath.Join(r.root, "host", name))
	}
	dir := filepath.Join(r.root, "packages", "weather")
	everyKind := filepath.Join(r.root, "packages", "every-kind")
	// The pack whose declarations npm linked at the root (the first one made) is the one
	// whose resolution the host packages, also at the root, decide.
	link, err := os.Readlink(filepath.Join(r.root, "node_modules", "@types", "plaios__core"))
	if err != nil || filepath.ToSlash(link) != "../../packages/weather/types/plaios/core" {
		r.t.Fatalf("node_modules/@types/plaios__core links to %q (%v), not the quick start pack's declarations", link, err)
	}
	tsc := filepath.Join(r.root, "node_modules", ".bin", "tsc")
	before := r.run(dir, tsc+" -p tsconfig.json --listFilesOnly")
	built := map[string]map[string]string{}
	for _, d := range []string{dir, everyKind} {
		built[d] = testenv.ReadTree(r.t, filepath.Join(d, "dist"))
		if err := os.RemoveAll(filepath.Join(d, "dist")); err != nil {
			r.t.Fatal(err)
		}
	}
	r.run(r.root, "npm install --no-audit --no-fund")
	after := r.run(dir, "npm run build -- --listFiles")
	r.run(everyKind, "npm run build")
	own := filepath.Join("packages", "weather", "types", "plaios")
	host := filepath.Join(r.root, "host")
	if !strings.Contains(before, own) || strings.Contains(before, host) {
		r.t.Errorf("without the host packages tsc did not read the pack's own declarations:\n%s", before)
	}
	for _, want := range []string{filepath.Join(host, "core", "domain.d.ts"), filepath.Join(host, "microfrontend", "index.d.ts")} {
		if !strings.Contains(after, want) {
			r.t.Errorf("with the host packages installed tsc did not read %s:\n%s", want, after)
		}
	}
	if strings.Contains(after, own) {
		r.t.Errorf("with the host packages installed tsc still read the pack's own declarations:\n%s", after)
	}
	for _, d := range []string{dir, everyKind} {
		now := testenv.ReadTree(r.t, filepath.Join(d, "dist"))
		rel, _ := filepath.Rel(r.root, d)
		if len(now) == 0 || len(now) != len(built[d]) {
			r.t.Errorf("%s: the build next to the host packages emitted %d files, before %d", rel, len(now), len(built[d]))
		}
		for name, data := range built[d] {
			if now[name] != data {
				r.t.Errorf("%s: dist/%s differs when built next to the host packages", rel, name)
			}
		}
	}
	checkPLAIOSBuild(r.t, everyKind)
}

// checkTypeCost: the pinned tsc checks the pack in dir with at most limit type instantiations
// (its own count, the same on every machine). The Pi template names registerTool's parameters'
// type: left to infer registerTool's type parameters through Pi's ToolDefinition, tsc made
// 1.3 million instantiations (4 s of checking) for the 49-line file; with it, under 6,000. The
// OpenClaw template names defineToolPlugin's config schema's type and tool's parameters' type:
// left to infer them, tsc made 1.3 million (3–4 s of checking); with them, about 3,000.
func (r *firstRunner) checkTypeCost(dir string, limit int) {
	r.t.Helper()
	tsc := filepath.Join(r.root, "node_modules", ".bin", "tsc")
	out := r.run(dir, tsc+" -p tsconfig.json --noEmit --extendedDiagnostics")
	m := regexp.MustCompile(`(?m)^Instantiations:\s+([0-9]+)$`).FindStringSubmatch(out)
	if m == nil {
		r.t.Fatalf("tsc --extendedDiagnostics printed no instantiation count:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n > limit {
		r.t.Errorf("tsc made %d type instantiations checking the pack in %s, more than %d: a template change made its types expensive to check", n, dir, limit)
	}
	r.t.Logf("tsc checked the pack with %s type instantiations", m[1])
}

// nextSteps are the commands under "Next steps:" in create's output.
func nextSteps(t *testing.T, out string) []string {
	t.Helper()
	_, after, ok := strings.Cut(out, "\nNext steps:\n")
	if !ok {
		return nil
	}
	var steps []string
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		steps = append(steps, strings.TrimSpace(line))
	}
	return steps
}

// checkPLAIOSBuild: every interface's class and page were built, and the classes import
// nothing from the host at run time (only types come from @plaios/core).
func checkPLAIOSBuild(t *testing.T, dir string) {
	t.Helper()
	srcs, err := filepath.Glob(filepath.Join(dir, "src", "*.ts"))
	if err != nil || len(srcs) < 2 {
		t.Fatalf("the pack's sources: %v %v", srcs, err)
	}
	for _, src := range srcs {
		kind := strings.TrimSuffix(filepath.Base(src), ".ts")
		js, err := os.ReadFile(filepath.Join(dir, "dist", "src", kind+".js"))
		if err != nil || strings.Contains(string(js), "@plaios/") {
			t.Errorf("dist/src/%s.js was not built or imports the host at run time (%v)", kind, err)
		}
		if kind == "index" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "dist", "web", kind, "index.js")); err != nil {
			t.Errorf("the %s page was not built: %v", kind, err)
		}
	}
}

// checkOpenClawEngines: the Node range create holds an OpenClaw install to is the engines of
// the openclaw the install brought in.
func checkOpenClawEngines(t *testing.T, root string) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(root, "node_modules", ".pnpm", "openclaw@*", "node_modules", "openclaw", "package.json"))
	matches = append(matches, filepath.Join(root, "node_modules", "openclaw", "package.json"))
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		var pj struct {
			Version string
			Engines struct{ Node string }
		}
		if err := json.Unmarshal(data, &pj); err != nil {
			t.Fatal(err)
		}
		if pj.Engines.Node != scaffold.DefaultVersions.OpenClawNode || pj.Version != scaffold.DefaultVersions.OpenClawBuild {
			t.Errorf("openclaw %s needs Node %q; create checks %q for openclaw %s", pj.Version, pj.Engines.Node, scaffold.DefaultVersions.OpenClawNode, scaffold.DefaultVersions.OpenClawBuild)
		}
		return
	}
	t.Errorf("the workspace has no openclaw installed")
}

// compileAgainstFloor type-checks AgentOS packs next to the oldest @framers/agentos their peer
// range admits (the mirrored tarball of DefaultVersions.AgentOSPeer's floor), with every other
// dependency from the workspace's install. The packs share one tsc program (their tsconfig is
// the template's, the same for each), whose root holds each pack's src.
func compileAgainstFloor(t *testing.T, root string, packDirs []string, tgz string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "floor")
	nm := filepath.Join(dir, "node_modules")
	entries, err := os.ReadDir(filepath.Join(root, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(nm, "@framers", "agentos"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "@framers" && e.Name() != ".bin" {
			if err := os.Symlink(filepath.Join(root, "node_modules", e.Name()), filepath.Join(nm, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	untar(t, tgz, filepath.Join(nm, "@framers", "agentos"))
	floor := strings.TrimPrefix(scaffold.DefaultVersions.AgentOSPeer, ">=")
	if b, _ := os.ReadFile(filepath.Join(nm, "@framers", "agentos", "package.json")); !strings.Contains(string(b), `"version": "`+floor+`"`) {
		t.Fatalf("the floor tarball is not @framers/agentos %s", floor)
	}
	packs := filepath.Join(dir, "packs")
	var tsconfig []byte
	for _, packDir := range packDirs {
		testenv.CopyTree(t, filepath.Join(packDir, "src"), filepath.Join(packs, filepath.Base(packDir), "src"))
		data, err := os.ReadFile(filepath.Join(packDir, "tsconfig.json"))
		if err != nil {
			t.Fatal(err)
		}
		if tsconfig != nil && string(data) != string(tsconfig) {
			t.Fatalf("the AgentOS packs' tsconfig.json differ (%s); type-check them against the floor one by one", packDir)
		}
		tsconfig = data
	}
	var cfg map[string]any
	if err := json.Unmarshal(tsconfig, &cfg); err != nil {
		t.Fatalf("the AgentOS template's tsconfig.json: %v", err)
	}
	opts, _ := cfg["compilerOptions"].(map[string]any)
	if opts == nil || cfg["include"] == nil {
		t.Fatalf("the AgentOS template's tsconfig.json has no compilerOptions or include:\n%s", tsconfig)
	}
	opts["rootDir"], cfg["include"] = ".", []string{"*/src"}
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFiles(t, packs, map[string]string{"tsconfig.json": string(data)})
	// The TypeScript the packs build with: the workspace's, which the floor's node_modules links.
	out := testenv.Run(t, packs, nil, filepath.Join(root, "node_modules", ".bin", "tsc"), "-p", "tsconfig.json", "--noEmit", "--listFiles")
	wants := []string{filepath.Join(nm, "@framers", "agentos") + string(filepath.Separator)}
	for _, packDir := range packDirs {
		wants = append(wants, filepath.Join(packs, filepath.Base(packDir), "src")+string(filepath.Separator))
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("the floor program read nothing of %s:\n%s", want, out)
		}
	}
}

// untar writes the regular files of an npm tarball into dest, without its "package/" folder.
func untar(t *testing.T, tgz, dest string) {
	t.Helper()
	for name, data := range testenv.TarballFiles(t, tgz) {
		name = name[strings.IndexByte(name, '/')+1:]
		if strings.Contains(name, "..") {
			continue
		}
		testenv.WriteFiles(t, dest, map[string]string{name: data})
	}
}

// lookIn finds a program on the PATH of env.
func lookIn(env []string, name string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on the PATH of the run", name)
}

// goldenCase is one case of testdata/golden/create/cases.json: the options create gets.
type goldenCase struct {
	Runtime, Name, Category, Dir string
	Kinds                        []string
}

// goldenCases reads testdata/golden/create/cases.json and checks that this test builds every
// case that is not a PLAIOS pack whose kinds the every-kind pack holds (those are rendered and
// compared by internal/scaffold's TestGolden, and their files are the every-kind pack's).
func goldenCases(t *testing.T) map[string]goldenCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "create", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]goldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("testdata/golden/create/cases.json: %v", err)
	}
	built := map[string]bool{quickStartGolden: true}
	for _, manager := range []string{"npm", "pnpm"} {
		for _, ws := range firstRunWorkspaces(manager) {
			for _, p := range ws.packs {
				built[p.golden] = true
			}
		}
	}
	for id := range built {
		if _, ok := cases[id]; !ok {
			t.Fatalf("the first run makes the golden case %s, which cases.json does not hold", id)
		}
	}
	everyKind := map[string]bool{}
	for _, k := range cases["plaios-every-kind"].Kinds {
		everyKind[k] = true
	}
	for id, c := range cases {
		if built[id] {
			continue
		}
		if c.Runtime != scaffold.PLAIOS {
			t.Fatalf("the golden case %s (%s) is built by no test: add it to the first run", id, c.Runtime)
		}
		for _, k := range c.Kinds {
			if !everyKind[k] {
				t.Fatalf("the golden case %s has the PLAIOS kind %s, which the every-kind pack the first run builds does not", id, k)
			}
		}
	}
	return cases
}

// sameAsGolden checks that the pack create made in dir is the golden case id: in the folder
// the case's options give in the workspace root, holding every golden file byte for byte and
// no other file (what the install and the build added, node_modules and dist, aside).
func sameAsGolden(t *testing.T, root, dir, id string, c goldenCase) {
	t.Helper()
	s, err := scaffold.Plan(scaffold.Options{Runtime: c.Runtime, Kinds: c.Kinds, Name: c.Name, Category: c.Category, Dir: c.Dir, WorkDir: root, Force: true})
	if err != nil {
		t.Fatalf("golden case %s: %v", id, err)
	}
	if s.Dir != dir {
		t.Errorf("golden case %s goes to %s, but the pack is in %s", id, s.Dir, dir)
	}
	golden := filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "create", id)
	want := map[string]bool{}
	err = filepath.WalkDir(golden, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(golden, p)
		want[filepath.ToSlash(rel)] = true
		w, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if g, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(g) != string(w) {
			t.Errorf("the pack's %s is not testdata/golden/create/%s/%s (%v)", rel, id, filepath.ToSlash(rel), err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read the golden tree of %s: %v", id, err)
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
			t.Errorf("the pack holds %s, which testdata/golden/create/%s does not", rel, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkTypeScript: the TypeScript a pack's build ran is want, the one testdata/node/templates
// pins, found from the pack's folder as node finds it.
func checkTypeScript(t *testing.T, dir, want string) {
	t.Helper()
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "node_modules", "typescript", "package.json"))
		if err == nil {
			var pj struct{ Version string }
			if err := json.Unmarshal(data, &pj); err != nil || pj.Version != want {
				t.Errorf("the pack in %s was built with TypeScript %q (%v), want the pinned %s", dir, pj.Version, err, want)
			}
			return
		}
		if filepath.Dir(d) == d {
			t.Errorf("no TypeScript is installed where the pack in %s finds its modules", dir)
			return
		}
	}
}

// guardLine is guard's line for a package that passed: its name, version and what it loaded.
var guardLine = regexp.MustCompile(`^ok (\S+)@\S+ \(([0-9]+) (interfaces?|descriptors?|tools?)\)$`)

// checkGuard: guard at the workspace root passed every one of the packs, found nothing to say
// about any, and loaded something from each: every class constructed, every factory called,
// every tool registered, in its sandbox, without reaching for the network (which fails a
// package). The every-kind pack loaded all eleven interfaces.
func checkGuard(t *testing.T, out string, packs int) {
	t.Helper()
	noun := "packages"
	if packs == 1 {
		noun = "package"
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if want := fmt.Sprintf("%d %s guarded: %d ok, 0 failed", packs, noun, packs); lines[len(lines)-1] != want {
		t.Errorf("guard at the workspace root did not end with %q:\n%s", want, out)
	}
	ok := 0
	for _, line := range lines[:len(lines)-1] {
		m := guardLine.FindStringSubmatch(line)
		switch {
		case m == nil:
			t.Errorf("guard said %q of the packs", line)
		case m[2] == "0":
			t.Errorf("guard loaded nothing from %s", m[1])
		case m[1] == "@plaios/every-kind" && m[2] != "11":
			t.Errorf("guard loaded %s interfaces from every-kind, want 11", m[2])
		default:
			ok++
		}
	}
	if ok != packs {
		t.Errorf("guard passed %d packs with something loaded, want %d:\n%s", ok, packs, out)
	}
}
