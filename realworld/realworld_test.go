//go:build realworld

// Package realworld is the real-world sweep (`make realworld`): it fetches the latest published
// version of every package packages.txt names from the public npm registry, lays them out as
// one workspace shaped like the framers' agentos-extensions repository (each pack of its
// catalog at its catalog path, registry/curated/<category>/<name> or templates/<name>, with the
// repository's role map; community OpenClaw and Pi packs under packages/), runs plaios validate
// and plaios guard on each as a user would, and prints a table (package, version, validate
// errors, guard verdict, reason). It needs the public
// registry, so it is behind the realworld build tag and not part of `make test`; it reports,
// and fails only when the sweep itself cannot run.
package realworld

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/check"
	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/sandbox"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/internal/workspace"
)

// entry is one package of the sweep and what became of it.
type entry struct {
	Name    string
	Runtime string // the section of packages.txt
	Version string
	Dir     string // its folder in the workspace: its catalog path, or packages/<slug>
	Role    string // its role in the workspace's role map
	Fetch   string // why it could not be fetched ("not published", …); "" when it was

	ValidateErrors []check.Diagnostic
	Guard          *guard.Result

	// The installed pass (installed_test.go).
	Tarball   string // the packed file
	Installed string // "installed", or why not
	Serve     string // what mcp serve --list served, or why it did not
	Export    string // what the runtime's export said

	// The installed copy held to its runtime itself (piitself_test.go, openclawitself_test.go).
	InstalledDir string   // the installed package's folder
	ServedTools  []string // the names mcp serve served, sorted
	Itself       string   // what the pinned runtime loaded: "N tools", "no tool", or "FAIL: why"
	ItselfTools  []string // the names of the tools it has, sorted
	ItselfAs     string   // how the runtime got it when not as the pass's first try ("an official install from npm")
}

// readList reads packages.txt: [section] lines, names, # comments.
func readList(t *testing.T, file string) []*entry {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*entry
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
		default:
			out = append(out, &entry{Name: line, Runtime: section, Dir: "packages/" + strings.NewReplacer("@", "", "/", "__").Replace(line), Role: "pack"})
		}
	}
	return out
}

// framersCatalog is the catalog of the framers' agentos-extensions repository and its role
// map, as the repository holds them (testdata/corpus/agentos-extensions).
const framersCatalog = "../testdata/corpus/agentos-extensions"

// placeFramers gives each package of the framers' catalog its folder in the repository
// (registry.json's path: registry/curated/<category>/<name>, templates/<name>) and its role in
// the repository's role map, so that the repository's conventions apply to it as they would
// in CI there. Packages the catalog does not name stay under packages/.
func placeFramers(t *testing.T, list []*entry) {
	data, err := os.ReadFile(filepath.Join(framersCatalog, "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	var catalog struct {
		Extensions map[string][]struct {
			Package string `json:"package"`
			Path    string `json:"path"`
		} `json:"extensions"`
	}
	if err := json.Unmarshal(data, &catalog); err != nil {
		t.Fatalf("registry.json: %v", err)
	}
	data, err = os.ReadFile(filepath.Join(framersCatalog, "scripts", "package-roles.json"))
	if err != nil {
		t.Fatal(err)
	}
	var roles struct {
		Roles map[string]string `json:"roles"`
	}
	if err := json.Unmarshal(data, &roles); err != nil {
		t.Fatalf("package-roles.json: %v", err)
	}
	paths := map[string]string{}
	for _, group := range catalog.Extensions {
		for _, e := range group {
			paths[e.Package] = e.Path
		}
	}
	placed := 0
	for _, e := range list {
		if p := paths[e.Name]; p != "" {
			e.Dir, e.Role = p, roles.Roles[p]
			if e.Role == "" {
				e.Role = "pack"
			}
			placed++
		}
	}
	t.Logf("%d packages at their catalog paths, %d under packages/", placed, len(list)-placed)
}

// writeRepository writes the workspace's root as the framers' repository has it: a private
// root whose workspaces are the repository's globs (pnpm-workspace.yaml's, with packages/* for
// the community packs), its catalog, a role map naming every package fetched, and an .npmrc.
func writeRepository(t *testing.T, ws string, list []*entry) {
	roles := map[string]string{}
	for _, e := range list {
		if e.Fetch == "" {
			roles[e.Dir] = e.Role
		}
	}
	rm, err := json.MarshalIndent(map[string]any{"roles": roles}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := os.ReadFile(filepath.Join(framersCatalog, "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFiles(t, ws, map[string]string{
		"package.json":               `{"name":"plaios-realworld","private":true,"workspaces":["registry/curated/*","registry/curated/*/*","templates/*","packages/*"]}` + "\n",
		"registry.json":              string(catalog),
		"scripts/package-roles.json": string(rm) + "\n",
		// The published tarballs are built already: their prepack scripts (npm run build) need
		// the source repository, which the sweep does not have. guard's npm pack reads the
		// workspace's .npmrc, as a user's does (its sandbox passes no npm_config_* variable).
		".npmrc": "ignore-scripts=true\n",
	})
}

// readable lets anyone read and traverse the workspace: as root, the sandbox runs a pack's
// code as nobody, which sees host files only as readable as they are to anyone.
func readable(t *testing.T, dirs ...string) {
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Type()&fs.ModeSymlink != 0 {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			want := info.Mode().Perm() | 0o444
			if d.IsDir() || info.Mode().Perm()&0o100 != 0 {
				want |= 0o111
			}
			if want != info.Mode().Perm() {
				return os.Chmod(p, want)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("making %s readable: %v", dir, err)
		}
	}
}

func TestRealWorld(t *testing.T) {
	start := time.Now()
	// PLAIOS_REALWORLD_PACKAGES names another list in packages.txt's form (a section of it, or
	// packages being tried before they join it).
	listFile := "packages.txt"
	if f := os.Getenv("PLAIOS_REALWORLD_PACKAGES"); f != "" {
		listFile = f
	}
	list := readList(t, listFile)
	placeFramers(t, list)
	work := os.Getenv("PLAIOS_REALWORLD_DIR")
	if work == "" {
		work = t.TempDir()
	} else if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	tarballs := filepath.Join(work, "tarballs")
	ws := filepath.Join(work, "workspace")
	for _, d := range []string{tarballs, filepath.Join(ws, "node_modules")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := testenv.CleanEnv() // npm with the test cache's npm-cache, no audit, fund or update check

	// 1. Fetch the latest version of each, as a user would: npm pack <name>@latest, several
	// names a process (npm resolves them all before writing any, so a name that is not
	// published is dropped and the rest packed again).
	fetchStart := time.Now()
	var wg sync.WaitGroup
	const chunks = 4
	for c := 0; c < chunks; c++ {
		var group []*entry
		for i := c; i < len(list); i += chunks {
			group = append(group, list[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fetch(group, tarballs, ws, env)
		}()
	}
	wg.Wait()
	t.Logf("fetched %d packages in %v", len(list), time.Since(fetchStart).Round(time.Second))

	// 2. The host runtimes, as a workspace that builds packs has them installed: guard never
	// installs them, it links the workspace's copy.
	agentosVersion := hosts(t, ws, env)
	writeRepository(t, ws, list)
	readable(t, work)

	// 3. validate, one package at a time, as `plaios validate <dir>` does.
	validateStart := time.Now()
	for _, e := range list {
		if e.Fetch != "" {
			continue
		}
		res, err := check.Validate([]string{e.Dir}, check.ValidateOptions{WorkDir: ws})
		if err != nil {
			e.ValidateErrors = []check.Diagnostic{{Rule: "validate", Severity: check.Error, Message: err.Error()}}
			continue
		}
		for _, d := range res.Diagnostics {
			if d.Severity == check.Error {
				e.ValidateErrors = append(e.ValidateErrors, d)
			}
		}
	}

	t.Logf("validated in %v", time.Since(validateStart).Round(time.Millisecond))

	// 4. guard, all of them in one run, as `plaios guard --all` does.
	guardStart := time.Now()
	node := filepath.Join(testenv.Node24(t), "node")
	genv := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		genv[k] = v
	}
	genv["PATH"] = testenv.Node24(t) + string(os.PathListSeparator) + genv["PATH"]
	fx, err := config.ReadFixtures("fixtures.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fixtures := map[string]workspace.Fixture{}
	for dir, f := range fx {
		fixtures[dir] = workspace.Fixture{Secrets: f.Secrets, Options: f.Options, InstallScripts: f.InstallScripts, Loopback: f.Loopback}
	}
	rep, err := guard.Run(context.Background(), guard.Options{
		Dir: ws, All: true, Jobs: 2, Timeout: 90 * time.Second, Sandbox: sandbox.Auto, Node: node, Fixtures: fixtures,
		Getenv: func(k string) string { return genv[k] },
		Log:    logWriter{t, time.Now()},
	})
	if err != nil {
		t.Fatalf("guard could not run: %v", err)
	}
	byDir := map[string]*guard.Result{}
	for _, r := range rep.Packages {
		byDir[r.Dir] = r
	}
	for _, e := range list {
		e.Guard = byDir[e.Dir]
	}
	t.Logf("guarded %d packages in %v", len(rep.Packages), time.Since(guardStart).Round(time.Second))

	// 5. As a user who installs the published packs: mcp serve and the runtime's export on each
	// installed copy, node 24 first on PATH (openclaw's and Pi's children need it), and the
	// pinned Pi's pi command on it, as a Pi user has it.
	piBin, _, _ := testenv.Pi(t)
	t.Setenv("PATH", filepath.Dir(piBin)+string(os.PathListSeparator)+genv["PATH"])
	installed(t, work, list, env, agentosVersion, fixtures)
	piItself(t, list)
	openclawItself(t, list)

	table, unjudged := render(list, time.Since(start))
	fmt.Println(table)
	if out := os.Getenv("PLAIOS_REALWORLD_TABLE"); out != "" {
		if err := os.WriteFile(out, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(unjudged) > 0 {
		t.Errorf("%d packages met a failure or difference of a kind nobody has judged (UNJUDGED in the table): %s; read each package and add the kind to the judgements",
			len(unjudged), strings.Join(unjudged, ", "))
	}
}

// fetch packs the latest version of each of group into dir and unpacks each at its folder of
// the workspace ws.
func fetch(group []*entry, dir, ws string, env []string) {
	todo := append([]*entry(nil), group...)
	for len(todo) > 0 {
		args := []string{"pack", "--json", "--foreground-scripts=false", "--pack-destination", dir}
		for _, e := range todo {
			args = append(args, e.Name+"@latest")
		}
		cmd := exec.Command("npm", args...)
		cmd.Env = env
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			msg := string(out)
			if ee, ok := err.(*exec.ExitError); ok {
				msg += string(ee.Stderr)
			}
			missing := ""
			if i := strings.Index(msg, "The requested resource '"); i >= 0 && strings.Contains(msg, "E404") {
				missing = strings.TrimSuffix(strings.SplitN(msg[i+len("The requested resource '"):], "'", 2)[0], "@latest")
			}
			next := todo[:0]
			for _, e := range todo {
				if e.Name == missing {
					e.Fetch = "not published"
				} else {
					next = append(next, e)
				}
			}
			if missing == "" || len(next) == len(todo) {
				for _, e := range next {
					e.Fetch = "npm pack failed: " + firstLine(msg)
				}
				return
			}
			todo = next
			continue
		}
		var packed []struct {
			Name     string `json:"name"`
			Version  string `json:"version"`
			Filename string `json:"filename"`
		}
		if err := json.Unmarshal(out, &packed); err != nil {
			for _, e := range todo {
				e.Fetch = "npm pack printed no result"
			}
			return
		}
		for _, e := range todo {
			e.Fetch = "npm pack wrote no tarball"
			for _, p := range packed {
				if p.Name == e.Name {
					e.Version, e.Tarball = p.Version, filepath.Join(dir, p.Filename)
					e.Fetch = unpack(e.Tarball, filepath.Join(ws, filepath.FromSlash(e.Dir)))
				}
			}
		}
		return
	}
}

// unpack unpacks a tarball into target, returning why it could not ("" when it did).
func unpack(tgz, target string) string {
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err.Error()
	}
	if out, err := exec.Command("tar", "xzf", tgz, "-C", target, "--strip-components=1").CombinedOutput(); err != nil {
		return "cannot unpack: " + firstLine(string(out))
	}
	return ""
}

// hosts links the host runtimes into the workspace's node_modules: @framers/agentos (latest,
// installed once into the test cache), and the pinned openclaw and Pi the tests use. It
// returns the version of @framers/agentos.
func hosts(t *testing.T, ws string, env []string) string {
	out, err := exec.Command("npm", "view", "@framers/agentos@latest", "version").Output()
	if err != nil {
		t.Fatalf("npm view @framers/agentos: %v", err)
	}
	version := strings.TrimSpace(string(out))
	agentos := testenv.CacheDir(t, "realworld-agentos-"+version)
	if _, err := os.Stat(filepath.Join(agentos, "node_modules", "@framers", "agentos", "package.json")); err != nil {
		testenv.WriteFiles(t, agentos, map[string]string{"package.json": `{"name":"host","private":true}`})
		testenv.Run(t, agentos, env, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=optional", "--legacy-peer-deps", "@framers/agentos@"+version)
	}
	link := func(target, name string) {
		l := filepath.Join(ws, "node_modules", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(agentos, "node_modules", "@framers", "agentos"), "@framers/agentos")
	ocBin, _ := testenv.OpenClaw(t)
	link(filepath.Join(filepath.Dir(filepath.Dir(ocBin)), "openclaw"), "openclaw")
	piBin, _, _ := testenv.Pi(t)
	piModules := filepath.Dir(filepath.Dir(piBin))
	for _, p := range []string{"pi-coding-agent", "pi-ai", "pi-agent-core", "pi-tui"} {
		if _, err := os.Stat(filepath.Join(piModules, "@earendil-works", p)); err == nil {
			link(filepath.Join(piModules, "@earendil-works", p), "@earendil-works/"+p)
		}
	}
	return version
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "npm error"))
		if l != "" && !strings.Contains(l, "complete log") {
			return l
		}
	}
	return "no output"
}

// judgements are the verdicts on each kind of failure the sweep meets, decided by reading
// the packs (README, "Real-world sweep"): a defect of the pack, named with the file, the field
// and the document that says so, the environment of the machine that ran the sweep, or a
// plaios bug (none is left: each was fixed). A failure of a kind not listed here is UNJUDGED, for a
// person to look at and add here.
var judgements = []struct {
	rule, reason string // a rule among the errors, or a substring of a reason without one
	verdict      string
}{
	{rule: "entry-not-shipped", verdict: "pack defect: published without its build: package.json `main` names a file the tarball lacks, so `import` fails (npm's package.json docs, main)"},
	{rule: "agentos-manifest-invalid", verdict: "pack defect: manifest.json lists `tools`, not `extensions` with id and kind, as the Extension Standards' reference manifest (templates/basic-tool) does; the framers' registry.json lists no tool for it"},
	{rule: "agentos-version-mismatch", verdict: "pack defect: manifest.json `version` lags package.json's, and the manifest describes the pack to the registry (Extension Standards, Manifest)"},
	{rule: "agentos-license", verdict: "pack defect: package.json `license` is not Apache-2.0, which the framers' Extension Standards (Extension Package Structure) require"},
	{rule: "agentos-license-file", verdict: "pack defect: a LICENSE file in the pack's folder, which the Extension Standards forbid (the repository's LICENSE applies)"},
	{rule: "agentos-publish-access", verdict: "pack defect: package.json lacks `publishConfig.access: public`, so plain `npm publish` makes the scoped package restricted (npm docs, publishConfig; the Extension Standards require it)"},
	{rule: "pi-peer-range", verdict: "pack defect: package.json caps a Pi core package's peer range or bundles one in `dependencies`; Pi's docs/packages.md says peers with \"*\", never bundled"},
	{rule: "path-outside-package", verdict: "pack defect: package.json `files` names a path outside the package (../LICENSE), which npm never packs, so the published package lacks it (npm's package.json docs, files)"},
	{reason: piPeerOnly, verdict: piPeerOnlyVerdict},
	{reason: nodePtyUnbuilt, verdict: nodePtyUnbuiltVerdict},
	{reason: "ssh: Could not resolve hostname github.com", verdict: "this machine, not the pack nor plaios: its peer @whiskeysockets/baileys depends on github:WhiskeySockets/libsignal-node, and GitHub cannot be reached from here"},
}

// Failures met by guard and by the installed pass alike.
const (
	piPeerOnly            = "is only a peer dependency, and pi install installs no peer"
	piPeerOnlyVerdict     = "pack defect: it imports a package it lists only as a peer, and pi install installs no peer (Pi's docs/packages.md, Declare dependencies: runtime packages go in dependencies); Pi itself cannot load it"
	nodePtyUnbuilt        = "Failed to load native module: pty.node"
	nodePtyUnbuiltVerdict = "this sweep, not the pack nor plaios: its dependency node-pty builds its native module in an install script, which the sweep's installs do not run (pi install runs it, given a compiler)"
)

// judge is the judgement of a package's failures (guard's errors and validate's), one verdict
// per kind.
func judge(e *entry) []string {
	found := map[string]bool{}
	var rules []string
	add := func(rule string) {
		if !found[rule] {
			found[rule] = true
			rules = append(rules, rule)
		}
	}
	for _, d := range e.ValidateErrors {
		add(d.Rule)
	}
	reasonJudged := e.Guard == nil || e.Guard.OK
	if e.Guard != nil {
		for _, d := range e.Guard.Diagnostics {
			if d.Severity == check.Error {
				add(d.Rule)
				reasonJudged = reasonJudged || d.Message == e.Guard.Reason
			}
		}
	}
	var out []string
	seen := map[string]bool{}
	say := func(v string) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, rule := range rules {
		v := "UNJUDGED " + rule
		for _, j := range judgements {
			if j.rule == rule {
				v = j.verdict
			}
		}
		say(v)
	}
	if !reasonJudged {
		v := "UNJUDGED: " + e.Guard.Reason
		for _, j := range judgements {
			if j.reason != "" && strings.Contains(e.Guard.Reason, j.reason) {
				v = j.verdict
			}
		}
		say(v)
	}
	return out
}

// render is the table, as the README shows it, and the packages it marks UNJUDGED.
func render(list []*entry, took time.Duration) (string, []string) {
	sort.SliceStable(list, func(i, j int) bool { return list[i].Runtime < list[j].Runtime })
	var b strings.Builder
	counts := map[string]int{}
	verdicts := map[string]int{}
	b.WriteString("| package | version | validate errors | guard | reason | judgement | installed: mcp serve | installed: export |\n|---|---|---|---|---|---|---|---|\n")
	installedSaid := map[string]int{}
	var unjudgedNames []string
	for _, e := range list {
		verdict, reason, errs, judgement, unjudged := "", "", "", "", false
		switch {
		case e.Fetch != "":
			verdict, reason = "—", e.Fetch
			counts[e.Fetch]++
		case e.Guard == nil:
			verdict, reason = "—", "not guarded"
		case e.Guard.OK:
			verdict = "ok"
			counts["ok"]++
		default:
			verdict, reason = "FAIL", e.Guard.Reason
			if n := e.Guard.Noun(); len(e.Guard.Descriptors) > 0 {
				verdict += " (loads: " + n + ")"
			}
			counts["fail"]++
		}
		if e.Fetch == "" {
			rules := map[string]int{}
			var ids []string
			for _, d := range e.ValidateErrors {
				if rules[d.Rule] == 0 {
					ids = append(ids, d.Rule)
				}
				rules[d.Rule]++
			}
			sort.Strings(ids)
			errs = fmt.Sprint(len(e.ValidateErrors))
			if len(ids) > 0 {
				errs += " (" + strings.Join(ids, ", ") + ")"
			}
			vs := judge(e)
			for _, v := range vs {
				verdicts[v]++
			}
			judgement = strings.Join(vs, "; ")
			unjudged = strings.Contains(judgement, "UNJUDGED")
		}
		serve, export := e.Serve, e.Export
		if serve == "" && e.Installed != "" && e.Installed != "installed" {
			serve = e.Installed
		}
		if v := installedVerdict(serve); v != "" {
			installedSaid["mcp serve: "+v]++
		}
		if v := installedVerdict(export); v != "" {
			installedSaid[strings.SplitN(export, ":", 2)[0]+": "+v]++
		}
		if unjudged || strings.Contains(installedVerdict(serve)+installedVerdict(export), "UNJUDGED") || strings.HasPrefix(differenceVerdict(itselfAgreement(e)), "UNJUDGED: ") && itselfAgreement(e) != "" {
			counts["unjudged"]++
			unjudgedNames = append(unjudgedNames, e.Name)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", e.Name, e.Version, errs, verdict, cell(reason), judgement, cell(serve), cell(export))
	}
	fmt.Fprintf(&b, "\n%d packages: %d guard ok, %d guard failed, %d not published, %d unjudged; the sweep took %v\n",
		len(list), counts["ok"], counts["fail"], counts["not published"], counts["unjudged"], took.Round(time.Second))
	// How many packages each verdict judges, most first.
	var kinds []string
	for v := range verdicts {
		kinds = append(kinds, v)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if verdicts[kinds[i]] != verdicts[kinds[j]] {
			return verdicts[kinds[i]] > verdicts[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	b.WriteString("\n| packages | judgement |\n|---|---|\n")
	for _, v := range kinds {
		fmt.Fprintf(&b, "| %d | %s |\n", verdicts[v], v)
	}
	b.WriteString("\n| packages | installed: what mcp serve and export said, when it was not a success |\n|---|---|\n")
	var said []string
	for k := range installedSaid {
		said = append(said, k)
	}
	sort.Strings(said)
	for _, k := range said {
		fmt.Fprintf(&b, "| %d | %s |\n", installedSaid[k], k)
	}
	// The runtimes themselves on the installed packs.
	for _, rt := range []struct{ section, name, how string }{
		{"pi", "Pi", "the pinned Pi loads each installed Pi package and offers its tools to a stand-in model; compared with mcp serve (loaded or not, the same tool names) and with the tools guard saw registered"},
		{"openclaw", "OpenClaw", "the pinned openclaw loads every installed plugin from its configuration's load paths (`plugins inspect --all --runtime`), and an official one it refuses trust there again as installed from npm; compared with guard (loaded or not, the same tool names)"},
	} {
		held, loaded := 0, 0
		var differ []string
		var again []int
		for i, e := range list {
			if e.Runtime != rt.section || e.Itself == "" {
				continue
			}
			held++
			if e.ItselfAs != "" {
				again = append(again, i)
			}
			if !strings.HasPrefix(e.Itself, "FAIL") {
				loaded++
			}
			if d := itselfAgreement(e); d != "" {
				differ = append(differ, fmt.Sprintf("| %s | %s | %s | %s |\n", e.Name, cell(e.Itself), cell(d), differenceVerdict(d)))
			}
		}
		if held == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nHeld to %s itself (%s): %d packages, %d loaded by %s, %d agree", rt.name, rt.how, held, loaded, rt.name, held-len(differ))
		if len(again) > 0 {
			fmt.Fprintf(&b, " (%s held again as %s: %s)", count(len(again), "package"), list[again[0]].ItselfAs, strings.Join(againNames(list, again), ", "))
		}
		if len(differ) == 0 {
			b.WriteString(", none differs.\n")
		} else {
			b.WriteString(", these differ:\n\n| package | " + rt.name + " | what differs | judgement |\n|---|---|---|---|\n" + strings.Join(differ, ""))
		}
	}
	return b.String(), unjudgedNames
}

// cell is a table cell: pipes escaped, at most 200 characters.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	if len(s) > 200 {
		s = s[:197] + "…"
	}
	return s
}

// logWriter passes guard's notes to the test log with the time since the run started.
type logWriter struct {
	t     *testing.T
	start time.Time
}

func (l logWriter) Write(p []byte) (int, error) {
	l.t.Logf("%6.1fs %s", time.Since(l.start).Seconds(), strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// againNames are the names of the entries of list at the indexes.
func againNames(list []*entry, indexes []int) []string {
	names := make([]string, len(indexes))
	for i, j := range indexes {
		names[i] = list[j].Name
	}
	return names
}
