package bridge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/pack"
)

// OpenClawResult is the openclaw.plugin.json a built plugin entry calls for.
type OpenClawResult struct {
	File     string // the manifest's path
	Old      []byte // the file on disk (nil when there is none)
	New      []byte // what export writes
	Drift    bool   // the file on disk says something else (or is missing)
	Tools    []string
	Metadata bool // the entry is a defineToolPlugin entry: the manifest is exactly `openclaw plugins build`'s
}

// OpenClawManifest builds openclaw.plugin.json from what the plugin's built entry exposes.
//
// A defineToolPlugin entry gets exactly what `openclaw plugins build` writes (openclaw 2026.9):
// the keys already in the file keep their place; id, name, description, configSchema and
// activation come from the entry's metadata, version from package.json; contracts (with tools,
// the names in registration order) and toolMetadata (the optional tools) go last.
//
// Any other entry (definePluginEntry, a register(api) object) has no metadata openclaw can
// build a manifest from (`plugins build` refuses it: "plugin entry does not expose tool or
// feature authoring metadata"), and its tools are known only by registering them, some only
// when configured (@openclaw/codex's, @openclaw/whatsapp's call tool). Without a manifest,
// export writes one from the entry (id, name, description, configSchema), version and the tools
// it registered. With one, the file is its author's: export adds to contracts.tools each tool
// the entry registers that it does not list (openclaw drops such a registration, "plugin must
// declare contracts.tools"), marks optional ones in toolMetadata, fills in a missing id or
// configSchema, and changes nothing else, keeping the tools it lists and does not see.
//
// Drift is judged as OpenClaw judges it, by deep equality whatever the order of keys.
func OpenClawManifest(p *Pack, res *Loaded) (*OpenClawResult, error) {
	out := &OpenClawResult{File: filepath.Join(p.Dir, pack.OpenClawManifest)}
	var existing *object
	if data, err := os.ReadFile(out.File); err == nil {
		out.Old = data
		v, err := jsonpos.ParseJSON5(data)
		if err != nil {
			return nil, fmt.Errorf("%s does not parse: %v; fix or remove it", pack.OpenClawManifest, err)
		}
		o, ok := jsonpos.FromValue(v).(*object)
		if !ok {
			return nil, fmt.Errorf("%s does not hold a JSON object; fix or remove it", pack.OpenClawManifest)
		}
		existing = o
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	version := p.Pack.Version()
	if version == "" {
		version = "0.0.0"
	}
	var m *object
	var tools []string
	optional := map[string]bool{}
	if len(res.Result.ToolPlugin) > 0 {
		meta, err := parseOrdered(res.Result.ToolPlugin)
		if err != nil {
			return nil, err
		}
		mo, _ := meta.(*object)
		m = existing.Clone()
		m.Delete("contracts")
		m.Delete("toolMetadata")
		for _, k := range []string{"id", "name", "description"} {
			assign(m, mo, k)
		}
		m.Set("version", version)
		for _, k := range []string{"configSchema", "activation"} {
			assign(m, mo, k)
		}
		list, _ := mo.Get("tools")
		items, _ := list.([]any)
		for _, it := range items {
			to, _ := it.(*object)
			name, _ := to.Get("name")
			s, _ := name.(string)
			tools = append(tools, s)
			if o, _ := to.Get("optional"); o == true {
				optional[s] = true
			}
		}
		out.Metadata = true
		setContracts(m, existing, tools, optional, true)
	} else {
		var entry *object
		if len(res.Result.PluginEntry) > 0 {
			e, err := parseOrdered(res.Result.PluginEntry)
			if err != nil {
				return nil, err
			}
			entry, _ = e.(*object)
		}
		id, _ := entry.Get("id")
		if s, _ := id.(string); s == "" && !existing.Has("id") {
			return nil, fmt.Errorf("the built entry's plugin has no id; give definePluginEntry (or defineToolPlugin) an id")
		}
		seen := map[string]bool{}
		for _, n := range res.Result.Registered {
			if !seen[n] {
				seen[n] = true
				tools = append(tools, n)
			}
		}
		for _, n := range res.Result.Optional {
			optional[n] = true
		}
		if existing == nil {
			m = jsonpos.NewOrderedObject()
			for _, k := range []string{"id", "name", "description"} {
				assign(m, entry, k)
			}
			m.Set("version", version)
		} else {
			m = existing.Clone()
			if !m.Has("id") {
				assign(m, entry, "id")
			}
		}
		if !m.Has("configSchema") {
			cs, ok := entry.Get("configSchema")
			if !ok || cs == nil {
				cs = parseMust(`{"type":"object","additionalProperties":false}`)
			}
			m.Set("configSchema", cs)
		}
		setContracts(m, existing, tools, optional, existing == nil)
	}
	out.Tools = tools
	out.New = stringify(m)
	out.Drift = existing == nil || !sameJSON(existing, m)
	return out, nil
}

// assign sets m[k] to from[k] as JavaScript's object spread does: a key from has (null
// included) is set, a key it lacks (undefined) is dropped, as JSON.stringify drops it.
func assign(m, from *object, k string) {
	if v, ok := from.Get(k); ok {
		m.Set(k, v)
	} else {
		m.Delete(k)
	}
}

// setContracts gives m the contracts.tools and toolMetadata of tools (optional ones marked),
// keeping the other contracts and each tool's other metadata from existing. rebuild (openclaw's
// own build, or a new file) writes exactly tools, after every other key; otherwise the tools
// existing lists stay, in place, with the others appended.
func setContracts(m, existing *object, tools []string, optional map[string]bool, rebuild bool) {
	contracts := jsonpos.NewOrderedObject()
	if c, ok := existing.Get("contracts"); ok {
		if co, ok := c.(*object); ok {
			contracts = co.Clone()
		}
	}
	var oldMeta *object
	if tm, ok := existing.Get("toolMetadata"); ok {
		oldMeta, _ = tm.(*object)
	}
	names := make([]any, 0, len(tools))
	listed := map[string]bool{}
	if !rebuild {
		if l, ok := contracts.Get("tools"); ok {
			items, _ := l.([]any)
			for _, it := range items {
				if s, ok := it.(string); ok {
					listed[s] = true
				}
				names = append(names, it)
			}
		}
	}
	for _, t := range tools {
		if !listed[t] {
			listed[t] = true
			names = append(names, t)
		}
	}
	if rebuild || len(names) > 0 || contracts.Has("tools") {
		contracts.Set("tools", names)
	}
	meta := jsonpos.NewOrderedObject()
	if !rebuild && oldMeta != nil {
		meta = oldMeta.Clone()
	}
	for _, t := range tools {
		entry := jsonpos.NewOrderedObject()
		if v, ok := oldMeta.Get(t); ok {
			if eo, ok := v.(*object); ok {
				entry = eo.Clone()
			}
		}
		if optional[t] {
			entry.Set("optional", true)
		} else if rebuild {
			entry.Delete("optional")
		}
		if entry.Len() > 0 {
			meta.Set(t, entry)
		}
	}
	if rebuild {
		m.Delete("contracts")
		m.Delete("toolMetadata")
	}
	if contracts.Len() > 0 || rebuild {
		m.Set("contracts", contracts)
	}
	if meta.Len() > 0 {
		m.Set("toolMetadata", meta)
	}
}

func parseMust(s string) any {
	v, err := parseOrdered([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

// Diff shows how the file on disk differs from what export writes, as a unified diff of the
// two written the same way (so that only content differs, not layout).
func (r *OpenClawResult) Diff() string {
	old := ""
	if r.Old != nil {
		if v, err := jsonpos.ParseJSON5(r.Old); err == nil {
			old = string(stringify(jsonpos.FromValue(v)))
		} else {
			old = string(r.Old)
		}
	}
	return UnifiedDiff(pack.OpenClawManifest+" (on disk)", pack.OpenClawManifest+" (from the built entry)", old, string(r.New))
}

// UnifiedDiff is a line diff with three lines of context.
func UnifiedDiff(nameA, nameB, a, b string) string {
	la, lb := splitLines(a), splitLines(b)
	// Longest common subsequence table.
	n, m := len(la), len(lb)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if la[i] == lb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte
		text string
		ai   int
		bi   int
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && la[i] == lb[j]:
			ops = append(ops, op{' ', la[i], i, j})
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, op{'+', lb[j], i, j})
			j++
		default:
			ops = append(ops, op{'-', la[i], i, j})
			i++
		}
	}
	const ctx = 3
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*ctx || run == len(ops) {
				end = min(len(ops), end+ctx)
				break
			}
			end = run
		}
		aStart, bStart, aLen, bLen := ops[start].ai, ops[start].bi, 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aLen++
			}
			if o.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", aStart+1, aLen, bStart+1, bLen)
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// EntryFile is the entry an OpenClaw plugin or Pi extension names first in package.json
// (openclaw.extensions or pi.extensions), as a path inside the package.
func EntryFile(p *Pack, field string) string {
	list := p.Pack.Pkg.JSON.Value.Path(field, "extensions").Strings()
	if len(list) == 0 {
		return ""
	}
	return list[0]
}

// OpenClawEntry is the file an installed openclaw loads for the plugin's first
// openclaw.extensions entry, as a path inside the package (pack.OpenClawEntries, as guard
// resolves a packed plugin's): the openclaw.runtimeExtensions entry paired with it (the
// official plugins' layout: ./index.ts in extensions, ./dist/index.js in runtimeExtensions);
// for TypeScript source without one, the first built candidate that exists, else the first
// openclaw looks for; else the entry itself. "" without openclaw.extensions.
func OpenClawEntry(p *Pack) string {
	entries, _, _ := pack.OpenClawEntries(p.Pack.Pkg.JSON.Value)
	if len(entries) == 0 || !strings.HasPrefix(entries[0].Field, "openclaw.extensions[") {
		return EntryFile(p, "openclaw") // a field openclaw refuses: validate and guard say why
	}
	e := entries[0]
	if e.Runtime != nil {
		return strings.TrimSpace(e.Runtime.Str)
	}
	src := strings.TrimSpace(e.Source.Str)
	cands := pack.BuiltEntryCandidates(src)
	for _, c := range cands {
		if rel, ok := pack.InsidePackage(c); ok {
			if st, err := os.Stat(filepath.Join(p.Dir, filepath.FromSlash(rel))); err == nil && !st.IsDir() {
				return c
			}
		}
	}
	if len(cands) > 0 {
		return cands[0]
	}
	return src
}

// jsonString is a Go string as JSON.stringify quotes it.
func jsonString(s string) string { return string(jsonpos.AppendJSString(nil, s)) }
