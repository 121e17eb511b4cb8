package check

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/semver"
	"github.com/plaios/plaios/internal/workspace"
)

var (
	agentOSManifestInvalidRule = &Rule{ID: "agentos-manifest-invalid", Severity: Error, Runtime: pack.AgentOS, Family: "AgentOS", Run: runAgentOSManifest,
		Help: "manifest.json must be JSON and hold what the AgentOS registry and runtime read: `name`, `version`, and either `id` with an `extensions` list whose entries each have a `kind` and an `id`, or the flat provider form (`kind`, `extensionId`, `entryPoint`). A library (role `library`) needs no extensions."}
	agentOSVersionMismatchRule = &Rule{ID: "agentos-version-mismatch", Severity: Error, Runtime: pack.AgentOS, Family: "AgentOS", Run: runAgentOSVersion,
		Help: "The manifest's `version` must equal package.json's `version`: the registry catalog and the runtime read the manifest, npm reads package.json, and a lagging manifest advertises an old release. Bump both together (`plaios release-plan --write` does)."}
	agentOSNameRule = &Rule{ID: "agentos-name", Severity: Warning, Runtime: pack.AgentOS, Family: "AgentOS", Run: runAgentOSName,
		Help: "In an agentos-extensions layout (`registry/curated/<category>/<folder>`), with or without a role map, a pack's npm name is `@framers/agentos-ext-<folder>` — or, as the framers write it where a bare folder name would clash, with a category prefix (`@framers/agentos-ext-channel-telegram` for `channels/telegram`) — so that people and the registry find a pack by its folder name."}
	agentOSLicenseRule = &Rule{ID: "agentos-license", Severity: Error, Runtime: pack.AgentOS, Family: "AgentOS", Run: runAgentOSLicense,
		Help: "A convention of the framers' agentos-extensions repository, checked only in its layout (a pack under `registry/curated/`, or a template under `templates/` next to it), as `agentos-name` is: everything there is licensed under Apache-2.0, so a pack's package.json `license` must say `Apache-2.0`. A community pack (`@acme/agentos-ext-demo` in `packages/demo`) chooses its own licence."}
	agentOSLicenseFileRule = &Rule{ID: "agentos-license-file", Severity: Error, Runtime: pack.AgentOS, Family: "AgentOS", Run: runAgentOSLicenseFile,
		Help: "A convention of the framers' agentos-extensions repository, checked only in its layout (a pack under `registry/curated/`, or a template under `templates/` next to it), as `agentos-name` is: a pack carries no LICENSE file of its own, since the repository's Apache-2.0 LICENSE applies and a pack-level one (often MIT, copied from an old template) contradicts it. A community pack ships its own LICENSE, as npm expects."}
	agentOSPublishAccessRule = &Rule{ID: "agentos-publish-access", Severity: Error, Runtime: pack.AgentOS, Family: "AgentOS", Run: runAgentOSPublishAccess,
		Help: "A scoped package publishes as restricted (paid, private) unless told otherwise, so a scoped, non-private pack needs `\"publishConfig\": {\"access\": \"public\"}`."}
	agentOSKindUnknownRule = &Rule{ID: "agentos-kind-unknown", Severity: Warning, Runtime: pack.AgentOS, Family: "AgentOS", Run: runAgentOSKind,
		Help: "Each manifest extension `kind` should be one the AgentOS runtime registers (tool, guardrail, workflow, messaging-channel, memory-provider, tts-provider and the others of RUNTIMES.md). An unknown kind is loaded by nobody."}
	agentOSSecretUndeclaredRule = &Rule{ID: "agentos-secret-undeclared", Severity: Warning, Runtime: pack.AgentOS, Family: "AgentOS", Run: runAgentOSSecretUndeclared,
		Help: "A configuration property marked `\"secret\": true` holds a credential; list its id in `requiredSecrets` (or `optionalSecrets`) so that the host asks for it, maps it to an environment variable and never shows it."}
	agentOSManifestNotExportedRule = &Rule{ID: "agentos-manifest-not-exported", Severity: Warning, Runtime: pack.AgentOS, Family: "AgentOS", Run: runAgentOSManifestExported,
		Help: "The runtime's discovery reads `<package>/manifest.json`; with an `exports` map, that subpath must be exported (`\"./manifest.json\": \"./manifest.json\"`) or Node refuses it."}
	agentOSPeerRangeRule = &Rule{ID: "agentos-peer-range", Severity: Warning, Runtime: pack.AgentOS, Family: "AgentOS", Run: runAgentOSPeerRange,
		Help: "`@framers/agentos` must be a peer dependency (the host brings its own copy) with a floor and no upper bound (`>=0.9.0`), so that a pack keeps installing next to newer runtimes."}
	roleMissingRule = &Rule{ID: "role-missing", Severity: Error, Family: "AgentOS", RunWorkspace: runRoleMissing,
		Help: "With a role map (`scripts/package-roles.json`), every workspace package needs a role (`pack`, `library`, `template` or `root`), or the release job and the pack guard do not know what to do with it."}
	roleUnknownRule = &Rule{ID: "role-unknown", Severity: Error, Family: "AgentOS", RunWorkspace: runRoleUnknown,
		Help: "A role in `scripts/package-roles.json` must be one of `pack`, `library`, `template`, `root`."}
	roleOrphanRule = &Rule{ID: "role-orphan", Severity: Error, Family: "AgentOS", RunWorkspace: runRoleOrphan,
		Help: "A role in `scripts/package-roles.json` names a folder that holds no workspace package: the package moved or was deleted. Remove the entry or fix the path."}
)

// agentOSPack reports whether the package is a pack or library of an AgentOS repo (not the
// root catalog, not a template).
func agentOSPack(p *Pass) bool {
	return p.Pack.Role != workspace.RoleRoot && p.Pack.Role != workspace.RoleTemplate
}

func runAgentOSManifest(p *Pass) {
	m := p.Pack.AgentOS
	if m == nil {
		return
	}
	if m.Err != nil {
		var se *jsonpos.SyntaxError
		if errors.As(m.Err, &se) {
			p.Report(m.File, se.Pos.Line, se.Pos.Col, "manifest.json is not valid JSON: "+se.Msg, "")
		} else if !errors.Is(m.Err, fs.ErrNotExist) {
			p.Report(m.File, 1, 1, "manifest.json cannot be read: "+m.Err.Error(), "")
		}
		return
	}
	v := m.Value
	if v.Kind != jsonpos.Object {
		p.ReportJSON(m.File, v, "manifest.json must hold an object", "")
		return
	}
	for _, k := range []string{"name", "version"} {
		if f := v.Get(k); f == nil {
			p.Report(m.File, v.Pos.Line, v.Pos.Col, fmt.Sprintf("manifest.json has no %q", k), "")
		} else if f.Kind != jsonpos.String || f.Str == "" {
			p.ReportJSON(m.File, f, fmt.Sprintf("%q must be a non-empty string", k), "")
		}
	}
	if m.Flat {
		for _, k := range []string{"kind", "extensionId", "entryPoint"} {
			if f := v.Get(k); f == nil || f.Kind != jsonpos.String || f.Str == "" {
				p.ReportJSON(m.File, orValue(f, v), fmt.Sprintf("the provider form needs a string %q", k), "")
			}
		}
		return
	}
	library := p.Pack.Role == workspace.RoleLibrary
	if f := v.Get("id"); f == nil {
		if !library {
			p.Report(m.File, v.Pos.Line, v.Pos.Col, "manifest.json has no \"id\" (and is not the flat provider form with \"extensionId\")", `add "id": "com.framers.<category>.<name>"`)
		}
	} else if f.Kind != jsonpos.String || f.Str == "" {
		p.ReportJSON(m.File, f, "\"id\" must be a non-empty string", "")
	}
	exts := v.Get("extensions")
	switch {
	case exts == nil:
		if !library {
			p.Report(m.File, v.Pos.Line, v.Pos.Col, "manifest.json has no \"extensions\" list", "list each extension with its kind, id and entry")
		}
		return
	case exts.Kind != jsonpos.Array:
		p.ReportJSON(m.File, exts, "\"extensions\" must be a list", "")
		return
	case len(exts.Items) == 0 && !library:
		p.ReportJSON(m.File, exts, "\"extensions\" is empty", "")
	}
	for i, e := range exts.Items {
		if e.Kind != jsonpos.Object {
			p.ReportJSON(m.File, e, fmt.Sprintf("extensions[%d] must be an object", i), "")
			continue
		}
		for _, k := range []string{"kind", "id"} {
			if f := e.Get(k); f == nil || f.Kind != jsonpos.String || f.Str == "" {
				p.ReportJSON(m.File, orValue(f, e), fmt.Sprintf("extensions[%d] needs a string %q", i, k), "")
			}
		}
	}
}

func orValue(v, fallback *jsonpos.Value) *jsonpos.Value {
	if v != nil {
		return v
	}
	return fallback
}

func runAgentOSVersion(p *Pass) {
	m := p.Pack.AgentOS
	if m == nil || m.Value == nil || m.Version == "" || p.Pack.Version() == "" {
		return
	}
	mv, pv := m.Version, p.Pack.Version()
	if mv == pv {
		return
	}
	p.ReportJSON(m.File, m.Value.Get("version"), fmt.Sprintf("manifest version %s differs from package.json version %s (%s)", mv, pv, ahead(mv, pv)), fmt.Sprintf("write %q in manifest.json", pv))
}

// ahead says which of the manifest's and package.json's versions is ahead.
func ahead(manifest, pkg string) string {
	a, errA := semver.ParseLoose(manifest)
	b, errB := semver.ParseLoose(pkg)
	if errA != nil || errB != nil {
		return "they must be equal"
	}
	if a.GreaterThan(b) {
		return "the manifest is ahead"
	}
	return "package.json is ahead"
}

// runAgentOSName checks the npm name of a pack in an agentos-extensions layout
// (registry/curated/), with or without a role map. The framers name packs
// @framers/agentos-ext-<folder>, or with a category prefix when a bare folder name would clash
// (channels/telegram is @framers/agentos-ext-channel-telegram, next to integrations/telegram's
// @framers/agentos-ext-telegram): the name must end in the folder's name.
func runAgentOSName(p *Pass) {
	if !strings.HasPrefix(p.Pack.Dir, pack.FramersCuratedDir) || p.Pack.JSON().Value == nil {
		return
	}
	if p.Pack.Role != "" && p.Pack.Role != workspace.RolePack {
		return // the role map says it is a library, a template or the root
	}
	folder := path.Base(p.Pack.Dir)
	want := agentOSNamePrefix + folder
	name := p.Pack.Name()
	if name == "" || name == want || strings.HasPrefix(name, agentOSNamePrefix) && strings.HasSuffix(name, "-"+folder) {
		return
	}
	p.ReportJSON(p.PackageJSON(), p.Pack.JSON().Get("name"), fmt.Sprintf("npm name %q does not follow @framers/agentos-ext-<folder> (%s)", name, want), fmt.Sprintf("rename it %q (or @framers/agentos-ext-<category>-%s)", want, folder))
}

// agentOSNamePrefix is how the framers name their packs.
const agentOSNamePrefix = "@framers/agentos-ext-"

// runAgentOSLicense: in the framers' layout only (pack.FramersLayout), the repository's
// Apache-2.0 licence.
func runAgentOSLicense(p *Pass) {
	if !p.Pack.Framers || p.Pack.JSON().Value == nil || p.Pack.JSON().Private {
		return
	}
	lic := p.Pack.JSON().Get("license")
	if lic == nil {
		p.Report(p.PackageJSON(), 1, 1, "package.json has no \"license\"; AgentOS packs are Apache-2.0", `add "license": "Apache-2.0"`)
		return
	}
	if lic.Text() != "Apache-2.0" {
		p.ReportJSON(p.PackageJSON(), lic, fmt.Sprintf("license is %s; AgentOS packs are licensed Apache-2.0 like the repository", describeJSON(lic)), `write "license": "Apache-2.0"`)
	}
}

func describeJSON(v *jsonpos.Value) string {
	if v.Kind == jsonpos.String {
		return fmt.Sprintf("%q", v.Str)
	}
	return article(v.Kind.String())
}

// runAgentOSLicenseFile: in the framers' layout only (pack.FramersLayout), no LICENSE of a
// pack's own. Dir is "." when guard checks a packed copy, whose LICENSE is the folder's.
func runAgentOSLicenseFile(p *Pass) {
	if !p.Pack.Framers || !agentOSPack(p) {
		return
	}
	entries, err := fs.ReadDir(p.WS.FS, p.Pack.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := strings.ToUpper(e.Name())
		if !e.IsDir() && (strings.HasPrefix(n, "LICENSE") || strings.HasPrefix(n, "LICENCE")) {
			p.Report(p.Pack.File(e.Name()), 1, 1, fmt.Sprintf("the pack has its own %s; the repository's Apache-2.0 LICENSE applies", e.Name()), "delete "+e.Name())
		}
	}
}

func runAgentOSPublishAccess(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil || pj.Private || !strings.HasPrefix(pj.Name, "@") {
		return
	}
	pc := pj.Get("publishConfig")
	if acc := pc.Get("access"); acc.Text() == "public" {
		return
	} else if acc != nil {
		p.ReportJSON(p.PackageJSON(), acc, fmt.Sprintf("publishConfig.access is %s; a scoped pack must publish as \"public\"", describeJSON(acc)), `write "access": "public"`)
		return
	}
	p.ReportJSON(p.PackageJSON(), pc, "a scoped pack without \"publishConfig\": {\"access\": \"public\"} publishes as restricted", `add "publishConfig": {"access": "public"}`)
}

var softKinds = map[string]bool{"voice-provider": true, "productivity": true}

func runAgentOSKind(p *Pass) {
	m := p.Pack.AgentOS
	if m == nil || m.Value == nil {
		return
	}
	for _, e := range m.Extensions {
		if e.Kind == "" || knownKind(e.Kind) {
			continue
		}
		at := e.Value.Get("kind")
		msg := fmt.Sprintf("extension kind %q is not one the AgentOS runtime registers", e.Kind)
		if softKinds[e.Kind] {
			msg = fmt.Sprintf("extension kind %q is used by real packs but is not one of the runtime's registered kinds", e.Kind)
		}
		p.ReportJSON(m.File, at, msg, "known kinds: "+strings.Join(pack.KnownKinds, ", "))
	}
}

func knownKind(k string) bool {
	for _, x := range pack.KnownKinds {
		if x == k {
			return true
		}
	}
	return false
}

func runAgentOSSecretUndeclared(p *Pass) {
	m := p.Pack.AgentOS
	if m == nil || m.Value == nil {
		return
	}
	for _, c := range m.Config {
		if c.Secret && !m.Secret(c.Key) {
			p.Report(m.File, c.KeyPos.Line, c.KeyPos.Col, fmt.Sprintf("configuration property %q is secret but requiredSecrets/optionalSecrets do not list it", c.Key), fmt.Sprintf("add %q to \"requiredSecrets\" (or \"optionalSecrets\")", c.Key))
		}
	}
}

func runAgentOSManifestExported(p *Pass) {
	ex := p.Pack.JSON().Get("exports")
	if ex == nil || ex.Kind != jsonpos.Object || !p.Exists(pack.AgentOSManifest) {
		return
	}
	if p.Pack.Role == workspace.RoleLibrary {
		return // a library is imported by packs, never discovered as an extension pack
	}
	for _, m := range ex.Members {
		if !strings.HasPrefix(m.Key, ".") {
			return // a conditions object: only "." is exported
		}
	}
	if ex.Get("./manifest.json") != nil || ex.Get("./*") != nil {
		return
	}
	p.ReportJSON(p.PackageJSON(), ex, "the exports map does not export ./manifest.json, which the runtime's discovery reads", `add "./manifest.json": "./manifest.json" to "exports"`)
}

func runAgentOSPeerRange(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil || !agentOSPack(p) && p.Pack.Role != workspace.RoleTemplate || pj.Private || p.Pack.Role == workspace.RoleRoot {
		return
	}
	if p.Pack.Role == "" && p.Pack.AgentOS == nil {
		return
	}
	peer := pj.Get("peerDependencies").Get("@framers/agentos")
	if peer == nil {
		if pj.Get("dependencies").Get("@framers/agentos") != nil {
			return // host-runtime-dependency says to move it to the peers
		}
		p.ReportJSON(p.PackageJSON(), orValue(pj.Get("devDependencies").Get("@framers/agentos"), pj.Get("peerDependencies")), "@framers/agentos is not a peer dependency", `add "peerDependencies": {"@framers/agentos": ">=0.9.0"}`)
		return
	}
	if peer.Kind != jsonpos.String {
		return
	}
	rng, err := semver.ParseRange(peer.Str)
	if err != nil || !rng.Bounded() {
		return // not an npm range (workspace:*, a URL) or one without a ceiling
	}
	hint := "use a floor without a ceiling, such as \">=0.9.0\""
	if min := rng.MinVersion(); min != nil && (min.Major|min.Minor|min.Patch != 0 || len(min.Pre) > 0) {
		hint = fmt.Sprintf("write \">=%s\"", min)
	}
	p.ReportJSON(p.PackageJSON(), peer, fmt.Sprintf("the @framers/agentos peer range %q has an upper bound", peer.Str), hint)
}

func runRoleMissing(p *WorkspacePass) {
	if p.WS.Roles == nil {
		return
	}
	for _, pr := range p.WS.Problems {
		if pr.Rule == "role-missing" {
			p.Report(pr.File, pr.Line, pr.Col, pr.Message, "")
		}
	}
	if p.WS.Roles.Value == nil {
		return
	}
	for _, pk := range p.WS.Packages {
		if _, ok := p.WS.Roles.Roles[pk.Dir]; ok {
			continue
		}
		p.WS.Load(pk)
		at := p.WS.Roles.Value.Get("roles")
		line, col := 1, 1
		if at != nil {
			line, col = at.Pos.Line, at.Pos.Col
		}
		name := pk.JSON.Name
		if name == "" {
			name = pk.Dir
		}
		p.Report(p.WS.Roles.File, line, col, fmt.Sprintf("workspace package %s (%s) has no role", name, pk.Dir), fmt.Sprintf("add %q: \"pack\" (or library, template, root) to \"roles\"", pk.Dir))
	}
}

func runRoleUnknown(p *WorkspacePass) {
	if p.WS.Roles == nil || p.WS.Roles.Value == nil {
		return
	}
	roles := p.WS.Roles.Value.Get("roles")
	if roles == nil || roles.Kind != jsonpos.Object {
		return // role-missing says the map has no roles object
	}
	for _, m := range roles.Members {
		switch m.Value.Text() {
		case workspace.RolePack, workspace.RoleLibrary, workspace.RoleTemplate, workspace.RoleRoot:
			continue
		}
		p.Report(p.WS.Roles.File, m.Value.Pos.Line, m.Value.Pos.Col, fmt.Sprintf("role %s of %q is not one of pack, library, template, root", describeJSON(m.Value), m.Key), "")
	}
}

func runRoleOrphan(p *WorkspacePass) {
	if p.WS.Roles == nil || p.WS.Roles.Value == nil {
		return
	}
	for _, dir := range p.WS.Roles.Order {
		if p.WS.Package(dir) != nil {
			continue
		}
		pos := p.WS.Roles.RolePos[dir]
		why := "holds no package.json"
		if _, err := fs.Stat(p.WS.FS, dir); err != nil {
			why = "does not exist"
		} else if _, err := fs.Stat(p.WS.FS, path.Join(dir, "package.json")); err == nil {
			why = "is not a workspace package (no workspace glob matches it)"
		}
		p.Report(p.WS.Roles.File, pos.Line, pos.Col, fmt.Sprintf("the role map names %s, which %s", dir, why), "remove the entry or fix the path")
	}
}
