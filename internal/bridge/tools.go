package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/schema"
)

// Tool is one tool of a pack, as the bridges publish it.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Tags         []string        `json:"tags,omitempty"`
	ReadOnly     *bool           `json:"readOnly,omitempty"`
	Source       string          `json:"-"` // where the harness found it, for messages
}

// HasTag reports whether the tool carries one of tags.
func (t Tool) HasTag(tags []string) bool {
	for _, want := range tags {
		for _, have := range t.Tags {
			if have == want {
				return true
			}
		}
	}
	return false
}

// toolsOf lists the tools a harness result saw.
func toolsOf(res *guard.HarnessResult) []Tool {
	var out []Tool
	for _, t := range res.Tools {
		tool := Tool{Name: t.Name, Title: t.Title, Description: t.Description, Tags: t.Tags, ReadOnly: t.ReadOnly, Source: t.Source}
		if len(t.InputSchema) > 0 && string(t.InputSchema) != "null" {
			tool.InputSchema = t.InputSchema
		}
		if len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
			tool.OutputSchema = t.OutputSchema
		}
		out = append(out, tool)
	}
	return out
}

// CheckNames refuses, in one sentence, tool names MCP rejects and names given twice: every
// bridge exposes the tools through MCP (Hermes included).
func CheckNames(tools []Tool) error {
	var names []string
	for _, t := range tools {
		if err := schema.ToolName(t.Name, schema.MCP); err != nil {
			return fmt.Errorf("%v (%s), so MCP clients would refuse it; rename the tool", strings.TrimSuffix(err.Error(), "."), t.Source)
		}
		names = append(names, t.Name)
	}
	if d := schema.DuplicateNames(names); len(d) > 0 {
		return fmt.Errorf("two tools are named %q; MCP needs every tool to have its own name", d[0].Name)
	}
	return nil
}

// Loaded is what a one-time load of a pack saw.
type Loaded struct {
	Tools  []Tool
	Result *guard.HarnessResult
}

// Load loads the pack once, in a child that ends as soon as it has, and returns its tools.
func Load(ctx context.Context, l *Loader) (*Loaded, error) {
	c, res, err := l.Start(ctx)
	if err != nil {
		return nil, err
	}
	c.Close()
	return &Loaded{Tools: toolsOf(res), Result: res}, nil
}

// FilterTags keeps the tools carrying one of include (all when include is empty) and none
// of exclude, sorted by name.
func FilterTags(tools []Tool, include, exclude []string) []Tool {
	var out []Tool
	for _, t := range tools {
		if len(include) > 0 && !t.HasTag(include) {
			continue
		}
		if len(exclude) > 0 && t.HasTag(exclude) {
			continue
		}
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
