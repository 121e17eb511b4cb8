package check

import (
	"fmt"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/schema"
)

var (
	schemaInvalidRule = &Rule{ID: "schema-invalid", Severity: Error, Family: "Tool schemas", Run: runFileSchemas,
		Help: "The schema must compile as JSON Schema draft-07, the dialect the runtimes' executors (Ajv) read. A schema that does not compile fails every call of its tool with SYS_CONFIGURATION_ERROR; the message names the keyword and its JSON pointer."}
	schemaTypeUnknownRule = &Rule{ID: "schema-type-unknown", Severity: Error, Family: "Tool schemas",
		Help: "`type` must be one of null, boolean, object, array, number, string, integer (or a list of them). Ajv refuses to compile anything else, so the tool fails on every call."}
	schemaDraftRule = &Rule{ID: "schema-draft", Severity: Error, Family: "Tool schemas",
		Help: "`$schema` names a draft other than draft-07. The executor's Ajv only knows draft-07 and refuses to compile the schema."}
	schemaMetaIDRule = &Rule{ID: "schema-meta-id", Severity: Error, Family: "Tool schemas",
		Help: "The schema's `$id` is the draft-07 meta-schema's own id (`http://json-schema.org/draft-07/schema#`); Ajv already holds a schema with that id and refuses to add it again."}
	schemaAsyncRule = &Rule{ID: "schema-async", Severity: Error, Family: "Tool schemas",
		Help: "The schema is marked `$async`; the executor validates synchronously and fails the call."}
	schemaFormatUnknownRule = &Rule{ID: "schema-format-unknown", Severity: Warning, Family: "Tool schemas",
		Help: "A `format` the executor does not know (ajv-formats' list) is ignored there, with a line in the log: the value is not checked at all."}
	schemaKeywordUnknownRule = &Rule{ID: "schema-keyword-unknown", Severity: Warning, Family: "Tool schemas",
		Help: "A keyword draft-07 does not define is passed over silently: it is usually a typo (`requried`, `additionalProperty`) that leaves the schema weaker than it reads."}
	schemaDefaultInvalidRule = &Rule{ID: "schema-default-invalid", Severity: Warning, Family: "Tool schemas",
		Help: "A `default` that its own schema rejects: the executor fills it in and then refuses the call it just completed."}
	schemaNotStrictRule = &Rule{ID: "schema-not-strict", Severity: Warning, Family: "Tool schemas",
		Help: "Models call tools in strict mode: every property listed in `required`, `additionalProperties: false` on every object, and \"not given\" written as null (`type: [\"number\", \"null\"]`). An error for PLAIOS capabilities, whose schemas go to the model in strict mode; a warning elsewhere."}
	toolNameInvalidRule = &Rule{ID: "tool-name-invalid", Severity: Error, Family: "Tool schemas", Run: runToolNames,
		Help: "A tool name the pack's own runtime rejects, or a duplicate. PLAIOS function names match `^[a-zA-Z0-9_-]+$`; AgentOS's ToolExecutor and orchestrator accept any name that is a non-empty string once trimmed (@framers/agentos 0.9.164) and keep tools by name; OpenClaw trims contracts.tools and drops blank names. MCP's limit (1–128 of `[A-Za-z0-9_.-]`) applies where MCP is involved — `plaios mcp serve` and `export hermes` refuse a name outside it — and is a warning in guard."}
	descriptorUndeclaredRule = &Rule{ID: "descriptor-undeclared", Severity: Warning, Family: "Tool schemas", Guard: true,
		Help: "(guard) The pack's factory returns a descriptor id that manifest.json does not list, or the manifest lists one the factory does not return: the registry catalog then advertises the wrong tools."}
)

// runFileSchemas checks the schemas that stand in files: OpenClaw's configSchema, which
// openclaw reads, and the schemas an AgentOS manifest carries. The manifest is registry
// metadata — the executor never compiles a schema written in it (RUNTIMES.md; it compiles the
// tool's own inputSchema, which guard checks) — so its findings are warnings at most.
func runFileSchemas(p *Pass) {
	switch p.Pack.Runtime {
	case pack.OpenClaw:
		if m := p.Pack.OpenClaw; m != nil && m.Value != nil {
			if cs := m.Value.Get("configSchema"); cs != nil && cs.Kind == jsonpos.Object {
				p.schemaFindings(m.File, "configSchema", schema.CheckFile(cs, schema.Options{Reader: "OpenClaw"}), false)
			}
		}
	case pack.AgentOS:
		m := p.Pack.AgentOS
		if m == nil || m.Value == nil {
			return
		}
		for i, e := range m.Extensions {
			if e.Value == nil || e.Value.Kind != jsonpos.Object {
				continue
			}
			for _, key := range []string{"schema", "inputSchema", "outputSchema"} {
				for _, s := range manifestSchemas(e.Value.Get(key), fmt.Sprintf("extensions[%d].%s", i, key)) {
					// A manifest inputSchema mirrors the tool's own, which models call in
					// strict mode; the registry's schema.input wrapper only describes it.
					strict := e.Kind == "tool" && key == "inputSchema"
					p.schemaFindings(m.File, s.where, schema.CheckFile(s.value, schema.Options{Strict: strict, Reader: manifestReader}), true)
				}
			}
		}
		// `configuration` is an object schema of the pack's settings ("secret" is the
		// manifest's own mark on a property, not a schema keyword).
		if cfg := m.Value.Get("configuration"); cfg != nil && cfg.Kind == jsonpos.Object && cfg.Get("properties") != nil {
			var keep []schema.Finding
			for _, f := range schema.CheckFile(cfg, schema.Options{Reader: manifestReader}) {
				if f.Rule == schema.RuleKeywordUnknown && strings.HasSuffix(f.Pointer, "/secret") {
					continue
				}
				keep = append(keep, f)
			}
			p.schemaFindings(m.File, "configuration", keep, true)
		}
	}
}

// manifestReader names, in messages, what reads a schema written in an AgentOS manifest.
const manifestReader = "a registry reading manifest.json (the AgentOS executor never compiles it)"

// manifestSchema is one schema an AgentOS manifest extension carries.
type manifestSchema struct {
	value *jsonpos.Value
	where string // for messages: extensions[0].schema.input
}

// manifestSchemas returns the schemas in an extension's schema field: real manifests wrap them
// as {"input": {…}, "output": {…}}, read as such; an object without those wrappers is one
// schema.
func manifestSchemas(v *jsonpos.Value, where string) []manifestSchema {
	if v == nil || (v.Kind != jsonpos.Object && v.Kind != jsonpos.Bool) {
		return nil
	}
	if !isSchemaWrapper(v) {
		return []manifestSchema{{value: v, where: where}}
	}
	var out []manifestSchema
	for _, key := range []string{"input", "output"} {
		if s := v.Get(key); s != nil && (s.Kind == jsonpos.Object || s.Kind == jsonpos.Bool) {
			out = append(out, manifestSchema{value: s, where: where + "." + key})
		}
	}
	return out
}

// isSchemaWrapper reports whether an object is the manifests' {input, output} wrapper rather
// than a schema: it has "input" or "output" and none of the keywords a schema of its own
// would start with.
func isSchemaWrapper(v *jsonpos.Value) bool {
	if v.Kind != jsonpos.Object || (v.Get("input") == nil && v.Get("output") == nil) {
		return false
	}
	for _, k := range []string{"type", "properties", "$schema", "$ref", "allOf", "anyOf", "oneOf", "items", "required"} {
		if v.Get(k) != nil {
			return false
		}
	}
	return true
}

// schemaFindings records a schema's findings. In metadata (a manifest no executor compiles)
// they are warnings at most.
func (p *Pass) schemaFindings(file, where string, findings []schema.Finding, metadata bool) {
	for _, f := range findings {
		r := p.running[f.Rule]
		if r == nil {
			continue // not a rule of this run
		}
		sev := r.Severity
		switch {
		case metadata:
			sev = min(sev, Warning)
		case f.Fatal && p.Pack.Runtime == pack.AgentOS:
			sev = Error
		}
		msg := fmt.Sprintf("%s%s: %s", where, f.Pointer, lowerFirst(strings.TrimSuffix(f.Message, ".")))
		p.diags = append(p.diags, Diagnostic{Rule: f.Rule, Severity: sev, File: file, Line: max(1, f.Pos.Line), Col: max(1, f.Pos.Col), Message: msg, Hint: f.Hint})
	}
}

// runToolNames checks the tool names that stand in files against the rule of the pack's own
// runtime, and for duplicates: an AgentOS manifest's tool extension ids and OpenClaw's
// contracts.tools. MCP's limits (1–128 of [A-Za-z0-9_.-]) are not a runtime's: they apply
// where MCP is involved, in mcp serve and export hermes.
//
// The runtimes' rules, read from their code:
//   - AgentOS (@framers/agentos 0.9.164, dist/core/tools/ToolExecutor.js registerTool and
//     dist/core/tools/ToolOrchestrator.js registerTool/registerInitialTool) refuses a tool whose
//     name is not a non-empty string once trimmed ("'id' and 'name' are required and must be
//     non-empty strings") and sets no limit on length or characters; tools are kept by name,
//     which "must be unique within the registry".
//   - OpenClaw (openclaw 2026.9.6, normalizePluginToolNames in dist/loader-runtime-load-*.mjs)
//     trims the names of contracts.tools and drops blank ones, so a blank name declares nothing.
//
// (PLAIOS capability names, ^[a-zA-Z0-9_-]+$, and Pi's tool names stand in code: guard checks
// them.)
func runToolNames(p *Pass) {
	var file, runtime string
	var names []string
	var values []*jsonpos.Value
	switch {
	case p.Pack.AgentOS != nil && p.Pack.AgentOS.Value != nil:
		file, runtime = p.Pack.AgentOS.File, "AgentOS"
		for _, e := range p.Pack.AgentOS.Extensions {
			if e.Kind == "tool" && e.ID != "" { // an empty id is agentos-manifest-invalid's
				names = append(names, e.ID)
				values = append(values, e.Value.Get("id"))
			}
		}
	case p.Pack.OpenClaw != nil && p.Pack.OpenClaw.Value != nil:
		file, runtime = p.Pack.OpenClaw.File, "OpenClaw"
		if tools := p.Pack.OpenClaw.Value.Path("contracts", "tools"); tools != nil && tools.Kind == jsonpos.Array {
			for _, it := range tools.Items {
				if it.Kind == jsonpos.String {
					names = append(names, it.Str)
					values = append(values, it)
				}
			}
		}
	default:
		return
	}
	trimmed := make([]string, len(names))
	for i, n := range names {
		trimmed[i] = strings.TrimSpace(n)
		if trimmed[i] != "" {
			continue
		}
		msg := fmt.Sprintf("the tool name %q is blank; AgentOS's ToolExecutor refuses a tool whose name is not a non-empty string", n)
		if runtime == "OpenClaw" {
			msg = fmt.Sprintf("the tool name %q is blank; openclaw drops it from contracts.tools, so it declares no tool", n)
		}
		p.ReportJSON(file, values[i], msg, "give the tool its name")
	}
	// Both runtimes compare names trimmed.
	for _, d := range schema.DuplicateNames(trimmed) {
		if d.Name == "" {
			continue
		}
		why := "AgentOS keeps tools by name, so names must be unique"
		if runtime == "OpenClaw" {
			why = "openclaw reads contracts.tools as a set of trimmed names, so the repeat declares nothing"
		}
		for _, i := range d.Indexes[1:] {
			p.ReportJSON(file, values[i], fmt.Sprintf("tool name %q is given more than once; %s", d.Name, why), "remove the repeat")
		}
	}
}

// lowerFirst lowers a sentence's first letter to fit the "rule: message" line, leaving
// quoted words and acronyms alone.
func lowerFirst(s string) string {
	if len(s) > 1 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'a' && s[1] <= 'z' {
		return string(s[0]+'a'-'A') + s[1:]
	}
	return s
}
