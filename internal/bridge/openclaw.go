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

// OpenClawManifest builds openclaw.plugin.json from what the plugin's built entry exposes, as
// `openclaw plugins build` does (openclaw 2026.9): the keys already in the file keep their
// place; id, name, description, configSchema and activation come from the entry (a
// defineToolPlugin entry's metadata, else the plugin entry's own fields and the tools its
// register(api) registers), version from package.json; contracts (with tools, the names in
// registration order) and toolMetadata (the optional tools) go last. Drift is judged as
// OpenClaw judges it, by deep equality whatever the order of keys.
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
	m := existing.Clone()
	m.Delete("contracts")
	m.Delete("toolMetadata")
	assign := func(k string, v any, present bool) {
		if present && v != nil {
			m.Set(k, v)
		} else if present {
			m.Set(k, nil)
		} else {
			m.Delete(k) // JSON.stringify drops an undefined value
		}
	}
	var tools []string
	optional := map[string]bool{}
	if len(res.Result.ToolPlugin) > 0 {
		meta, err := parseOrdered(res.Result.ToolPlugin)
		if err != nil {
			return nil, err
		}
		mo, _ := meta.(*object)
		for _, k := range []string{"id", "name", "description"} {
			v, ok := mo.Get(k)
			assign(k, v, ok)
		}
		m.Set("version", version)
		for _, k := range []string{"configSchema", "activation"} {
			v, ok := mo.Get(k)
			assign(k, v, ok)
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
		if s, _ := id.(string); s == "" {
			return nil, fmt.Errorf("the built entry's plugin has no id; give definePluginEntry (or defineToolPlugin) an id")
		}
		for _, k := range []string{"id", "name", "description"} {
			v, ok := entry.Get(k)
			assign(k, v, ok)
		}
		m.Set("version", version)
		cs, ok := entry.Get("configSchema")
		if !ok || cs == nil {
			cs = parseMust(`{"type":"object","additionalProperties":false}`)
		}
		m.Set("configSchema", cs)
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
	}
	contracts := jsonpos.NewOrderedObject()
	if c, ok := existing.Get("contracts"); ok {
		if co, ok := c.(*object); ok {
			contracts = co.Clone()
		}
	}
	names := make([]any, len(tools))
	for i, t := range tools {
		names[i] = t
	}
	contracts.Set("tools", names)
	m.Set("contracts", contracts)
	var oldMeta *object
	if tm, ok := existing.Get("toolMetadata"); ok {
		oldMeta, _ = tm.(*object)
	}
	meta := jsonpos.NewOrderedObject()
	for _, t := range tools {
		entry := jsonpos.NewOrderedObject()
		if v, ok := oldMeta.Get(t); ok {
			if eo, ok := v.(*object); ok {
				entry = eo.Clone()
			}
		}
		if optional[t] {
			entry.Set("optional", true)
		} else {
			entry.Delete("optional")
		}
		if entry.Len() > 0 {
			meta.Set(t, entry)
		}
	}
	if meta.Len() > 0 {
		m.Set("toolMetadata", meta)
	}
	out.Tools = tools
	out.New = stringify(m)
	out.Drift = existing == nil || !sameJSON(existing, m)
	return out, nil
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

// EntryFile is the built entry an OpenClaw plugin or Pi extension names first in package.json
// (openclaw.extensions or pi.extensions), as a path inside the package.
func EntryFile(p *Pack, field string) string {
	list := p.Pack.Pkg.JSON.Value.Path(field, "extensions").Strings()
	if len(list) == 0 {
		return ""
	}
	return list[0]
}

// jsonString is a Go string as JSON.stringify quotes it.
func jsonString(s string) string { return string(jsonpos.AppendJSString(nil, s)) }
