package check

import (
	"fmt"
	"path"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/pack"
)

// The rules about what a package's entry fields name: declaration files, TypeScript entries,
// the host runtime as a dependency, paths that leave the package ("Any package" in RULES.md).
var (
	typesNotShippedRule = &Rule{ID: "types-not-shipped", Severity: Error, Family: "Any package", Run: runTypesShipped,
		Help: "The `types` (or `typings`) field and every `types` condition of `exports` must name a file npm packs: TypeScript users of the published package otherwise get \"Could not find a declaration file\" or, worse, silently `any`. Before a build, a declaration file under the output folder (`dist/`) counts as shipped when `files` covers its path; `plaios guard` then checks the real tarball."}
	entryTypeScriptRule = &Rule{ID: "entry-typescript", Severity: Error, Family: "Any package", Run: runEntryTypeScript,
		Help: "An entry a consumer loads — `main`, an `exports` target Node reaches without extra conditions (anything but `types` and custom conditions such as `source`), a runtime entry such as `openclaw.runtimeExtensions` — must not be TypeScript (`.ts`, `.tsx`, `.mts`, `.cts`): Node refuses to strip types from files under node_modules (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING), and installed OpenClaw plugins load compiled JavaScript only. Point it at the built file. Pi packages are exempt: Pi loads its extensions, TypeScript included, with jiti."}
	hostRuntimeDependencyRule = &Rule{ID: "host-runtime-dependency", Severity: Warning, Family: "Any package", Run: runHostRuntimeDependency,
		Help: "A pack's host runtime (`@framers/agentos` for an AgentOS pack, `openclaw` for an OpenClaw plugin) belongs in `peerDependencies`: in `dependencies` every install gets a second copy of the runtime next to the host's, with its own registries and singletons, so what the pack registers never reaches the host. (Pi's core packages in `dependencies` are `pi-peer-range`'s error.)"}
	pathOutsidePackageRule = &Rule{ID: "path-outside-package", Severity: Error, Family: "Any package", Run: runPathOutsidePackage,
		Help: "`main`, `bin`, `types`/`typings` and the entries of `files` name paths inside the package: npm packs nothing outside the package folder (it drops a `files` entry with `../`, and rewrites a `bin` path that leaves), and Node resolves an absolute `main` against the file system's root. Move the file into the package and name it relative to package.json."}
)

// exportsLeaf is a string target of an exports map with the conditions on its path.
type exportsLeaf struct {
	value      *jsonpos.Value
	conditions []string
}

// exportsLeaves walks an exports value: subpath keys (".", "./x") and condition keys, arrays of
// fallbacks, string targets; null exclusions are skipped.
func exportsLeaves(v *jsonpos.Value) []exportsLeaf {
	var out []exportsLeaf
	var walk func(v *jsonpos.Value, conds []string, depth int)
	walk = func(v *jsonpos.Value, conds []string, depth int) {
		if v == nil || depth > 32 {
			return
		}
		switch v.Kind {
		case jsonpos.String:
			out = append(out, exportsLeaf{value: v, conditions: conds})
		case jsonpos.Array:
			for _, it := range v.Items {
				walk(it, conds, depth+1)
			}
		case jsonpos.Object:
			for _, m := range v.Members {
				next := conds
				if !strings.HasPrefix(m.Key, ".") {
					next = append(append([]string(nil), conds...), m.Key)
				}
				walk(m.Value, next, depth+1)
			}
		}
	}
	walk(v, nil, 0)
	return out
}

// nodeConditions are the conditions Node matches without --conditions (import or require).
var nodeConditions = map[string]bool{"node": true, "import": true, "require": true, "module-sync": true, "node-addons": true, "default": true}

func runTypesShipped(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil || pj.Value.Kind != jsonpos.Object || pj.Private {
		return
	}
	if _, err := p.Shipped(); err != nil {
		return // entry-not-shipped or package-json-invalid says why the files cannot be listed
	}
	check := func(v *jsonpos.Value, what string) {
		if !v.IsString() || v.Str == "" || strings.Contains(v.Str, "*") || leavesPackage(v.Str) {
			return // patterns cannot be listed statically; paths that leave are path-outside-package's
		}
		if ok, why := p.shippedOrBuilt(v.Str); !ok {
			p.ReportJSON(p.PackageJSON(), v, fmt.Sprintf("%s names %s, which npm would not pack: %s", what, v.Str, why), filesHint(v.Str))
		}
	}
	for _, key := range []string{"types", "typings"} {
		check(pj.Get(key), fmt.Sprintf("%q", key))
	}
	for _, leaf := range exportsLeaves(pj.Get("exports")) {
		for _, c := range leaf.conditions {
			if c == "types" || strings.HasPrefix(c, "types@") {
				check(leaf.value, "the exports \"types\" condition")
				break
			}
		}
	}
}

func runEntryTypeScript(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil || pj.Value.Kind != jsonpos.Object || pj.Private {
		return
	}
	report := func(v *jsonpos.Value, what string) {
		hint := "build it and point " + what + " at the built .js file"
		if what == "the exports target" {
			hint += " (a \"types\" or custom condition such as \"source\" may keep naming the source)"
		}
		p.ReportJSON(p.PackageJSON(), v, fmt.Sprintf("%s is the TypeScript file %s, which Node cannot load from an installed package", what, v.Str), hint)
	}
	// Pi loads a package's extensions, TypeScript included, with jiti
	// (@earendil-works/pi-coding-agent 1.6.0, dist/core/extensions/loader.js): nothing a Pi
	// package names is loaded by Node itself.
	if p.Pack.Runtime != pack.Pi {
		if m := pj.Get("main"); m.IsString() && pack.IsTypeScriptEntry(m.Str) {
			report(m, `"main"`)
		}
		for _, leaf := range exportsLeaves(pj.Get("exports")) {
			if !pack.IsTypeScriptEntry(leaf.value.Str) {
				continue
			}
			reached := true
			for _, c := range leaf.conditions {
				reached = reached && nodeConditions[c]
			}
			if reached {
				report(leaf.value, "the exports target")
			}
		}
	}
	oc := pj.Get("openclaw")
	if rt := oc.Get("runtimeExtensions"); rt != nil && rt.Kind == jsonpos.Array {
		for i, it := range rt.Items {
			if it.IsString() && pack.IsTypeScriptEntry(it.Str) {
				report(it, fmt.Sprintf("openclaw.runtimeExtensions[%d]", i))
			}
		}
	}
	if rs := oc.Get("runtimeSetupEntry"); rs.IsString() && pack.IsTypeScriptEntry(rs.Str) {
		report(rs, "openclaw.runtimeSetupEntry")
	}
}

// hostRuntimes are the host runtime packages of each runtime's packs.
var hostRuntimes = map[pack.Runtime][]string{
	pack.AgentOS:  {pack.AgentOSRuntime},
	pack.OpenClaw: {"openclaw"},
}

func runHostRuntimeDependency(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil || pj.Private {
		return
	}
	for _, host := range hostRuntimes[p.Pack.Runtime] {
		d := pj.Get("dependencies").Get(host)
		if d == nil {
			continue
		}
		hint := fmt.Sprintf("move %q to peerDependencies", host)
		if d.IsString() && strings.HasPrefix(strings.TrimSpace(d.Str), ">=") {
			hint = fmt.Sprintf("move %q: %q to peerDependencies", host, d.Str)
		}
		p.ReportJSON(p.PackageJSON(), d, fmt.Sprintf("%s, the host runtime, is a dependency: every install gets a second copy next to the host's", host), hint)
	}
}

// leavesPackage reports whether a path named in package.json leaves the package: a ../ that
// climbs out, or an absolute path.
func leavesPackage(rel string) bool {
	if strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || (len(rel) > 1 && rel[1] == ':') {
		return true
	}
	c := path.Clean(strings.ReplaceAll(rel, `\`, "/"))
	return c == ".." || strings.HasPrefix(c, "../")
}

func runPathOutsidePackage(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil || pj.Value.Kind != jsonpos.Object || pj.Private {
		return
	}
	report := func(v *jsonpos.Value, what string) {
		p.ReportJSON(p.PackageJSON(), v, fmt.Sprintf("%s names %s, which leaves the package; npm packs only what is inside the package folder", what, v.Str), "move the file into the package and name it relative to package.json")
	}
	for _, key := range []string{"main", "types", "typings"} {
		if v := pj.Get(key); v.IsString() && leavesPackage(v.Str) {
			report(v, fmt.Sprintf("%q", key))
		}
	}
	switch bin := pj.Get("bin"); {
	case bin.IsString():
		if leavesPackage(bin.Str) {
			report(bin, `"bin"`)
		}
	case bin != nil && bin.Kind == jsonpos.Object:
		for _, m := range bin.Members {
			if m.Value.IsString() && leavesPackage(m.Value.Str) {
				report(m.Value, fmt.Sprintf("bin %q", m.Key))
			}
		}
	}
	// A files entry is a gitignore-style pattern: a leading / anchors it at the package root,
	// so only a ../ that climbs out leaves.
	if files := pj.Get("files"); files != nil && files.Kind == jsonpos.Array {
		for _, it := range files.Items {
			if !it.IsString() {
				continue
			}
			c := path.Clean(strings.ReplaceAll(strings.TrimPrefix(it.Str, "!"), `\`, "/"))
			if c == ".." || strings.HasPrefix(c, "../") || strings.HasPrefix(c, "/../") || c == "/.." {
				report(it, `the "files" entry`)
			}
		}
	}
}
