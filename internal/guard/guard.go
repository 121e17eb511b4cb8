// Package guard proves that what would be published works, as `plaios guard` promises
// (CLI.md): it chooses the candidates (publishable packages whose version the registry does
// not have yet, or --all, --only, --plan, then --shard), packs each with the repository's pack
// tool, reads and hashes every tarball and checks what it holds, installs all of them into one
// empty ESM project without install scripts, imports each in a child node process with the
// network refused (internal/sandbox), and checks the contract of its runtime and role: an
// AgentOS factory returning descriptors, a library's exports, the root's catalog, PLAIOS
// classes constructing with inert options and having their kind's members, OpenClaw and Pi
// entries registering tools through a recording API. Every tool schema a loaded pack exposes
// goes through internal/schema. The result is a Report: guard-report.json's shape.
package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/plaios/plaios/internal/check"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/sandbox"
	"github.com/plaios/plaios/internal/workspace"
)

// ReportFile is the report's name inside --out.
const ReportFile = "guard-report.json"

// DefaultStepTimeout is how long one pack, install or install-script step may run. A legitimate
// one ends in seconds to a few minutes; one that runs on is a lifecycle script that loops or
// waits forever, or npm stuck with nothing left to wait for (npm/cli#4028), and would otherwise
// hold a CI job until the job's own limit, hours later.
const DefaultStepTimeout = 10 * time.Minute

// Options are the inputs of one guard run.
type Options struct {
	Dir   string   // the working directory (relative paths are resolved from it)
	Paths []string // PATH arguments: package folders or a repository root (default ".")

	All  bool     // every publishable package
	Only []string // these package folders
	Plan string   // a release plan: exactly its releases

	Shard, Shards int // check the Shard-th (1-based) of Shards stable slices; 0: all

	Jobs    int           // parallel packs and imports (default: CPUs)
	Out     string        // keep tarballs and guard-report.json here ("" : a temporary folder)
	Timeout time.Duration // per package import (default 60s)
	// StepTimeout bounds each step that runs npm or pnpm in the sandbox — a pack with its
	// lifecycle scripts, an install, the fixtures' install scripts (default DefaultStepTimeout).
	StepTimeout time.Duration
	// Memory bounds what each sandboxed child may use, all its processes together: a pack with
	// its scripts, an install, the import (default sandbox.DefaultMemory, 2 GiB).
	Memory int64

	Registry    string       // where dependencies install from, and where "already published" is read
	Sandbox     sandbox.Mode // auto, netns or off
	PackManager string       // "npm" or "pnpm" to override the workspace's
	Runtime     pack.Runtime // force every candidate's runtime (--runtime); None: each package's content

	// Severity overrides rule severities (the configuration's `rules:`).
	Severity map[string]check.Severity

	// Fixtures are the configuration's `fixtures:` by package folder (relative to the
	// repository root): inert inputs for repositories without a role map, laid over the role
	// map's fixtures of the same folder.
	Fixtures map[string]workspace.Fixture

	Getenv func(string) string // the environment (nil: os.Getenv)
	// TempDir is where guard and its sandbox make their temporary folders ("": os.TempDir,
	// from TMPDIR); both are removed when the run ends.
	TempDir string
	HTTP    *http.Client // for the registry (nil: a 60 s client)

	Node, NPM, PNPM string // the programs (default: looked up on PATH)

	// Progress, when set, is told how the run advances.
	Progress func(Progress)
	// Log, when set, receives notes (verbose).
	Log io.Writer
}

// Progress is one step of a run.
type Progress struct {
	Stage string // "pack", "check", "install", "load"
	Done  int
	Total int
	Note  string
}

// Report is guard-report.json (and `--format json`).
type Report struct {
	SchemaVersion int       `json:"schemaVersion"`
	Packages      []*Result `json:"packages"`

	// Sandbox says how children were isolated (not written to the report).
	Sandbox string `json:"-"`
	// Selection says how the candidates were chosen, for the summary line.
	Selection string `json:"-"`
	// Skipped counts publishable packages left out because their version is published.
	Skipped int `json:"-"`
}

// Result is one candidate's outcome.
type Result struct {
	Name        string             `json:"name"`
	Version     string             `json:"version"`
	Dir         string             `json:"dir"`
	Tarball     string             `json:"tarball"` // relative to --out
	Integrity   string             `json:"integrity"`
	Files       int                `json:"files"`
	Descriptors []Descriptor       `json:"descriptors"`
	OK          bool               `json:"ok"`
	Reason      string             `json:"reason"`
	Diagnostics []check.Diagnostic `json:"diagnostics"`
	Shasum      string             `json:"-"`
	Runtime     pack.Runtime       `json:"-"`
	Role        string             `json:"-"`
	Check       string             `json:"-"` // which contract was checked
	Attempts    []sandbox.Attempt  `json:"-"`
	Duration    time.Duration      `json:"-"`
	tarballPath string
	pk          *pack.Pack
	packed      *packed
	validated   []check.Diagnostic // validate's errors on the tarball, until mergeValidation
}

// Descriptor is one thing a loaded package exposes: an AgentOS descriptor, a PLAIOS
// interface, an OpenClaw or Pi tool, a library function, a catalog entry.
type Descriptor struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
}

// Failed reports the results that failed.
func (r *Report) Failed() []*Result {
	var out []*Result
	for _, p := range r.Packages {
		if !p.OK {
			out = append(out, p)
		}
	}
	return out
}

// Noun is how a result's descriptors are counted in the text output.
func (r *Result) Noun() string {
	n := len(r.Descriptors)
	one := ""
	switch r.Check {
	case checkAgentOS:
		one = "descriptor"
	case checkPLAIOS:
		one = "interface"
	case checkOpenClaw, checkPi:
		one = "tool"
	case checkLibrary:
		one = "export"
	case checkRoot:
		one = "catalog entry"
		if n != 1 {
			return fmt.Sprintf("%d catalog entries", n)
		}
	default:
		return ""
	}
	if n != 1 {
		one += "s"
	}
	return fmt.Sprintf("%d %s", n, one)
}

// fail records the first cause of failure.
func (r *Result) fail(format string, a ...any) {
	if r.OK || r.Reason == "" {
		r.Reason = fmt.Sprintf(format, a...)
	}
	r.OK = false
}

// Run guards the candidates and returns the report. The error is for the run itself (a usage
// mistake, a missing tool, an unreachable registry, no sandbox): failed packages are in the
// report, not in the error.
func Run(ctx context.Context, opts Options) (*Report, error) {
	g, err := newRun(opts)
	if err != nil {
		return nil, err
	}
	defer g.cleanup()
	return g.run(ctx)
}

type run struct {
	opts    Options
	ws      *workspace.Workspace
	scope   []string // package dirs the PATH arguments name ("" : all)
	out     string   // where tarballs go
	keepOut bool
	tmp     string // the run's temporary folder
	sb      *sandbox.Sandbox
	log     io.Writer
	mu      sync.Mutex
	// hostMounts are the folders outside the workspace that host packages linked into the
	// guard project live in (showHost), shown read-only to the imports.
	hostMounts []sandbox.Mount
}

func newRun(opts Options) (*run, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Jobs < 1 {
		opts.Jobs = runtime.NumCPU()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if opts.StepTimeout <= 0 {
		opts.StepTimeout = DefaultStepTimeout
	}
	if opts.Sandbox == "" {
		opts.Sandbox = sandbox.Auto
	}
	if opts.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		opts.Dir = wd
	}
	n := 0
	for _, b := range []bool{opts.All, len(opts.Only) > 0, opts.Plan != ""} {
		if b {
			n++
		}
	}
	if n > 1 {
		return nil, exit.Usagef("--all, --only and --plan choose the candidates in different ways; give one of them")
	}
	if opts.Shards < 0 || opts.Shard < 0 || (opts.Shards > 0 && (opts.Shard < 1 || opts.Shard > opts.Shards)) {
		return nil, exit.Usagef("--shard %d/%d is not valid; give I/N with 1 ≤ I ≤ N", opts.Shard, opts.Shards)
	}
	g := &run{opts: opts, log: opts.Log}
	if g.log == nil {
		g.log = io.Discard
	}
	return g, nil
}

func (g *run) cleanup() {
	if g.sb != nil {
		g.sb.Close()
	}
	if g.tmp != "" {
		os.RemoveAll(g.tmp)
	}
}

func (g *run) notef(format string, a ...any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	fmt.Fprintf(g.log, format+"\n", a...)
}

func (g *run) progress(p Progress) {
	if g.opts.Progress != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.opts.Progress(p)
	}
}

func (g *run) run(ctx context.Context) (*Report, error) {
	if err := g.openWorkspace(); err != nil {
		return nil, err
	}
	cands, skipped, selection, err := g.candidates(ctx)
	if err != nil {
		return nil, err
	}
	rep := &Report{SchemaVersion: 1, Packages: []*Result{}, Skipped: skipped, Selection: selection}
	if err := g.prepareOut(); err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return rep, g.writeReport(rep)
	}
	if err := g.tools(); err != nil {
		return nil, err
	}
	sb, err := sandbox.New(ctx, sandbox.Config{Mode: g.opts.Sandbox, Node: g.opts.Node, TempDir: g.opts.TempDir})
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) {
			return nil, exit.Envf("guard cannot contain the packages it runs: %w; enable user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces, or a container allowed to make them), or pass --sandbox off to accept a weaker check", err)
		}
		return nil, exit.EnvErr(err)
	}
	g.sb = sb
	rep.Sandbox = sb.Describe()

	tmp, err := os.MkdirTemp(g.opts.TempDir, "plaios-guard-")
	if err != nil {
		return nil, exit.EnvErr(fmt.Errorf("make a temporary folder: %w", err))
	}
	g.tmp = tmp
	// The sandboxed children reach their folders in it through this one (when the temporary
	// folder lies inside the workspace, through the workspace's read-only view): it must let
	// the unprivileged user they run as pass.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, exit.EnvErr(err)
	}

	results := make([]*Result, len(cands))
	for i, c := range cands {
		results[i] = &Result{Name: c.Name(), Version: c.Version(), Dir: c.Dir, OK: true, Runtime: c.Runtime, Role: c.Role, Descriptors: []Descriptor{}, Diagnostics: []check.Diagnostic{}, pk: c}
	}
	rep.Packages = results

	if err := g.packAll(ctx, results); err != nil {
		return nil, err
	}
	g.stampGitHead(results)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	g.checkTarballs(results)
	waitValidation := g.startValidation(ctx, results)
	defer waitValidation()
	installed, err := g.install(ctx, results)
	if err != nil {
		return nil, err
	}
	if err := g.loadAll(ctx, results, installed); err != nil {
		return nil, err
	}
	waitValidation()
	g.mergeValidation(results)
	g.finish(rep)
	return rep, g.writeReport(rep)
}

// finish settles every result: severities applied, errors first, and diagnostics' files
// relative to the working directory, as validate writes them.
func (g *run) finish(rep *Report) {
	for _, r := range rep.Packages {
		g.applySeverity(r)
		sort.SliceStable(r.Diagnostics, func(i, j int) bool {
			return r.Diagnostics[i].Severity > r.Diagnostics[j].Severity
		})
		for i := range r.Diagnostics {
			d := &r.Diagnostics[i]
			if rel, err := filepath.Rel(g.opts.Dir, filepath.Join(g.ws.Root, filepath.FromSlash(d.File))); err == nil {
				d.File = filepath.ToSlash(rel)
			}
		}
	}
}

func (g *run) prepareOut() error {
	if g.opts.Out == "" {
		return nil
	}
	out := g.opts.Out
	if !filepath.IsAbs(out) {
		out = filepath.Join(g.opts.Dir, out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return exit.EnvErr(fmt.Errorf("cannot make the --out folder %s: %w", g.opts.Out, err))
	}
	g.out, g.keepOut = out, true
	return nil
}

func (g *run) writeReport(rep *Report) error {
	if !g.keepOut {
		return nil
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(g.out, ReportFile), append(data, '\n'), 0o644); err != nil {
		return exit.EnvErr(fmt.Errorf("write %s: %w", ReportFile, err))
	}
	return nil
}

// applySeverity applies the configured overrides and decides ok from the errors left.
func (g *run) applySeverity(r *Result) {
	var kept []check.Diagnostic
	for _, d := range r.Diagnostics {
		if sev, ok := g.opts.Severity[d.Rule]; ok {
			if sev == check.Off {
				continue
			}
			d.Severity = sev
		}
		kept = append(kept, d)
		if d.Severity == check.Error && r.OK {
			r.fail("%s", d.Message)
		}
	}
	if kept == nil {
		kept = []check.Diagnostic{}
	}
	r.Diagnostics = kept
}

// tools finds node and the pack tool.
func (g *run) tools() error {
	find := func(cur *string, name, hint string) error {
		if *cur != "" {
			return nil
		}
		p, err := lookPath(name, g.opts.Getenv)
		if err != nil {
			return exit.Envf("%s is not on PATH; %s", name, hint)
		}
		*cur = p
		return nil
	}
	if err := find(&g.opts.Node, "node", "install Node.js 20 or newer"); err != nil {
		return err
	}
	if err := find(&g.opts.NPM, "npm", "install npm (it comes with Node.js)"); err != nil {
		return err
	}
	if g.packManager() == "pnpm" {
		return find(&g.opts.PNPM, "pnpm", "this is a pnpm workspace, so guard packs with pnpm: install it (npm install -g pnpm) or set packManager: npm in .plaios.yaml")
	}
	return nil
}

func (g *run) packManager() string {
	if pm := strings.ToLower(g.opts.PackManager); pm == "npm" || pm == "pnpm" {
		return pm
	}
	return g.ws.PackManager
}

// rel makes p relative to the working directory for messages.
func (g *run) rel(p string) string {
	if r, err := filepath.Rel(g.opts.Dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func (g *run) parallel(n int, fn func(i int)) {
	jobs := g.opts.Jobs
	if jobs > n {
		jobs = n
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
