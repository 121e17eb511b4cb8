package bridge

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// HermesServer is one entry of Hermes's mcp_servers (~/.hermes/config.yaml).
type HermesServer struct {
	Name           string
	Command        string
	Args           []string
	Env            []string // variable names, written as NAME: "${NAME}"
	Timeout        int      // seconds; 0: not written (Hermes's default, 300)
	ConnectTimeout int      // seconds; 0: not written (60)
	Parallel       bool     // supports_parallel_tool_calls: true
	Include        []string // tools.include: the explicit snapshot of tool names
}

var notServerChar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]`) })

var notHermesChar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_]`) })

// HermesToolName is the name Hermes registers an MCP tool under: mcp__<server>__<tool>, every
// character outside [A-Za-z0-9_] turned into _.
func HermesToolName(server, tool string) string {
	return "mcp__" + notHermesChar().ReplaceAllString(server, "_") + "__" + notHermesChar().ReplaceAllString(tool, "_")
}

// DefaultServerName is the server name a pack gets when none is given: its npm name without
// the scope, characters other than letters, digits, _ and - turned into _.
func DefaultServerName(npmName string) string {
	if i := strings.LastIndex(npmName, "/"); i >= 0 {
		npmName = npmName[i+1:]
	}
	return notServerChar().ReplaceAllString(npmName, "_")
}

// CheckHermesNames refuses tools whose Hermes names collide once their characters are
// replaced.
func CheckHermesNames(server string, tools []string) error {
	seen := map[string]string{}
	for _, t := range tools {
		h := HermesToolName(server, t)
		if other, ok := seen[h]; ok {
			return fmt.Errorf("tools %q and %q would both register in Hermes as %s; rename one of them", other, t, h)
		}
		seen[h] = t
	}
	return nil
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

func intNode(n int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(n)}
}

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

func mapping(kv ...*yaml.Node) *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Content: kv} }

// node is the server's value: command, args, env, timeouts, parallel calls, tools.
func (s HermesServer) node() *yaml.Node {
	args := &yaml.Node{Kind: yaml.SequenceNode}
	for _, a := range s.Args {
		args.Content = append(args.Content, scalar(a))
	}
	m := mapping(scalar("command"), scalar(s.Command), scalar("args"), args)
	if len(s.Env) > 0 {
		env := mapping()
		for _, name := range s.Env {
			env.Content = append(env.Content, scalar(name), &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Value: "${" + name + "}"})
		}
		m.Content = append(m.Content, scalar("env"), env)
	}
	if s.Timeout > 0 {
		m.Content = append(m.Content, scalar("timeout"), intNode(s.Timeout))
	}
	if s.ConnectTimeout > 0 {
		m.Content = append(m.Content, scalar("connect_timeout"), intNode(s.ConnectTimeout))
	}
	if s.Parallel {
		m.Content = append(m.Content, scalar("supports_parallel_tool_calls"), boolNode(true))
	}
	include := &yaml.Node{Kind: yaml.SequenceNode}
	for _, t := range s.Include {
		include.Content = append(include.Content, scalar(t))
	}
	m.Content = append(m.Content, scalar("tools"), mapping(
		scalar("include"), include,
		scalar("resources"), boolNode(false),
		scalar("prompts"), boolNode(false),
	))
	return m
}

func encodeYAML(n *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Fragment is the mcp_servers fragment holding the server alone.
func (s HermesServer) Fragment() ([]byte, error) {
	return encodeYAML(mapping(scalar("mcp_servers"), mapping(scalar(s.Name), s.node())))
}

// Servers is the fragment's mcp_servers value as YAML reads it back: what a JSON rendering of
// the fragment holds.
func (s HermesServer) Servers() (any, error) {
	frag, err := s.Fragment()
	if err != nil {
		return nil, err
	}
	var v map[string]any
	if err := yaml.Unmarshal(frag, &v); err != nil {
		return nil, err
	}
	return v["mcp_servers"], nil
}

// entry is the server's key and value as lines indented by indent spaces.
func (s HermesServer) entry(indent int) ([]string, error) {
	data, err := encodeYAML(mapping(scalar(s.Name), s.node()))
	if err != nil {
		return nil, err
	}
	pad := strings.Repeat(" ", indent)
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		lines = append(lines, pad+l)
	}
	return lines, nil
}

// Merge adds the server to a Hermes config.yaml, or replaces the entry of the same name,
// changing only those lines: every other byte of the file (other servers, other settings,
// comments, blank lines, quoting) stays as it was. replaced reports whether an entry was
// there before. The result is read back and compared with the original to prove it.
func (s HermesServer) Merge(file []byte) (out []byte, replaced bool, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(file, &doc); err != nil {
		return nil, false, fmt.Errorf("it is not YAML: %v", yamlMessage(err))
	}
	text := string(file)
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	trailingNL := strings.HasSuffix(text, "\n")
	if trailingNL || text == "" {
		lines = lines[:len(lines)-1]
	}
	if len(doc.Content) == 0 {
		entry, err := s.entry(2)
		if err != nil {
			return nil, false, err
		}
		lines = append(lines, "mcp_servers:")
		lines = append(lines, entry...)
		return s.verify(file, lines, false)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 {
		return nil, false, fmt.Errorf("its top level is not a block mapping of settings")
	}
	idx := -1
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "mcp_servers" {
			idx = i
		}
	}
	// The line just before the next top-level key: where the mcp_servers block ends.
	blockEnd := len(lines)
	if idx >= 0 && idx+2 < len(root.Content) {
		blockEnd = root.Content[idx+2].Line - 1
	}
	if idx < 0 {
		end := trimTail(lines, len(lines))
		entry, err := s.entry(2)
		if err != nil {
			return nil, false, err
		}
		insert := append([]string{"mcp_servers:"}, entry...)
		lines = spliceLines(lines, end, end, insert)
		return s.verify(file, lines, false)
	}
	key, servers := root.Content[idx], root.Content[idx+1]
	childIndent := key.Column - 1 + 2
	emptyValue := (servers.Kind == yaml.ScalarNode && servers.Tag == "!!null") ||
		(servers.Kind == yaml.MappingNode && len(servers.Content) == 0)
	if emptyValue {
		if servers.Line == key.Line && servers.Value != "" || servers.Kind == yaml.MappingNode {
			// mcp_servers: {} or mcp_servers: null — the value goes, the key stays.
			l := lines[key.Line-1]
			if servers.Line == key.Line && servers.Column-1 <= len(l) {
				lines[key.Line-1] = strings.TrimRight(l[:servers.Column-1], " \t")
			}
		}
		entry, err := s.entry(childIndent)
		if err != nil {
			return nil, false, err
		}
		lines = spliceLines(lines, key.Line, key.Line, entry)
		return s.verify(file, lines, false)
	}
	if servers.Kind != yaml.MappingNode || servers.Style&yaml.FlowStyle != 0 {
		return nil, false, fmt.Errorf("its mcp_servers is not a block mapping of servers")
	}
	childIndent = servers.Content[0].Column - 1
	entry, err := s.entry(childIndent)
	if err != nil {
		return nil, false, err
	}
	for i := 0; i+1 < len(servers.Content); i += 2 {
		if servers.Content[i].Value != s.Name {
			continue
		}
		start := servers.Content[i].Line - 1
		end := blockEnd
		if i+2 < len(servers.Content) {
			end = servers.Content[i+2].Line - 1
		}
		end = trimTail(lines, end)
		if end <= start {
			end = start + 1
		}
		lines = spliceLines(lines, start, end, entry)
		return s.verify(file, lines, true)
	}
	end := trimTail(lines, blockEnd)
	lines = spliceLines(lines, end, end, entry)
	return s.verify(file, lines, false)
}

// trimTail moves end (exclusive) up over blank and comment lines: they belong to what
// follows, and stay.
func trimTail(lines []string, end int) int {
	for end > 0 {
		t := strings.TrimSpace(lines[end-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		end--
	}
	return end
}

func spliceLines(lines []string, start, end int, insert []string) []string {
	out := make([]string, 0, len(lines)+len(insert))
	out = append(out, lines[:start]...)
	out = append(out, insert...)
	return append(out, lines[end:]...)
}

// verify reads the merged file back: it must hold exactly the original settings with this
// server added or replaced.
func (s HermesServer) verify(original []byte, lines []string, replaced bool) ([]byte, bool, error) {
	out := []byte(strings.Join(lines, "\n") + "\n")
	var before, after map[string]any
	if err := yaml.Unmarshal(original, &before); err != nil {
		return nil, false, err
	}
	if err := yaml.Unmarshal(out, &after); err != nil {
		return nil, false, fmt.Errorf("merging would break the file (%v); merge the fragment by hand", yamlMessage(err))
	}
	frag, err := s.Fragment()
	if err != nil {
		return nil, false, err
	}
	var want map[string]any
	if err := yaml.Unmarshal(frag, &want); err != nil {
		return nil, false, err
	}
	if before == nil {
		before = map[string]any{}
	}
	servers, _ := before["mcp_servers"].(map[string]any)
	merged := map[string]any{}
	for k, v := range servers {
		merged[k] = v
	}
	merged[s.Name] = want["mcp_servers"].(map[string]any)[s.Name]
	expect := map[string]any{}
	for k, v := range before {
		expect[k] = v
	}
	expect["mcp_servers"] = merged
	if !reflect.DeepEqual(expect, after) {
		return nil, false, fmt.Errorf("the file's layout defeats a line-by-line merge; merge the fragment by hand")
	}
	return out, replaced, nil
}

func yamlMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}
