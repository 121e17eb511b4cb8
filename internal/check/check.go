// Package check holds plaios's rules: each is a value with a stable ID (RULES.md), a default
// severity, a help paragraph and a run function that reports diagnostics through a Pass, in the
// shape of golang.org/x/tools/go/analysis. Each rule is a package-level value in the file of its
// family, and rules.go holds the one list of them (as a go/analysis driver takes its
// []*Analyzer): adding a rule is adding its value, its line in that list, and its tests. Run
// applies the rules (all, or the subset Options.Rules names) to the packs of a workspace in
// parallel and returns the diagnostics sorted by file and position.
package check

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/npm/packlist"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/workspace"
)

// Severity is how much a finding matters.
type Severity int

// Severities, in increasing order.
const (
	Off Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "off"
}

// MarshalJSON writes the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a severity name.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	v, ok := ParseSeverity(name)
	if !ok {
		return fmt.Errorf("unknown severity %q", name)
	}
	*s = v
	return nil
}

// ParseSeverity reads off, warning or error.
func ParseSeverity(s string) (Severity, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "off", "false", "none":
		return Off, true
	case "warning", "warn":
		return Warning, true
	case "error":
		return Error, true
	}
	return Off, false
}

// Diagnostic is one finding.
type Diagnostic struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	File     string   `json:"file"` // relative to the workspace root (cmd makes it relative to the working directory)
	Line     int      `json:"line"`
	Col      int      `json:"column"`
	Message  string   `json:"message"`
	Hint     string   `json:"hint,omitempty"`
}

// Rule is one check.
type Rule struct {
	ID       string
	Severity Severity     // default
	Runtime  pack.Runtime // None: every package
	Family   string       // the RULES.md section
	Help     string       // one paragraph, for --explain and SARIF
	// Guard marks rules that only `plaios guard` can decide (it loads the built package);
	// validate lists them for --explain and SARIF but never runs them.
	Guard bool

	Run          func(*Pass)          // per package
	RunWorkspace func(*WorkspacePass) // once per workspace
}

// Rules returns every rule, sorted by ID (a copy: callers may keep or reorder it).
func Rules() []*Rule {
	out := append([]*Rule(nil), rules...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup returns the rule with id, or nil.
func Lookup(id string) *Rule { return rulesByID[id] }

// RuleIDs lists every rule ID, sorted.
func RuleIDs() []string {
	var ids []string
	for _, r := range Rules() {
		ids = append(ids, r.ID)
	}
	return ids
}

// Options control a run.
type Options struct {
	// Severity overrides by rule ID (from --rule and the configuration's `rules:`).
	Severity map[string]Severity
	// Jobs bounds how many packages are checked at once (default 4).
	Jobs int
	// PackManager overrides the pack tool the workspace implies ("npm" or "pnpm").
	PackManager string
	// Rules are the rules to run (default: all of Rules()). Findings of a rule that is not
	// among them are never reported.
	Rules []*Rule
}

// Run checks packs (all from ws) and returns the diagnostics, sorted.
func Run(ws *workspace.Workspace, packs []*pack.Pack, opts Options) []Diagnostic {
	rules := opts.Rules
	if rules == nil {
		rules = Rules()
	}
	running := make(map[string]*Rule, len(rules))
	for _, r := range rules {
		running[r.ID] = r
	}
	var (
		mu    sync.Mutex
		diags []Diagnostic
	)
	add := func(d []Diagnostic) {
		mu.Lock()
		diags = append(diags, d...)
		mu.Unlock()
	}
	jobs := opts.Jobs
	if jobs < 1 {
		jobs = 4
	}
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for _, p := range packs {
		wg.Add(1)
		sem <- struct{}{}
		go func(p *pack.Pack) {
			defer wg.Done()
			defer func() { <-sem }()
			pass := &Pass{Pack: p, WS: ws, packManager: opts.PackManager, running: running}
			for _, r := range rules {
				if r.Run == nil || r.Guard || (r.Runtime != pack.None && r.Runtime != p.Runtime) {
					continue
				}
				pass.rule = r
				if sev, ok := opts.Severity[r.ID]; ok && sev == Off {
					continue
				}
				runRule(pass, r)
			}
			add(pass.diags)
		}(p)
	}
	wg.Wait()
	wp := &WorkspacePass{WS: ws, Packs: packs}
	for _, r := range rules {
		if r.RunWorkspace == nil || r.Guard {
			continue
		}
		if sev, ok := opts.Severity[r.ID]; ok && sev == Off {
			continue
		}
		wp.rule = r
		runWorkspaceRule(wp, r)
	}
	add(wp.diags)
	kept := diags[:0]
	for _, d := range diags {
		if sev, ok := opts.Severity[d.Rule]; ok {
			if sev == Off {
				continue
			}
			d.Severity = sev
		}
		kept = append(kept, d)
	}
	diags = kept
	Sort(diags)
	return Dedupe(diags)
}

// runRule runs one rule, turning a panic in it into a diagnostic rather than a crash.
func runRule(p *Pass, r *Rule) {
	defer func() {
		if v := recover(); v != nil {
			p.diags = append(p.diags, Diagnostic{Rule: r.ID, Severity: Error, File: p.Pack.File("package.json"), Line: 1, Col: 1,
				Message: fmt.Sprintf("internal error while checking this rule (%v); please report it", v)})
		}
	}()
	r.Run(p)
}

// runWorkspaceRule runs one workspace rule, turning a panic in it into a diagnostic.
func runWorkspaceRule(p *WorkspacePass, r *Rule) {
	defer func() {
		if v := recover(); v != nil {
			p.diags = append(p.diags, Diagnostic{Rule: r.ID, Severity: Error, File: workspace.RolesFile, Line: 1, Col: 1,
				Message: fmt.Sprintf("internal error while checking this rule (%v); please report it", v)})
		}
	}()
	r.RunWorkspace(p)
}

// Sort orders diagnostics by file, line, column and rule.
func Sort(d []Diagnostic) {
	sort.SliceStable(d, func(i, j int) bool {
		a, b := d[i], d[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}

// Dedupe removes exact repeats from sorted diagnostics.
func Dedupe(d []Diagnostic) []Diagnostic {
	out := d[:0]
	for i, x := range d {
		if i > 0 && x == d[i-1] {
			continue
		}
		out = append(out, x)
	}
	return out
}

// Pass is one rule's view of one package.
type Pass struct {
	Pack *pack.Pack
	WS   *workspace.Workspace

	rule        *Rule
	diags       []Diagnostic
	packManager string
	running     map[string]*Rule // the rules of this run, by ID

	listOnce sync.Once
	list     *packlist.List
	listErr  error
}

// Report records a finding at file:line:col with the rule's default severity.
func (p *Pass) Report(file string, line, col int, msg, hint string) {
	p.ReportSeverity(p.rule.Severity, file, line, col, msg, hint)
}

// ReportSeverity records a finding with an explicit severity (rules whose RULES.md entry
// gives two severities).
func (p *Pass) ReportSeverity(sev Severity, file string, line, col int, msg, hint string) {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	p.diags = append(p.diags, Diagnostic{Rule: p.rule.ID, Severity: sev, File: file, Line: line, Col: col, Message: msg, Hint: hint})
}

// ReportJSON records a finding at a JSON value of file (the file's start when v is nil).
func (p *Pass) ReportJSON(file string, v *jsonpos.Value, msg, hint string) {
	line, col := 1, 1
	if v != nil {
		line, col = v.Pos.Line, v.Pos.Col
	}
	p.Report(file, line, col, msg, hint)
}

// ReportKey records a finding at an object member's key.
func (p *Pass) ReportKey(file string, m *jsonpos.Member, msg, hint string) {
	if m == nil {
		p.Report(file, 1, 1, msg, hint)
		return
	}
	p.Report(file, m.KeyPos.Line, m.KeyPos.Col, msg, hint)
}

// ReportNode records a finding at a YAML node of file (the file's start when n is nil).
func (p *Pass) ReportNode(file string, n *yaml.Node, msg, hint string) {
	line, col := 1, 1
	if n != nil {
		line, col = n.Line, n.Column
	}
	p.Report(file, line, col, msg, hint)
}

// PackageJSON is the package's package.json path relative to the workspace root.
func (p *Pass) PackageJSON() string { return p.Pack.File("package.json") }

// PackManager is the tool that will pack this package: the configured one, else pnpm in a
// pnpm workspace, else npm.
func (p *Pass) PackManager() string {
	if p.packManager != "" {
		return p.packManager
	}
	return p.WS.PackManager
}

// Shipped returns the files npm would pack (nil with the error when they cannot be listed).
func (p *Pass) Shipped() (*packlist.List, error) {
	p.listOnce.Do(func() { p.list, p.listErr = p.Pack.Shipped() })
	return p.list, p.listErr
}

// Exists reports whether a path inside the package exists on disk.
func (p *Pass) Exists(rel string) bool {
	_, err := fs.Stat(p.WS.FS, path.Join(p.Pack.Dir, rel))
	return err == nil
}

// WorkspacePass is a rule's view of the whole workspace.
type WorkspacePass struct {
	WS    *workspace.Workspace
	Packs []*pack.Pack
	rule  *Rule
	diags []Diagnostic
}

// Report records a workspace-level finding.
func (p *WorkspacePass) Report(file string, line, col int, msg, hint string) {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	p.diags = append(p.diags, Diagnostic{Rule: p.rule.ID, Severity: p.rule.Severity, File: file, Line: line, Col: col, Message: msg, Hint: hint})
}

// Summary counts a run's outcome.
type Summary struct {
	Packages int `json:"packages"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// Summarize counts errors and warnings.
func Summarize(packages int, diags []Diagnostic) Summary {
	s := Summary{Packages: packages}
	for _, d := range diags {
		switch d.Severity {
		case Error:
			s.Errors++
		case Warning:
			s.Warnings++
		}
	}
	return s
}
