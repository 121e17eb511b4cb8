package check

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plaios/plaios/internal/npm/exports"
	"github.com/plaios/plaios/internal/pack"
)

var (
	plaiosManifestInvalidRule = &Rule{ID: "plaios-manifest-invalid", Severity: Error, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSManifest,
		Help: "agent-os.package.yaml must be what the PLAIOS host accepts: a YAML mapping without duplicate keys, `schemaVersion` an integer, `id` and `name`, `version` a string (`version: 1.0` is a number to YAML and fails; write `version: 1.0.0` or quote it), and a non-empty `interfaces` list whose entries each have an `id` and a `kind`."}
	plaiosKindUnknownRule = &Rule{ID: "plaios-kind-unknown", Severity: Error, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSKind,
		Help: "An interface `kind` must be one of the eleven the host loads: input, output, action, agent, orchestrator, discovery, database, memory, system1, system2, env."}
	plaiosClassMissingRule = &Rule{ID: "plaios-class-missing", Severity: Error, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSClass,
		Help: "Every interface needs a `className`: the host imports the package's entry and constructs `new <className>(options)`."}
	plaiosInterfaceDuplicateRule = &Rule{ID: "plaios-interface-duplicate", Severity: Error, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSDuplicate,
		Help: "Interface ids must be unique within a package: components are installed and configured by interface id."}
	plaiosDependencyUnknownRule = &Rule{ID: "plaios-dependency-unknown", Severity: Error, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSDependency,
		Help: "Each item of an interface's `required` and `optional` lists must be a kind (env, database, memory, system1, system2, …) or the id of another interface of the same package; the host cannot wire anything else into the constructor options."}
	plaiosEntryUnresolvedRule = &Rule{ID: "plaios-entry-unresolved", Severity: Error, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSEntry,
		Help: "The host finds an interface's class through `entry` (default `.`) and its page through `web.entry` (default `./web/<kind>`), resolved through package.json `exports` exactly as Node resolves them, `*` patterns included. Both must resolve, start with `./` and stay inside the package."}
	plaiosPageMissingRule = &Rule{ID: "plaios-page-missing", Severity: Error, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSPage,
		Help: "Every interface has a page: the Store refuses to install a package whose page does not resolve. The file the web entry resolves to must have a source under `web/<kind>/` (built into it) or be among the packed files."}
	plaiosVersionMismatchRule = &Rule{ID: "plaios-version-mismatch", Severity: Error, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSVersion,
		Help: "The manifest's `version` must equal package.json's `version`: bump both together (`plaios release-plan --write` does)."}
	plaiosConfigInvalidRule = &Rule{ID: "plaios-config-invalid", Severity: Error, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSConfig,
		Help: "A config field needs a `key`; its `type` is one of string, secret, number, boolean; a `default` must have that type; a `secret` has no default (put it in .env and reference it with `env:`); `env` must be an environment variable name (letters, digits, underscores, not starting with a digit)."}
	plaiosFieldIgnoredRule = &Rule{ID: "plaios-field-ignored", Severity: Warning, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSIgnored,
		Help: "`permissions`, `surfaces` and a `capability:` block are ignored by the host: the capability manifest that counts is the one on your class. Remove them so nobody relies on them."}
	plaiosStartupInvalidRule = &Rule{ID: "plaios-startup-invalid", Severity: Error, Runtime: pack.PLAIOS, Family: "PLAIOS", Run: runPLAIOSStartup,
		Help: "`startup.when` must be `always`, `ifConfigured` or `manual`."}
)

func plaiosModel(p *Pass) *pack.PLAIOSModel {
	m := p.Pack.PLAIOS
	if m == nil || m.Doc == nil {
		return nil
	}
	return m
}

func runPLAIOSManifest(p *Pass) {
	m := p.Pack.PLAIOS
	if m == nil {
		return
	}
	if m.Err != nil {
		var ye *pack.YAMLSyntaxError
		switch {
		case errors.As(m.Err, &ye):
			p.Report(m.File, ye.Line, 1, "agent-os.package.yaml is not valid YAML: "+ye.Msg, "")
		case errors.Is(m.Err, fs.ErrNotExist):
		default:
			p.Report(m.File, 1, 1, "agent-os.package.yaml cannot be read: "+m.Err.Error(), "")
		}
		return
	}
	if m.Doc == nil {
		p.Report(m.File, 1, 1, "agent-os.package.yaml must be a YAML mapping (schemaVersion, id, name, version, interfaces)", "")
		return
	}
	for _, d := range m.Duplicates {
		p.ReportNode(m.File, d, fmt.Sprintf("the key %q is given twice; the host refuses duplicate keys", d.Value), "")
	}
	switch {
	case m.SchemaVersion == nil:
		p.ReportNode(m.File, m.Doc, "schemaVersion is missing", "add schemaVersion: 1")
	case pack.YAMLType(m.SchemaVersion) != "integer":
		p.ReportNode(m.File, m.SchemaVersion, fmt.Sprintf("schemaVersion must be an integer, not %s", article(pack.YAMLType(m.SchemaVersion))), "write schemaVersion: 1")
	}
	for _, f := range []struct {
		n    *yaml.Node
		name string
	}{{m.ID, "id"}, {m.Name, "name"}} {
		if f.n == nil {
			p.ReportNode(m.File, m.Doc, f.name+" is missing", "")
		} else if pack.YAMLType(f.n) != "string" || f.n.Value == "" {
			p.ReportNode(m.File, f.n, fmt.Sprintf("%s must be a non-empty string", f.name), "")
		}
	}
	switch {
	case m.Version == nil:
		p.ReportNode(m.File, m.Doc, "version is missing", "add version: 0.1.0")
	case pack.YAMLType(m.Version) != "string":
		p.ReportNode(m.File, m.Version, fmt.Sprintf(`version %s is %s to YAML, not a string: Package manifest "version" is invalid`, m.Version.Value, article(pack.YAMLType(m.Version))), fmt.Sprintf("write version: %q", versionFromNumber(m.Version.Value)))
	}
	switch {
	case m.Interfaces == nil:
		p.ReportNode(m.File, m.Doc, "interfaces is missing: a package must declare at least one interface", "")
		return
	case m.Interfaces.Kind != yaml.SequenceNode:
		p.ReportNode(m.File, m.Interfaces, "interfaces must be a list", "")
		return
	case len(m.Interfaces.Content) == 0:
		p.ReportNode(m.File, m.Interfaces, "interfaces is empty: a package must declare at least one interface", "")
	}
	for i, in := range m.Ifaces {
		if in.Node.Kind != yaml.MappingNode {
			p.ReportNode(m.File, in.Node, fmt.Sprintf(`Package manifest "interfaces[%d]" is invalid: it must be a mapping`, i), "")
			continue
		}
		if in.ID == nil || pack.Scalar(in.ID) == "" {
			p.ReportNode(m.File, orNode(in.ID, in.Node), fmt.Sprintf(`Package manifest "interfaces[%d].id" is invalid: it is missing`, i), "")
		}
		if in.Kind == nil || pack.Scalar(in.Kind) == "" {
			p.ReportNode(m.File, orNode(in.Kind, in.Node), fmt.Sprintf(`Package manifest "interfaces[%d].kind" is invalid: it is missing`, i), "")
		}
	}
}

func versionFromNumber(s string) string {
	switch strings.Count(s, ".") {
	case 0:
		return s + ".0.0"
	case 1:
		return s + ".0"
	}
	return s
}

func orNode(n, fallback *yaml.Node) *yaml.Node {
	if n != nil {
		return n
	}
	return fallback
}

func runPLAIOSKind(p *Pass) {
	m := plaiosModel(p)
	if m == nil {
		return
	}
	for i, in := range m.Ifaces {
		k := pack.Scalar(in.Kind)
		if k == "" || pack.IsPLAIOSKind(k) {
			continue
		}
		p.ReportNode(m.File, in.Kind, fmt.Sprintf(`Package manifest "interfaces[%d].kind" is invalid: %s`, i, k), "kinds: "+strings.Join(pack.PLAIOSKindNames(), ", "))
	}
}

func runPLAIOSClass(p *Pass) {
	m := plaiosModel(p)
	if m == nil {
		return
	}
	for _, in := range m.Ifaces {
		if in.Node.Kind != yaml.MappingNode {
			continue
		}
		if pack.Scalar(in.ClassName) == "" {
			id := pack.Scalar(in.ID)
			p.ReportNode(m.File, orNode(in.ClassName, in.Node), fmt.Sprintf("interface %q has no className", id), "add className: the exported class the host constructs")
		}
	}
}

func runPLAIOSDuplicate(p *Pass) {
	m := plaiosModel(p)
	if m == nil {
		return
	}
	seen := map[string]bool{}
	for _, in := range m.Ifaces {
		id := pack.Scalar(in.ID)
		if id == "" {
			continue
		}
		if seen[id] {
			p.ReportNode(m.File, in.ID, fmt.Sprintf("interface id %q is declared twice", id), "")
		}
		seen[id] = true
	}
}

func runPLAIOSDependency(p *Pass) {
	m := plaiosModel(p)
	if m == nil {
		return
	}
	ids := map[string]bool{}
	for _, in := range m.Ifaces {
		ids[pack.Scalar(in.ID)] = true
	}
	for _, in := range m.Ifaces {
		for _, list := range []*yaml.Node{in.Required, in.Optional} {
			if list == nil {
				continue
			}
			if list.Kind != yaml.SequenceNode {
				p.ReportNode(m.File, list, "required and optional must be lists of kinds or interface ids", "")
				continue
			}
			for _, it := range list.Content {
				v := pack.Scalar(it)
				if pack.IsPLAIOSKind(v) || ids[v] {
					continue
				}
				p.ReportNode(m.File, it, fmt.Sprintf("interface %q depends on %q, which is neither a kind nor an interface of this package", pack.Scalar(in.ID), v), "kinds: "+strings.Join(pack.PLAIOSKindNames(), ", "))
			}
		}
	}
}

func (p *Pass) resolveExport(subpath string) (string, error) {
	ex := p.Pack.JSON().Get("exports")
	if ex == nil {
		if subpath == "." {
			return "", errors.New(`package.json has no "exports"`)
		}
		return "", fmt.Errorf(`package.json has no "exports", so %s cannot resolve`, subpath)
	}
	return exports.Resolve(ex, subpath, importConditions)
}

func runPLAIOSEntry(p *Pass) {
	m := plaiosModel(p)
	if m == nil || p.Pack.JSON().Value == nil {
		return
	}
	for _, in := range m.Ifaces {
		if in.Node.Kind != yaml.MappingNode || pack.Scalar(in.Kind) == "" {
			continue
		}
		id := pack.Scalar(in.ID)
		for _, e := range []struct {
			node  *yaml.Node
			value string
			what  string
		}{{in.Entry, in.EntryPath(), "entry"}, {in.WebEntry, in.WebEntryPath(), "web.entry"}} {
			at := orNode(e.node, in.Node)
			if !strings.HasPrefix(e.value, ".") {
				p.ReportNode(m.File, at, fmt.Sprintf("interface %q %s %q must start with \"./\"", id, e.what, e.value), "")
				continue
			}
			if _, err := p.resolveExport(e.value); err != nil {
				p.ReportNode(m.File, at, fmt.Sprintf("interface %q %s %q does not resolve: %v", id, e.what, e.value, err), exportsHint(e.what))
			}
		}
	}
}

func exportsHint(what string) string {
	if what == "web.entry" {
		return `export pages with "./web/*": {"types": "./dist/web/*/index.d.ts", "import": "./dist/web/*/index.js"}`
	}
	return `export the class with ".": {"types": "./dist/src/index.d.ts", "import": "./dist/src/index.js"}`
}

var sourceExts = []string{".tsx", ".ts", ".jsx", ".js", ".mts", ".mjs"}

func runPLAIOSPage(p *Pass) {
	m := plaiosModel(p)
	if m == nil || p.Pack.JSON().Value == nil {
		return
	}
	for _, in := range m.Ifaces {
		kind := pack.Scalar(in.Kind)
		if in.Node.Kind != yaml.MappingNode || kind == "" {
			continue
		}
		target, err := p.resolveExport(in.WebEntryPath())
		if err != nil {
			continue // plaios-entry-unresolved says so
		}
		if ok, _ := p.shippedOrBuilt(target); ok && p.Exists(target) {
			continue
		}
		// The page is built from web/<kind>/, or from the folder its web entry names.
		folders := []string{path.Join("web", kind)}
		if we := strings.TrimPrefix(in.WebEntryPath(), "./"); strings.HasPrefix(we, "web/") && path.Join("web", kind) != path.Clean(we) {
			folders = append(folders, path.Clean(we))
		}
		hasSource := false
		for _, folder := range folders {
			for _, ext := range sourceExts {
				if p.Exists(path.Join(folder, "index"+ext)) {
					hasSource = true
				}
			}
		}
		if hasSource {
			if ok, why := p.shippedOrBuilt(target); !ok {
				p.ReportNode(m.File, orNode(in.WebEntry, in.Node), fmt.Sprintf("the page of interface %q resolves to %s, which npm would not pack: %s", pack.Scalar(in.ID), target, why), filesHint(target))
			}
			continue
		}
		p.ReportNode(m.File, orNode(in.WebEntry, in.Node), fmt.Sprintf("the page of interface %q resolves to %s, but there is no web/%s/index.tsx to build it from and the file is not packed", pack.Scalar(in.ID), target, kind), fmt.Sprintf("add web/%s/index.tsx default-exporting the page component", kind))
	}
}

func runPLAIOSVersion(p *Pass) {
	m := plaiosModel(p)
	if m == nil || m.Version == nil || pack.YAMLType(m.Version) != "string" || p.Pack.Version() == "" {
		return
	}
	mv, pv := m.Version.Value, p.Pack.Version()
	if mv != pv {
		p.ReportNode(m.File, m.Version, fmt.Sprintf("manifest version %s differs from package.json version %s (%s)", mv, pv, ahead(mv, pv)), fmt.Sprintf("write version: %s in agent-os.package.yaml", pv))
	}
}

// isEnvName reports whether s is a portable environment variable name, [A-Za-z_][A-Za-z0-9_]*.
func isEnvName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func runPLAIOSConfig(p *Pass) {
	m := plaiosModel(p)
	if m == nil {
		return
	}
	for _, in := range m.Ifaces {
		if in.Config != nil && in.Config.Kind != yaml.SequenceNode {
			p.ReportNode(m.File, in.Config, "config must be a list of fields", "")
			continue
		}
		for _, f := range in.Fields {
			if f.Node.Kind != yaml.MappingNode {
				p.ReportNode(m.File, f.Node, "a config field must be a mapping with at least a key", "")
				continue
			}
			key := pack.Scalar(f.Key)
			if key == "" {
				p.ReportNode(m.File, f.Node, "a config field has no key", "add key: the option name your constructor receives")
			}
			typ := "string"
			if f.Type != nil {
				typ = pack.Scalar(f.Type)
				switch typ {
				case "string", "secret", "number", "boolean":
				default:
					p.ReportNode(m.File, f.Type, fmt.Sprintf("config field %q has type %q; use string, secret, number or boolean", key, f.Type.Value), "")
					typ = ""
				}
			}
			if f.Env != nil && !isEnvName(pack.Scalar(f.Env)) {
				p.ReportNode(m.File, f.Env, fmt.Sprintf("config field %q reads env %q, which is not an environment variable name", key, f.Env.Value), "use letters, digits and underscores, e.g. WEATHER_API_KEY")
			}
			if f.Default == nil || typ == "" {
				continue
			}
			got := pack.YAMLType(f.Default)
			switch {
			case typ == "secret":
				p.ReportNode(m.File, f.Default, fmt.Sprintf("secret config field %q has a default value; secrets come from the environment", key), "remove the default and set it in .env through env:")
			case typ == "number" && got != "integer" && got != "float":
				p.ReportNode(m.File, f.Default, fmt.Sprintf("config field %q is a number but its default is %s", key, article(got)), "")
			case typ == "boolean" && got != "boolean":
				p.ReportNode(m.File, f.Default, fmt.Sprintf("config field %q is a boolean but its default is %s", key, article(got)), "")
			case typ == "string" && got != "string":
				p.ReportNode(m.File, f.Default, fmt.Sprintf("config field %q is a string but its default is %s", key, article(got)), fmt.Sprintf("quote it: default: %q", f.Default.Value))
			}
		}
	}
}

func runPLAIOSIgnored(p *Pass) {
	m := plaiosModel(p)
	if m == nil {
		return
	}
	report := func(k *yaml.Node) {
		p.ReportNode(m.File, k, fmt.Sprintf("%q is ignored by the PLAIOS host", k.Value), "remove it; the capability manifest on your class is the one that counts")
	}
	for _, k := range m.Ignored {
		report(k)
	}
	for _, in := range m.Ifaces {
		for _, k := range in.Ignored {
			report(k)
		}
	}
}

func runPLAIOSStartup(p *Pass) {
	m := plaiosModel(p)
	if m == nil {
		return
	}
	for _, in := range m.Ifaces {
		if in.Startup == nil {
			continue
		}
		if in.Startup.Kind != yaml.MappingNode {
			p.ReportNode(m.File, in.Startup, "startup must be a mapping such as { when: ifConfigured }", "")
			continue
		}
		switch w := pack.Scalar(in.When); w {
		case "always", "ifConfigured", "manual":
		default:
			p.ReportNode(m.File, orNode(in.When, in.Startup), fmt.Sprintf("startup.when is %q; use always, ifConfigured or manual", w), "")
		}
	}
}
