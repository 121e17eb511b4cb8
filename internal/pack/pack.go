// Package pack is one extension pack as plaios understands it: a workspace package, the
// runtime it is written for (detected from its content, as CLI.md's table gives it),
// and the parsed models of its runtime manifest — AgentOS manifest.json (both dialects),
// PLAIOS agent-os.package.yaml, openclaw.plugin.json (JSON5) and Pi's `pi` field — each with
// the positions the checks report.
package pack

import (
	"io/fs"
	"path"
	"strings"

	"github.com/plaios/plaios/internal/npm/packlist"
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

	// Framers says that the package lies in the layout of the framers' agentos-extensions
	// repository (FramersLayout), whose conventions (the repository's Apache-2.0 licence,
	// no LICENSE of a pack's own) bind its packs and no community pack.
	Framers bool

	AgentOS  *AgentOSModel  // manifest.json, when the runtime is agentos and the file exists
	PLAIOS   *PLAIOSModel   // agent-os.package.yaml
	OpenClaw *OpenClawModel // openclaw.plugin.json
	Pi       *PiModel       // package.json "pi"
}

// Shipped lists the files npm would pack for the package (packlist.Load; a package inside a
// workspace reads the root's .npmignore rules too).
func (p *Pack) Shipped() (*packlist.List, error) {
	root := ""
	if p.Dir != "." && p.WS.Source != "single" {
		root = "."
	}
	return packlist.Load(p.WS.FS, p.Dir, packlist.Options{WorkspaceRoot: root})
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

// AgentOSRuntime is the npm name of the AgentOS runtime; a dependency of any kind on it makes a
// package an AgentOS pack.
const AgentOSRuntime = "@framers/agentos"

// Detect names the runtime of a package from its content, as CLI.md's table gives it: an
// agent-os.package.yaml makes it PLAIOS, an openclaw.plugin.json OpenClaw, a manifest.json
// declaring `extensions` (or the flat provider form) or any dependency on @framers/agentos
// AgentOS, a `pi` field in package.json Pi. The scope, the name and the folder never decide
// it. force, when not None, wins.
func Detect(ws *workspace.Workspace, pkg *workspace.Package, force Runtime) Runtime {
	rt, _ := detect(ws, pkg, force)
	return rt
}

// detect is Detect, also returning the AgentOS manifest it parsed on the way (nil when it
// read none), so that Load parses it once.
func detect(ws *workspace.Workspace, pkg *workspace.Package, force Runtime) (Runtime, *AgentOSModel) {
	if force != None {
		return force, nil
	}
	has := func(name string) bool {
		_, err := fs.Stat(ws.FS, path.Join(pkg.Dir, name))
		return err == nil
	}
	if has(PLAIOSManifest) {
		return PLAIOS, nil
	}
	if has(OpenClawManifest) {
		return OpenClaw, nil
	}
	var m *AgentOSModel
	if has(AgentOSManifest) {
		m = ParseAgentOS(ws.FS, path.Join(pkg.Dir, AgentOSManifest))
		if m.Declares() {
			return AgentOS, m
		}
	}
	if DependsOn(pkg.JSON, AgentOSRuntime) {
		return AgentOS, m
	}
	if pkg.JSON.Get("pi") != nil {
		return Pi, nil
	}
	return None, nil
}

// DependsOn reports whether package.json names dep in dependencies, devDependencies,
// peerDependencies or optionalDependencies.
func DependsOn(pj *workspace.PackageJSON, dep string) bool {
	for _, field := range []string{"dependencies", "devDependencies", "peerDependencies", "optionalDependencies"} {
		if pj.Get(field).Get(dep) != nil {
			return true
		}
	}
	return false
}

// Load builds the Pack of a workspace package, parsing its runtime manifest. Parse failures
// are kept in the models (Err fields); Load itself does not fail.
func Load(ws *workspace.Workspace, pkg *workspace.Package, force Runtime) *Pack {
	p := &Pack{WS: ws, Pkg: pkg, Dir: pkg.Dir, Role: pkg.Role, Framers: FramersLayout(ws.FS, pkg.Dir)}
	var parsed *AgentOSModel
	p.Runtime, parsed = detect(ws, pkg, force)
	switch p.Runtime {
	case AgentOS:
		if parsed != nil {
			p.AgentOS = parsed
		} else if p.Exists(AgentOSManifest) {
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

// The folders of the framers' agentos-extensions repository (registry.json's paths).
const (
	FramersCuratedDir  = "registry/curated/"
	FramersTemplateDir = "templates/"
)

// FramersLayout reports whether the package folder dir (a slash path from the repository root)
// lies in the layout of the framers' agentos-extensions repository: a pack under
// registry/curated/, or a template under templates/ of a repository that has
// registry/curated/. A community pack (packages/demo) is not.
func FramersLayout(fsys fs.FS, dir string) bool {
	if strings.HasPrefix(dir, FramersCuratedDir) {
		return true
	}
	if !strings.HasPrefix(dir, FramersTemplateDir) {
		return false
	}
	st, err := fs.Stat(fsys, strings.TrimSuffix(FramersCuratedDir, "/"))
	return err == nil && st.IsDir()
}

// LoadAll loads every package of the workspace.
func LoadAll(ws *workspace.Workspace, force Runtime) []*Pack {
	out := make([]*Pack, 0, len(ws.Packages))
	for _, pkg := range ws.Packages {
		out = append(out, Load(ws, pkg, force))
	}
	return out
}
