package workspace

import (
	"maps"
	"sort"
)

// Fixture is the inert input guard, mcp serve and export give one package: secrets by id, the
// options its factory or constructors receive, the dependencies whose install scripts guard
// rebuilds, and whether guard lets it try the loopback while it loads (Loopback: a pack whose
// work is finding a server on the user's own machine, such as a local model server; the
// sandbox still reaches nothing of the host, and any other address still fails it). The role
// map's fixtures and the configuration's `fixtures:` have this shape.
type Fixture struct {
	Secrets        map[string]string `json:"secrets,omitempty"`
	Options        map[string]any    `json:"options,omitempty"`
	InstallScripts []string          `json:"installScripts,omitempty"`
	Loopback       bool              `json:"loopback,omitempty"`
}

// FixtureOf is the fixture of the package in dir (slash path relative to the repository root,
// as Package.Dir): the role map's fixtures.<dir> (ws may be nil, or have no role map), with
// overlay's entry for the same folder laid over it. overlay holds the configuration's
// `fixtures:` with its keys as written ("./packages/x" and "packages/x" name one folder); when
// two keys name one folder they are laid on in sorted order. guard, mcp serve and export read
// every fixture through this function.
func FixtureOf(ws *Workspace, dir string, overlay map[string]Fixture) Fixture {
	var base Fixture
	if ws != nil && ws.Roles != nil {
		base = ws.Roles.Fixtures[cleanDir(dir)]
	}
	keys := make([]string, 0, len(overlay))
	for k := range overlay {
		if cleanDir(k) == cleanDir(dir) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := MergeFixtures(base, Fixture{})
	for _, k := range keys {
		out = MergeFixtures(out, overlay[k])
	}
	return out
}

// MergeFixtures lays over on top of base: secrets and options key by key, installScripts
// added (each once, in order), loopback allowed when either allows it. Neither argument is
// changed.
func MergeFixtures(base, over Fixture) Fixture {
	out := Fixture{Secrets: layered(base.Secrets, over.Secrets), Options: layered(base.Options, over.Options), Loopback: base.Loopback || over.Loopback}
	seen := map[string]bool{}
	for _, d := range append(append([]string{}, base.InstallScripts...), over.InstallScripts...) {
		if !seen[d] {
			seen[d] = true
			out.InstallScripts = append(out.InstallScripts, d)
		}
	}
	return out
}

// layered is a new map of base's entries with over's on top; nil when both are empty.
func layered[V any](base, over map[string]V) map[string]V {
	if len(base)+len(over) == 0 {
		return nil
	}
	out := make(map[string]V, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}
