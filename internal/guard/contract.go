package guard

import (
	"encoding/json"
	"fmt"
	"path"
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
func (g *run) contract(r *Result, hr *harnessResult) {
	g.toolSchemas(r, hr.Tools)
	switch r.Check {
	case checkOpenClaw:
		g.openClawDrift(r, hr.Registered)
	case checkAgentOS:
		g.undeclaredDescriptors(r)
	}
}

// toolDialect is the naming rule a runtime's tool names follow: PLAIOS capability names go
// to the model as function names; the others are held to MCP's rule, which every bridge
// (plaios mcp serve, Hermes) exposes them through.
func toolDialect(rt pack.Runtime) schema.Dialect {
	if rt == pack.PLAIOS {
		return schema.PLAIOS
	}
	return schema.MCP
}

func (g *run) toolSchemas(r *Result, tools []harnessTool) {
	entry := "package.json"
	seen := map[string]bool{}
	for _, t := range tools {
		if err := schema.ToolName(t.Name, toolDialect(r.Runtime)); err != nil {
			r.diag("tool-name-invalid", entry, nil, fmt.Sprintf("tool %q (%s): %v", t.Name, t.Source, err), "")
		} else if seen[t.Name] {
			r.diag("tool-name-invalid", entry, nil, fmt.Sprintf("two tools are named %q", t.Name), "give every tool its own name")
		}
		seen[t.Name] = true
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
			// The schema comes from the loaded code, not from a file: positions mean nothing.
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
				msg := fmt.Sprintf("tool %q %s%s: %s", t.Name, where, f.Pointer, strings.TrimSuffix(f.Message, "."))
				r.Diagnostics = append(r.Diagnostics, check.Diagnostic{Rule: f.Rule, Severity: sev, File: path.Join(r.Dir, "package.json"), Message: msg, Hint: f.Hint})
			}
		}
	}
}

// openClawDrift compares the tools the entry registered with contracts.tools.
func (g *run) openClawDrift(r *Result, registered []string) {
	m := r.packed.openclaw
	if m == nil {
		return
	}
	declared := m.Tools
	extra, missing := difference(registered, declared)
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
