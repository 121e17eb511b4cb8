package scaffold

import (
	"strings"

	"github.com/plaios/plaios/internal/exit"
)

// The runtimes `create` knows.
const (
	PLAIOS   = "plaios"
	AgentOS  = "agentos"
	OpenClaw = "openclaw"
	Pi       = "pi"
)

// Runtimes lists them in the order help texts name them.
var Runtimes = []string{PLAIOS, AgentOS, OpenClaw, Pi}

// plaiosKinds are the eleven PLAIOS interface kinds in the guide's order, with the class
// suffix `create` gives each.
var plaiosKinds = []struct{ Kind, Suffix string }{
	{"input", "Input"},
	{"output", "Output"},
	{"action", "Capability"},
	{"agent", "AgentLoop"},
	{"orchestrator", "Orchestrator"},
	{"discovery", "Discovery"},
	{"database", "DatabaseProvider"},
	{"memory", "Memory"},
	{"system1", "System1"},
	{"system2", "System2"},
	{"env", "Environment"},
}

// Kinds returns the kinds (templates) a runtime offers, the default first for the runtimes
// whose default is not the first listed.
func Kinds(runtime string) []string {
	switch runtime {
	case PLAIOS:
		out := make([]string, len(plaiosKinds))
		for i, k := range plaiosKinds {
			out[i] = k.Kind
		}
		return out
	case AgentOS:
		return []string{"tool", "multi-tool", "guardrail"}
	case OpenClaw, Pi:
		return []string{"tool"}
	}
	return nil
}

// DefaultKind is the kind used when none is given: action for PLAIOS, tool elsewhere.
func DefaultKind(runtime string) string {
	if runtime == PLAIOS {
		return "action"
	}
	return "tool"
}

// isKind reports whether name is one of the kinds runtime offers.
func isKind(runtime, name string) bool {
	for _, k := range Kinds(runtime) {
		if k == name {
			return true
		}
	}
	return false
}

// suffix returns the class suffix of a PLAIOS kind.
func suffix(kind string) string {
	for _, k := range plaiosKinds {
		if k.Kind == kind {
			return k.Suffix
		}
	}
	return ""
}

// CheckRuntime refuses a runtime `create` does not know.
func CheckRuntime(runtime string) error {
	for _, r := range Runtimes {
		if r == runtime {
			return nil
		}
	}
	return exit.Usagef("unknown runtime %q; use one of %s", runtime, strings.Join(Runtimes, ", "))
}

// checkKinds refuses unknown and repeated kinds, and more than one kind where a runtime takes
// one template only. It returns the kinds in the order given.
func checkKinds(runtime string, kinds []string) ([]string, error) {
	valid := Kinds(runtime)
	seen := map[string]bool{}
	var out []string
	for _, k := range kinds {
		k = strings.TrimSpace(k)
		if k == "" {
			return nil, exit.Usagef("an empty kind in the kind list; use one or more of %s, separated by commas", strings.Join(valid, ", "))
		}
		ok := false
		for _, v := range valid {
			ok = ok || v == k
		}
		if !ok {
			return nil, exit.Usagef("unknown kind %q for runtime %s; use one of %s", k, runtime, strings.Join(valid, ", "))
		}
		if seen[k] {
			return nil, exit.Usagef("kind %q is given twice; name each kind once", k)
		}
		seen[k] = true
		out = append(out, k)
	}
	if len(out) == 0 {
		out = []string{DefaultKind(runtime)}
	}
	if runtime != PLAIOS && len(out) > 1 {
		return nil, exit.Usagef("runtime %s makes one package from one template; choose one of %s", runtime, strings.Join(valid, ", "))
	}
	return out, nil
}
