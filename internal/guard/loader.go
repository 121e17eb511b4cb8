package guard

import (
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/workspace"
)

// The loader of guard, exported for the bridges (internal/bridge: plaios mcp serve and plaios
// export), which load a built pack's tools with the same harness and the same inputs instead
// of a second loader of their own.

// HarnessFile is the name the harness is copied under, next to the node_modules its imports
// resolve from.
const HarnessFile = harnessFile

// HarnessInput is what the harness reads (sandbox/node/harness.mjs documents the same shape).
type HarnessInput = harnessInput

// PLAIOSInterface is one PLAIOS interface of a HarnessInput.
type PLAIOSInterface = plaiosIface

// HarnessResult is the harness's final event.
type HarnessResult = harnessResult

// HarnessTool is one tool the harness saw.
type HarnessTool = harnessTool

// InputFor builds the harness input of p's runtime contract for the package installed (or
// linked) at installedDir under its npm name, with guard's inert inputs: placeholder secrets
// and configuration overlaid by fixture. Callers that run the tools replace what they need.
// It fails for a package whose runtime has no tools to load.
func InputFor(p *pack.Pack, installedDir string, fixture workspace.Fixture) (*HarnessInput, error) {
	var pkg = p.Pkg.JSON.Value
	return buildInput(runtimeCheck(p.Runtime), p.Name(), installedDir, pkg, p.AgentOS, p.PLAIOS, nil, fixture, nil)
}
