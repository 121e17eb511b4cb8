//go:build realworld

package realworld

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/bridge"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/workspace"
)

// installed is the sweep's second pass, as a user of the published packs meets them: per
// runtime, one project that installs every pack of the section from its tarball (`npm install
// <tarballs>`, npm bringing in each pack's dependencies and its runtime: @framers/agentos and
// openclaw at the versions the workspace links; the framers' packs' peer ranges on
// @framers/agentos conflict, ^0.1.0 beside >=0.7.0, so that section installs with
// --legacy-peer-deps, as one project holding them all must; each Pi package as Pi installs it,
// see below), and then,
// for each installed pack, what `plaios mcp serve node_modules/<name> --list --offline` serves
// without any secret set, and the export of its runtime: `export openclaw --check` and `export
// pi --check`, or for AgentOS and PLAIOS packs `export hermes`. A pack whose guard install
// failed is left out of its section's install; one whose dependencies npm cannot resolve
// (ETARGET) is dropped from it, saying so.
func installed(t *testing.T, work string, list []*entry, env []string, agentosVersion string, fixtures map[string]workspace.Fixture) {
	start := time.Now()
	sections := map[string][]*entry{}
	for _, e := range list {
		switch {
		case e.Fetch != "" || e.Tarball == "":
		case e.Guard != nil && strings.HasPrefix(e.Guard.Reason, "install failed"):
			e.Installed = "not installed: guard's install failed"
		default:
			sections[e.Runtime] = append(sections[e.Runtime], e)
		}
	}
	hostSpec := map[string][]string{
		"agentos":  {"@framers/agentos@" + agentosVersion},
		"openclaw": {"openclaw@" + pinnedVersion(t, "openclaw", "openclaw")},
	}
	// The packs' fixtures, keyed by their folder in the projects.
	consumerFixtures := map[string]workspace.Fixture{}
	for _, e := range list {
		if f, ok := fixtures[e.Dir]; ok {
			consumerFixtures["node_modules/"+e.Name] = f
		}
	}
	// A project per section; each Pi package is installed as `pi install` installs it, in a
	// folder of its own, without its peers (npm --legacy-peer-deps: Pi 1.6.0's
	// dist/core/package-manager.js), Pi lending it its own core packages: mcp serve then loads it
	// with the Pi whose pi command is on PATH (the pinned one).
	type project struct {
		dir   string
		packs []*entry
	}
	var projects []project
	var names []string
	for s := range sections {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, section := range names {
		if section == "pi" {
			for _, e := range sections[section] {
				projects = append(projects, project{filepath.Join(work, "installed", section, filepath.Base(e.Dir)), []*entry{e}})
			}
			continue
		}
		projects = append(projects, project{filepath.Join(work, "installed", section), sections[section]})
	}
	type job struct {
		dir string
		e   *entry
	}
	var jobs []job
	for _, pr := range projects {
		if err := os.MkdirAll(pr.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pr.dir, "package.json"), []byte(`{"name":"installed","private":true}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		section := pr.packs[0].Runtime
		packs := installSection(pr.dir, pr.packs, hostSpec[section], section != "openclaw", env)
		readable(t, pr.dir)
		t.Logf("%s: %d of %d packs installed in %v", strings.TrimPrefix(pr.dir, work+string(filepath.Separator)), len(packs), len(pr.packs), time.Since(start).Round(time.Second))
		for _, e := range packs {
			jobs = append(jobs, job{pr.dir, e})
		}
	}
	twoAtATime(len(jobs), func(i int) { bridgePass(jobs[i].dir, jobs[i].e, consumerFixtures) })
	t.Logf("installed and served in %v", time.Since(start).Round(time.Second))
}

// twoAtATime calls f(0) … f(n-1), two at a time, as guard --jobs 2 runs its loads.
func twoAtATime(n int, f func(i int)) {
	var wg sync.WaitGroup
	queue := make(chan int)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queue {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		queue <- i
	}
	close(queue)
	wg.Wait()
}

// etarget is npm's refusal of a dependency version that is not published.
var etarget = regexp.MustCompile(`No matching version found for (@?[^@\s]+)@(\S+?)\.?$`)

// installSection installs the packs into project with hosts, dropping (and marking) each pack
// whose own dependency npm cannot find, and returns the packs installed.
func installSection(project string, packs []*entry, hosts []string, legacyPeers bool, env []string) []*entry {
	for len(packs) > 0 {
		args := []string{"install", "--no-audit", "--no-fund", "--ignore-scripts"}
		if legacyPeers {
			args = append(args, "--legacy-peer-deps")
		}
		args = append(args, hosts...)
		for _, e := range packs {
			args = append(args, e.Tarball)
		}
		cmd := exec.Command("npm", args...)
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.CombinedOutput()
		if err == nil {
			for _, e := range packs {
				e.Installed = "installed"
			}
			return packs
		}
		dropped := false
		if m := etarget.FindStringSubmatch(lastMatchLine(string(out), "No matching version found")); m != nil {
			kept := packs[:0]
			for _, e := range packs {
				if dependsOn(e, m[1], m[2]) {
					e.Installed = fmt.Sprintf("not installed: its dependency %s@%s is not published", m[1], m[2])
					dropped = true
				} else {
					kept = append(kept, e)
				}
			}
			packs = kept
		}
		if !dropped {
			for _, e := range packs {
				e.Installed = "not installed: npm install of the section failed: " + firstLine(string(out))
			}
			return nil
		}
	}
	return nil
}

func lastMatchLine(out, sub string) string {
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, sub) {
			line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "npm error notarget"))
		}
	}
	return line
}

// dependsOn says whether the pack's packed package.json names name at spec among its
// dependencies.
func dependsOn(e *entry, name, spec string) bool {
	out, err := exec.Command("tar", "xzf", e.Tarball, "-O", "package/package.json").Output()
	if err != nil {
		return false
	}
	var pj struct {
		Dependencies         map[string]string `json:"dependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	if json.Unmarshal(out, &pj) != nil {
		return false
	}
	return pj.Dependencies[name] == spec || pj.OptionalDependencies[name] == spec
}

// bridgePass serves and exports one installed pack, as the commands do, and records what each
// said.
func bridgePass(project string, e *entry, fixtures map[string]workspace.Fixture) {
	ctx := context.Background()
	target := bridge.Target{WorkDir: project, Path: "node_modules/" + e.Name, Fixtures: fixtures}
	getenv := func(k string) string {
		if k == "PATH" {
			return os.Getenv("PATH")
		}
		return ""
	}
	s, err := bridge.Serve{Target: target, Offline: true, Timeout: 90 * time.Second, Getenv: getenv}.Start(ctx)
	switch {
	case err != nil:
		e.Serve = "FAIL: " + err.Error()
	case len(s.Tools()) == 0:
		e.Serve = "no tool"
	default:
		e.Serve = count(len(s.Tools()), "tool")
	}
	e.InstalledDir = filepath.Join(project, "node_modules", filepath.FromSlash(e.Name))
	if s != nil {
		for _, tl := range s.Tools() {
			e.ServedTools = append(e.ServedTools, tl.Name)
		}
		sort.Strings(e.ServedTools)
	}
	if s != nil {
		s.Close()
	}
	switch pack.Runtime(e.Runtime) {
	case pack.OpenClaw:
		res, err := bridge.OpenClawExport{Target: target, Check: true}.Run(ctx)
		e.Export = checkSays("export openclaw --check", err, res != nil && res.Drift)
	case pack.Pi:
		res, err := bridge.PiExport{Target: target, Check: true}.Run(ctx)
		e.Export = checkSays("export pi --check", err, res != nil && res.Changed())
	default:
		res, err := bridge.HermesExport{Target: target, Executable: func() (string, error) { return "plaios", nil }}.Run(ctx)
		if err != nil {
			e.Export = "export hermes: FAIL: " + err.Error()
		} else {
			e.Export = "export hermes: " + count(len(res.Server.Include), "tool")
		}
	}
	e.Serve, e.Export = fromProject(project, e.Serve), fromProject(project, e.Export)
}

// fromProject is what mcp serve or export said, with each file Node's messages name by absolute
// path under project named from project instead, so that the table does not carry the folder
// of the machine that ran the sweep.
func fromProject(project, said string) string {
	return strings.ReplaceAll(said, project+string(filepath.Separator), "")
}

func checkSays(what string, err error, drift bool) string {
	switch {
	case err != nil:
		return what + ": FAIL: " + err.Error()
	case drift:
		return what + ": drift"
	}
	return what + ": up to date"
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// pinnedVersion is the version testdata/node/<pin>'s lockfile pins name at.
func pinnedVersion(t *testing.T, pin, name string) string {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "node", pin, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		t.Fatal(err)
	}
	v := lock.Packages["node_modules/"+name].Version
	if v == "" {
		t.Fatalf("testdata/node/%s pins no %s", pin, name)
	}
	return v
}

// installedJudgements are the verdicts on what the installed pass meets, decided by reading
// the packs, as judgements are for guard's: a substring of what a command said, and the
// verdict. Anything else is UNJUDGED, for a person to look at and add here.
var installedJudgements = []struct{ said, verdict string }{
	{"published without its build", "pack defect: published without its build (npm's package.json docs, main), as guard finds"},
	{"the secrets its manifest requires are not set", "needs the secrets its manifest requires to construct, and the sweep sets none (mcp serve names each)"},
	{"exposes no tool to serve", "loads and registers no tool: a speech, wake-word or guardrail provider, an OpenClaw channel or provider without its configuration, a Pi extension of commands"},
	{"export pi --check: drift", "pack defect: a Pi core package capped or in dependencies, as validate's pi-peer-range says, or imported and not a peer (Pi's docs/packages.md, Declare dependencies)"},
	{"not installed: guard's install failed", "not installed: guard's install failed, as judged above"},
	{piPeerOnly, piPeerOnlyVerdict},
	{nodePtyUnbuilt, nodePtyUnbuiltVerdict},
	{"is not published", "pack defect: it depends on a version of a package that is not published (npm ETARGET), so it cannot be installed"},
}

// installedVerdict is the verdict on what one command of the installed pass said ("" when it
// succeeded).
func installedVerdict(said string) string {
	switch {
	case said == "" || said == "installed":
		return ""
	case strings.HasSuffix(said, "no tool"):
		said = "exposes no tool to serve" // mcp serve's warning
	case !strings.Contains(said, "FAIL") && !strings.Contains(said, "not installed") && !strings.HasSuffix(said, "drift"):
		return ""
	}
	for _, j := range installedJudgements {
		if strings.Contains(said, j.said) {
			return j.verdict
		}
	}
	return "UNJUDGED: " + said
}
