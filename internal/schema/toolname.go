package schema

import (
	"fmt"
	"strings"
)

// Dialect names the runtime whose rules a tool name must follow.
type Dialect int

const (
	// PLAIOS capability (function) names: ^[a-zA-Z0-9_-]+$, as the model's function calling
	// needs them.
	PLAIOS Dialect = iota + 1
	// MCP tool names: 1 to 128 of [A-Za-z0-9_.-].
	MCP
	// AgentOS tool names: a string that is not blank. @framers/agentos 0.9.164 refuses any
	// other name when a tool registers (dist/core/tools/ToolExecutor.js registerTool and
	// dist/core/tools/ToolOrchestrator.js registerTool/registerInitialTool: "'id' and 'name'
	// are required and must be non-empty strings") and sets no limit on length or characters;
	// the executor then finds a tool by that name (getTool → ExtensionRegistry.getActive).
	AgentOS
	// OpenClaw tool names: a name that is not blank. openclaw 2026.9.6 trims the names a
	// plugin registers and drops blank ones (src/plugins/tool-contracts.ts,
	// normalizePluginToolNames), so a blank-named tool is never offered; it checks them against
	// contracts.tools and nothing else.
	OpenClaw
	// Pi tool names: Pi 1.6.0 keys an extension's tools by name and checks nothing about it
	// (dist/core/extensions/loader.js, registerTool).
	Pi
)

func (d Dialect) String() string {
	switch d {
	case PLAIOS:
		return "PLAIOS"
	case MCP:
		return "MCP"
	case AgentOS:
		return "AgentOS"
	case OpenClaw:
		return "OpenClaw"
	case Pi:
		return "Pi"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}

// onlyChars reports whether every byte of name is an ASCII letter, a digit or one of extra
// (the checks ^[a-zA-Z0-9_-]+$ and ^[A-Za-z0-9_.-]{1,128}$ without compiling them).
func onlyChars(name, extra string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}

// ToolName returns an error (rule tool-name-invalid) when the runtime refuses the name.
func ToolName(name string, d Dialect) error {
	switch d {
	case PLAIOS:
		if name == "" {
			return fmt.Errorf("the capability name is empty; PLAIOS needs letters, digits, _ or -")
		}
		if !onlyChars(name, "_-") {
			return fmt.Errorf("the capability name %q has %s; PLAIOS allows only letters, digits, _ and -", name, firstBad(name, "_-"))
		}
	case MCP:
		if name == "" {
			return fmt.Errorf("the tool name is empty; MCP needs 1 to 128 letters, digits, _, . or -")
		}
		if len(name) > 128 {
			return fmt.Errorf("the tool name %q is %d characters long; MCP allows at most 128", name, len(name))
		}
		if !onlyChars(name, "_.-") {
			return fmt.Errorf("the tool name %q has %s; MCP allows only letters, digits, _, . and -", name, firstBad(name, "_.-"))
		}
	case AgentOS:
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("the tool name is empty; AgentOS's ToolExecutor refuses a tool whose name is not a non-empty string")
		}
	case OpenClaw:
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("the tool name is empty; openclaw drops a tool with a blank name, so it is never offered")
		}
	case Pi:
	default:
		return fmt.Errorf("unknown tool name dialect %v", d)
	}
	return nil
}

func firstBad(name, extra string) string {
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		for _, e := range extra {
			ok = ok || r == e
		}
		if !ok {
			if r == ' ' {
				return "a space"
			}
			return fmt.Sprintf("%q", r)
		}
	}
	return "a character outside the allowed set"
}

// Duplicate is a name given to more than one tool.
type Duplicate struct {
	Name    string
	Indexes []int // positions in the list given, in order
}

// DuplicateNames returns the names that occur more than once (rule tool-name-invalid: the
// runtimes need unique names), in the order of their first occurrence.
func DuplicateNames(names []string) []Duplicate {
	at := map[string][]int{}
	var order []string
	for i, n := range names {
		if _, ok := at[n]; !ok {
			order = append(order, n)
		}
		at[n] = append(at[n], i)
	}
	var out []Duplicate
	for _, n := range order {
		if len(at[n]) > 1 {
			out = append(out, Duplicate{Name: n, Indexes: at[n]})
		}
	}
	return out
}
