package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/plaios/plaios/internal/check"
	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/schema"
)

// contract runs the Go side of the checks on what the harness saw: every tool schema through
// internal/schema (the rules of RULES.md "Tool schemas"), tool names, OpenClaw's
// contracts.tools and AgentOS's declared extension ids.
//
// installedDir is the package as the project installed it: its built files, searched for
// where each finding's schema is written.
func (g *run) contract(r *Result, hr *harnessResult, installedDir string, entries []string) {
	g.toolSchemas(r, hr.Tools, newLocator(installedDir), entries)
	switch r.Check {
	case checkOpenClaw:
		g.openClawDrift(r, hr.Registered, len(hr.ToolPlugin) > 0)
	case checkAgentOS:
		g.undeclaredDescriptors(r)
	}
}

// toolDialect is the naming rule of the runtime that runs a pack's tools (RULES.md
// tool-name-invalid): each runtime's own, read from its code (schema.Dialect documents where).
// MCP's stricter rule applies only where a tool goes through MCP (plaios mcp serve, export
// hermes), and guard says so as a warning (mcpNameWarning).
func toolDialect(rt pack.Runtime) schema.Dialect {
	switch rt {
	case pack.PLAIOS:
		return schema.PLAIOS
	case pack.OpenClaw:
		return schema.OpenClaw
	case pack.Pi:
		return schema.Pi
	}
	return schema.AgentOS
}

func (g *run) toolSchemas(r *Result, tools []harnessTool, loc *locator, entries []string) {
	// at is where a finding about tool (at the JSON pointer tokens keys) points: the line of
	// the source that wrote it, else of the built file, else the tool's name there, else the
	// entry the package loads from.
	at := func(tool string, keys []string) (string, int, int) {
		if p, ok := loc.find(tool, keys); ok {
			return g.sourcePosition(r, loc, p)
		}
		if len(keys) > 0 {
			if p, ok := loc.find(tool, nil); ok {
				return g.sourcePosition(r, loc, p)
			}
		}
		for _, e := range entries {
			return path.Join(r.Dir, e), 1, 1
		}
		return path.Join(r.Dir, "package.json"), 1, 1
	}
	seen := map[string]bool{}
	for _, t := range tools {
		nameDiag := func(sev check.Severity, msg, hint string) {
			file, line, col := at(t.Name, nil)
			r.Diagnostics = append(r.Diagnostics, check.Diagnostic{Rule: "tool-name-invalid", Severity: sev, File: file, Line: line, Col: col, Message: msg, Hint: hint})
		}
		// AgentOS and OpenClaw compare names trimmed (as validate's tool-name-invalid does).
		key := t.Name
		if r.Runtime == pack.AgentOS || r.Runtime == pack.OpenClaw {
			key = strings.TrimSpace(key)
		}
		if err := schema.ToolName(t.Name, toolDialect(r.Runtime)); err != nil {
			nameDiag(check.Error, fmt.Sprintf("tool %q (%s): %v", t.Name, t.Source, err), "give the tool a name")
		} else if seen[key] {
			nameDiag(check.Error, fmt.Sprintf("two tools are named %q", t.Name), "give every tool its own name")
		} else if err := schema.ToolName(t.Name, schema.MCP); err != nil {
			nameDiag(check.Warning, fmt.Sprintf("tool %q (%s): %v, so plaios mcp serve and export hermes refuse it (%s itself accepts the name)", t.Name, t.Source, err, toolDialect(r.Runtime)),
				"use 1 to 128 letters, digits, _, . or - if the pack is to be served over MCP")
		}
		seen[key] = true
		for _, s := range []struct {
			where string
			raw   json.RawMessage
		}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
			if len(s.raw) == 0 || string(s.raw) == "null" {
				continue
			}
			where := s.where
			if r.Runtime == pack.OpenClaw || r.Runtime == pack.Pi {
				where = map[string]string{"inputSchema": "parameters", "outputSchema": "outputSchema"}[s.where]
			}
			v, err := jsonpos.Parse(s.raw)
			if err != nil {
				continue
			}
			for _, f := range schema.CheckFile(v, schema.Options{Strict: r.Runtime == pack.PLAIOS}) {
				sev := check.Error
				if rl := check.Lookup(f.Rule); rl != nil {
					sev = rl.Severity
				}
				switch {
				case f.Rule == schema.RuleNotStrict && r.Runtime == pack.PLAIOS:
					sev = check.Error // PLAIOS capabilities go to the model in strict mode
				case f.Fatal && r.Runtime == pack.AgentOS:
					sev = check.Error // AgentOS's Ajv cannot compile it: every call fails
				}
				place := where
				if f.Pointer != "" {
					place += " " + f.Pointer
				}
				msg := fmt.Sprintf("tool %q %s: %s", t.Name, place, strings.TrimSuffix(f.Message, "."))
				file, line, col := at(t.Name, append([]string{where}, pointerTokens(f.Pointer)...))
				r.Diagnostics = append(r.Diagnostics, check.Diagnostic{Rule: f.Rule, Severity: sev, File: file, Line: line, Col: col, Message: msg, Hint: f.Hint})
			}
		}
	}
}

// pointerTokens splits a JSON pointer into its unescaped tokens.
func pointerTokens(ptr string) []string {
	if ptr == "" {
		return nil
	}
	var out []string
	for _, t := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		out = append(out, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	return out
}

// sourcePosition turns a position in an installed built file into a finding's file, line and
// column in the workspace: the TypeScript source its source map leads to when that source is
// in the package folder, else the built file.
func (g *run) sourcePosition(r *Result, loc *locator, p position) (string, int, int) {
	if o, ok := loc.original(p); ok {
		if _, err := os.Stat(filepath.Join(g.ws.Root, filepath.FromSlash(r.Dir), filepath.FromSlash(o.file))); err == nil {
			return path.Join(r.Dir, o.file), o.line, o.col
		}
	}
	return path.Join(r.Dir, p.file), p.line, p.col
}

// openClawDrift compares the tools the entry registered with contracts.tools. A tool it
// registers that the manifest does not declare, openclaw drops (loader-runtime-load-*.mjs,
// registerTool: "plugin must declare contracts.tools for: …"). A declared tool it does not
// register is drift only for a defineToolPlugin entry (toolPlugin), whose tools are fixed and
// which `openclaw plugins build --check` compares with the manifest; a register(api) entry may
// register a tool only under a configuration guard's inert one does not give (@openclaw/codex's
// supervision tools), and openclaw loads it either way.
func (g *run) openClawDrift(r *Result, registered []string, toolPlugin bool) {
	m := r.packed.openclaw
	if m == nil {
		return
	}
	declared := m.Tools
	extra, missing := difference(registered, declared)
	if !toolPlugin {
		missing = nil
	}
	if len(extra) == 0 && len(missing) == 0 {
		return
	}
	var parts []string
	if len(extra) > 0 {
		parts = append(parts, "registers "+quoteList(extra)+" that it does not declare")
	}
	if len(missing) > 0 {
		parts = append(parts, "declares "+quoteList(missing)+" that it does not register")
	}
	at := m.Value.Path("contracts", "tools")
	if at == nil {
		at = m.Value
	}
	r.diag("openclaw-contract-drift", pack.OpenClawManifest, at,
		"the tools the entry registers differ from contracts.tools in openclaw.plugin.json: it "+strings.Join(parts, " and "),
		"run openclaw plugins build --entry <entry> (or plaios export openclaw) to regenerate the manifest")
}

// undeclaredDescriptors compares the factory's descriptor ids with the manifest's extensions.
func (g *run) undeclaredDescriptors(r *Result) {
	m := r.packed.agentos
	if m == nil || m.Value == nil {
		return
	}
	var got []string
	for _, d := range r.Descriptors {
		got = append(got, d.ID)
	}
	extra, missing := difference(got, m.ExtensionIDs())
	at := m.Value.Get("extensions")
	for _, id := range extra {
		r.diag("descriptor-undeclared", pack.AgentOSManifest, at, fmt.Sprintf("the factory returns descriptor %q, which manifest.json does not list", id), "add it to extensions in manifest.json")
	}
	for _, id := range missing {
		r.diag("descriptor-undeclared", pack.AgentOSManifest, at, fmt.Sprintf("manifest.json lists extension %q, which the factory does not return", id), "return it from createExtensionPack, or remove it from manifest.json")
	}
}

// difference returns what is in a but not b, and in b but not a, each sorted and unique.
func difference(a, b []string) (onlyA, onlyB []string) {
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		inA[x] = true
	}
	for _, x := range b {
		inB[x] = true
	}
	for x := range inA {
		if !inB[x] {
			onlyA = append(onlyA, x)
		}
	}
	for x := range inB {
		if !inA[x] {
			onlyB = append(onlyB, x)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return onlyA, onlyB
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}
