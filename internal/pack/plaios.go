package pack

import (
	"fmt"
	"io/fs"
	"strings"

	"go.yaml.in/yaml/v3"
)

// PLAIOSKinds are the eleven interface kinds, in the host's load order, with the class suffix
// `plaios create` gives each.
var PLAIOSKinds = []struct{ Kind, Suffix string }{
	{"env", "Environment"},
	{"database", "DatabaseProvider"},
	{"memory", "Memory"},
	{"system1", "System1"},
	{"system2", "System2"},
	{"discovery", "Discovery"},
	{"input", "Input"},
	{"output", "Output"},
	{"action", "Capability"},
	{"agent", "AgentLoop"},
	{"orchestrator", "Orchestrator"},
}

// IsPLAIOSKind reports whether k is one of the eleven kinds.
func IsPLAIOSKind(k string) bool {
	for _, pk := range PLAIOSKinds {
		if pk.Kind == k {
			return true
		}
	}
	return false
}

// PLAIOSKindNames lists the kinds as users type them.
func PLAIOSKindNames() []string {
	return []string{"input", "output", "action", "agent", "orchestrator", "discovery", "database", "memory", "system1", "system2", "env"}
}

// PLAIOSModel is a parsed agent-os.package.yaml. Nodes are kept for positions and for the
// exact YAML 1.2 types of scalars.
type PLAIOSModel struct {
	File string
	Data []byte
	Doc  *yaml.Node // the top mapping; nil when the file does not parse or is not a mapping
	Err  error      // read or syntax error

	// Duplicates are keys given twice in one mapping (the host's parser refuses them).
	Duplicates []*yaml.Node

	SchemaVersion *yaml.Node
	ID            *yaml.Node
	Name          *yaml.Node
	Version       *yaml.Node
	Interfaces    *yaml.Node   // the sequence node
	Ignored       []*yaml.Node // keys of permissions, surfaces, capability

	Ifaces []*PLAIOSInterface
}

// PLAIOSInterface is one entry of `interfaces`.
type PLAIOSInterface struct {
	Node      *yaml.Node // the mapping
	ID        *yaml.Node
	Kind      *yaml.Node
	ClassName *yaml.Node
	Entry     *yaml.Node // nil: "."
	Web       *yaml.Node // the web mapping
	WebEntry  *yaml.Node // nil: "./web/<kind>"
	Required  *yaml.Node
	Optional  *yaml.Node
	Config    *yaml.Node
	Startup   *yaml.Node // the startup mapping
	When      *yaml.Node
	Ignored   []*yaml.Node

	Fields []*PLAIOSConfigField
}

// EntryPath is the export subpath of the interface's class.
func (i *PLAIOSInterface) EntryPath() string {
	if i.Entry != nil && i.Entry.Kind == yaml.ScalarNode && i.Entry.Value != "" {
		return i.Entry.Value
	}
	return "."
}

// WebEntryPath is the export subpath of the interface's page.
func (i *PLAIOSInterface) WebEntryPath() string {
	if i.WebEntry != nil && i.WebEntry.Kind == yaml.ScalarNode && i.WebEntry.Value != "" {
		return i.WebEntry.Value
	}
	return "./web/" + Scalar(i.Kind)
}

// PLAIOSConfigField is one config field.
type PLAIOSConfigField struct {
	Node     *yaml.Node
	Key      *yaml.Node
	Env      *yaml.Node
	Type     *yaml.Node
	Required *yaml.Node
	Default  *yaml.Node
}

// Scalar returns a scalar node's text, or "".
func Scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// ScalarStrings returns the scalar items of a sequence node.
func ScalarStrings(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, it := range n.Content {
		if it.Kind == yaml.ScalarNode {
			out = append(out, it.Value)
		}
	}
	return out
}

// ParsePLAIOS reads agent-os.package.yaml.
func ParsePLAIOS(fsys fs.FS, file string) *PLAIOSModel {
	m := &PLAIOSModel{File: file}
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		m.Err = err
		return m
	}
	m.Data = data
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		m.Err = YAMLError(err)
		return m
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return m
	}
	root := doc.Content[0]
	m.Doc = root
	m.Duplicates = duplicates(root, nil)
	each(root, func(k, v *yaml.Node) {
		switch k.Value {
		case "schemaVersion":
			m.SchemaVersion = v
		case "id":
			m.ID = v
		case "name":
			m.Name = v
		case "version":
			m.Version = v
		case "interfaces":
			m.Interfaces = v
		case "permissions", "surfaces", "capability":
			m.Ignored = append(m.Ignored, k)
		}
	})
	if m.Interfaces != nil && m.Interfaces.Kind == yaml.SequenceNode {
		for _, in := range m.Interfaces.Content {
			m.Ifaces = append(m.Ifaces, parseInterface(in))
		}
	}
	return m
}

func parseInterface(n *yaml.Node) *PLAIOSInterface {
	i := &PLAIOSInterface{Node: n}
	if n.Kind != yaml.MappingNode {
		return i
	}
	each(n, func(k, v *yaml.Node) {
		switch k.Value {
		case "id":
			i.ID = v
		case "kind":
			i.Kind = v
		case "className":
			i.ClassName = v
		case "entry":
			i.Entry = v
		case "web":
			i.Web = v
			if v.Kind == yaml.MappingNode {
				each(v, func(wk, wv *yaml.Node) {
					if wk.Value == "entry" {
						i.WebEntry = wv
					}
				})
			}
		case "required":
			i.Required = v
		case "optional":
			i.Optional = v
		case "config":
			i.Config = v
		case "startup":
			i.Startup = v
			if v.Kind == yaml.MappingNode {
				each(v, func(sk, sv *yaml.Node) {
					if sk.Value == "when" {
						i.When = sv
					}
				})
			}
		case "permissions", "surfaces", "capability":
			i.Ignored = append(i.Ignored, k)
		}
	})
	if i.Config != nil && i.Config.Kind == yaml.SequenceNode {
		for _, c := range i.Config.Content {
			f := &PLAIOSConfigField{Node: c}
			if c.Kind == yaml.MappingNode {
				each(c, func(k, v *yaml.Node) {
					switch k.Value {
					case "key":
						f.Key = v
					case "env":
						f.Env = v
					case "type":
						f.Type = v
					case "required":
						f.Required = v
					case "default":
						f.Default = v
					}
				})
			}
			i.Fields = append(i.Fields, f)
		}
	}
	return i
}

// each calls fn for every key/value of a mapping node (aliases resolved).
func each(m *yaml.Node, fn func(k, v *yaml.Node)) {
	for j := 0; j+1 < len(m.Content); j += 2 {
		v := m.Content[j+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		fn(m.Content[j], v)
	}
}

// duplicates returns every key node that repeats an earlier key of the same mapping, at
// any depth.
func duplicates(n *yaml.Node, out []*yaml.Node) []*yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[string]bool{}
		for j := 0; j+1 < len(n.Content); j += 2 {
			k := n.Content[j]
			if seen[k.Value] {
				out = append(out, k)
			}
			seen[k.Value] = true
			out = duplicates(n.Content[j+1], out)
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, c := range n.Content {
			out = duplicates(c, out)
		}
	}
	return out
}

// YAMLSyntaxError is a YAML parse failure with its line.
type YAMLSyntaxError struct {
	Line int
	Msg  string
}

func (e *YAMLSyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// YAMLError turns a yaml.v3 error into a YAMLSyntaxError with its line.
func YAMLError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
	}
	return &YAMLSyntaxError{Line: line, Msg: msg}
}

// YAMLType names the type of a scalar as the YAML 1.2 core schema reads it (the schema of the
// `yaml` package the host parses its manifest with): "string", "integer", "float", "boolean" or
// "null". yaml.v3 keeps a few YAML 1.1 readings (`1_000` and `0b101` as integers, dates as
// timestamps), so plain scalars are resolved here with the core schema's own patterns.
func YAMLType(n *yaml.Node) string {
	if n == nil {
		return "null"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.AliasNode:
		if n.Alias != nil {
			return YAMLType(n.Alias)
		}
	}
	if n.Style&(yaml.TaggedStyle) != 0 || n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		switch n.ShortTag() {
		case "!!int":
			return "integer"
		case "!!float":
			return "float"
		case "!!bool":
			return "boolean"
		case "!!null":
			return "null"
		}
		return "string"
	}
	return coreType(n.Value)
}

// coreType resolves a plain scalar by the YAML 1.2 core schema (yaml.org/spec/1.2.2, 10.3.2):
// null `null|Null|NULL|~|`, bool `true|True|TRUE|false|False|FALSE`, int
// `[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+`, float
// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)`.
// It is written out by hand so that no regexp compiles while validate runs; a fuzz test holds
// it to those expressions.
func coreType(v string) string {
	switch v {
	case "", "~", "null", "Null", "NULL":
		return "null"
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "boolean"
	case ".nan", ".NaN", ".NAN":
		return "float"
	}
	if isCoreInt(v) {
		return "integer"
	}
	if isCoreFloat(v) {
		return "float"
	}
	return "string"
}

// digits returns how many bytes of s from i on are in [0-9] (or [0-7], [0-9a-fA-F]).
func digits(s string, i int, ok func(byte) bool) int {
	n := 0
	for i+n < len(s) && ok(s[i+n]) {
		n++
	}
	return n
}

func isDec(c byte) bool { return c >= '0' && c <= '9' }
func isOct(c byte) bool { return c >= '0' && c <= '7' }
func isHex(c byte) bool { return isDec(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isCoreInt(v string) bool {
	switch {
	case strings.HasPrefix(v, "0o"):
		return len(v) > 2 && digits(v, 2, isOct) == len(v)-2
	case strings.HasPrefix(v, "0x"):
		return len(v) > 2 && digits(v, 2, isHex) == len(v)-2
	}
	i := 0
	if v != "" && (v[0] == '-' || v[0] == '+') {
		i = 1
	}
	return len(v) > i && digits(v, i, isDec) == len(v)-i
}

func isCoreFloat(v string) bool {
	i := 0
	if v != "" && (v[0] == '-' || v[0] == '+') {
		i = 1
	}
	switch v[i:] {
	case ".inf", ".Inf", ".INF":
		return true
	}
	// (\.[0-9]+ | [0-9]+(\.[0-9]*)?)
	if n := digits(v, i, isDec); n > 0 {
		i += n
		if i < len(v) && v[i] == '.' {
			i++
			i += digits(v, i, isDec)
		}
	} else {
		if i >= len(v) || v[i] != '.' {
			return false
		}
		n := digits(v, i+1, isDec)
		if n == 0 {
			return false
		}
		i += 1 + n
	}
	// ([eE][-+]?[0-9]+)?
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '-' || v[i] == '+') {
			i++
		}
		n := digits(v, i, isDec)
		if n == 0 {
			return false
		}
		i += n
	}
	return i == len(v)
}
