// Package pack is one extension pack as plaios understands it: a workspace package, the
// runtime it is written for (detected from its marker files, as CLI.md's table gives them),
// and the parsed models of its runtime manifest — AgentOS manifest.json (both dialects),
// PLAIOS agent-os.package.yaml, openclaw.plugin.json (JSON5) and Pi's `pi` field — each with
// the positions the checks report.
package pack

import (
	"io/fs"
	"path"
	"strings"

	"github.com/plaios/plaios/internal/workspace"
)

// Runtime is the agent runtime a pack is written for.
type Runtime string

// The runtimes plaios knows; None is a plain npm package.
const (
	PLAIOS   Runtime = "plaios"
	AgentOS  Runtime = "agentos"
	OpenClaw Runtime = "openclaw"
	Pi       Runtime = "pi"
	None     Runtime = ""
)

// Runtimes lists the runtimes in the order users read them.
var Runtimes = []Runtime{PLAIOS, AgentOS, OpenClaw, Pi}

// ParseRuntime turns a flag value into a Runtime.
func ParseRuntime(s string) (Runtime, bool) {
	for _, r := range Runtimes {
		if string(r) == strings.ToLower(s) {
			return r, true
		}
	}
	return None, false
}

// Marker files.
const (
	PLAIOSManifest   = "agent-os.package.yaml"
	AgentOSManifest  = "manifest.json"
	OpenClawManifest = "openclaw.plugin.json"
)

// Pack is a workspace package with its runtime models.
type Pack struct {
	WS      *workspace.Workspace
	Pkg     *workspace.Package
	Dir     string // slash path relative to the workspace root
	Runtime Runtime
	Role    string

	AgentOS  *AgentOSModel  // manifest.json, when the runtime is agentos and the file exists
	PLAIOS   *PLAIOSModel   // agent-os.package.yaml
	OpenClaw *OpenClawModel // openclaw.plugin.json
	Pi       *PiModel       // package.json "pi"
}

// JSON is the package's package.json.
func (p *Pack) JSON() *workspace.PackageJSON { return p.Pkg.JSON }

// Name is the npm name ("" when unknown).
func (p *Pack) Name() string { return p.Pkg.JSON.Name }

// Version is the package.json version.
func (p *Pack) Version() string { return p.Pkg.JSON.Version }

// File returns a path inside the package, relative to the workspace root.
func (p *Pack) File(name string) string { return path.Join(p.Dir, name) }

// Exists reports whether a file of the package exists.
func (p *Pack) Exists(name string) bool {
	_, err := fs.Stat(p.WS.FS, p.File(name))
	return err == nil
}

// ManifestFile is the runtime manifest's name, or "".
func (p *Pack) ManifestFile() string {
	switch p.Runtime {
	case PLAIOS:
		return PLAIOSManifest
	case AgentOS:
		if p.Exists(AgentOSManifest) {
			return AgentOSManifest
		}
	case OpenClaw:
		return OpenClawManifest
	}
	return ""
}

// Detect names the runtime of a package from its marker files. force, when not None, wins.
func Detect(ws *workspace.Workspace, pkg *workspace.Package, force Runtime) Runtime {
	if force != None {
		return force
	}
	has := func(name string) bool {
		_, err := fs.Stat(ws.FS, path.Join(pkg.Dir, name))
		return err == nil
	}
	name := pkg.JSON.Name
	switch {
	case has(PLAIOSManifest):
		return PLAIOS
	case has(OpenClawManifest):
		return OpenClaw
	case has(AgentOSManifest) && (strings.HasPrefix(name, "@framers/agentos-") || agentOSRepo(ws, pkg)):
		return AgentOS
	case pkg.JSON.Get("pi") != nil:
		return Pi
	case ws.Roles != nil && pkg.Role == workspace.RoleRoot && strings.HasPrefix(name, "@framers/agentos"):
		return AgentOS
	case ws.Roles != nil && agentOSRepo(ws, pkg):
		return AgentOS
	}
	return None
}

func agentOSRepo(ws *workspace.Workspace, pkg *workspace.Package) bool {
	return strings.HasPrefix(pkg.Dir, "registry/curated/") || (ws.Roles != nil && strings.HasPrefix(pkg.Dir, "templates/"))
}

// Load builds the Pack of a workspace package, parsing its runtime manifest. Parse failures
// are kept in the models (Err fields); Load itself does not fail.
func Load(ws *workspace.Workspace, pkg *workspace.Package, force Runtime) *Pack {
	p := &Pack{WS: ws, Pkg: pkg, Dir: pkg.Dir, Role: pkg.Role}
	p.Runtime = Detect(ws, pkg, force)
	switch p.Runtime {
	case AgentOS:
		if p.Exists(AgentOSManifest) {
			p.AgentOS = ParseAgentOS(ws.FS, p.File(AgentOSManifest))
		}
	case PLAIOS:
		p.PLAIOS = ParsePLAIOS(ws.FS, p.File(PLAIOSManifest))
	case OpenClaw:
		p.OpenClaw = ParseOpenClaw(ws.FS, p.File(OpenClawManifest))
	case Pi:
		p.Pi = ParsePi(pkg.JSON)
	}
	return p
}

// LoadAll loads every package of the workspace.
func LoadAll(ws *workspace.Workspace, force Runtime) []*Pack {
	out := make([]*Pack, 0, len(ws.Packages))
	for _, pkg := range ws.Packages {
		out = append(out, Load(ws, pkg, force))
	}
	return out
}
