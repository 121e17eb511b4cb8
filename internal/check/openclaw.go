package check

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/pack"
)

var (
	openClawManifestInvalidRule = &Rule{ID: "openclaw-manifest-invalid", Severity: Error, Runtime: pack.OpenClaw, Family: "OpenClaw and Pi", Run: runOpenClawManifest,
		Help: "openclaw.plugin.json is read as JSON5 and must hold an object with an `id` and an object `configSchema` (`{\"type\":\"object\",\"additionalProperties\":false}` when the plugin has no configuration). OpenClaw reads only its documented top-level keys; any other key is ignored (reported as a warning)."}
	openClawVersionMismatchRule = &Rule{ID: "openclaw-version-mismatch", Severity: Error, Runtime: pack.OpenClaw, Family: "OpenClaw and Pi", Run: runOpenClawVersion,
		Help: "The manifest's `version` must equal package.json's: `openclaw plugins build` writes it from package.json, and `--check` fails when they differ."}
	openClawEntryRule = &Rule{ID: "openclaw-entry", Severity: Error, Runtime: pack.OpenClaw, Family: "OpenClaw and Pi", Run: runOpenClawEntry,
		Help: "package.json must name the plugin's entries in `openclaw.extensions`, and an installed plugin must find compiled JavaScript for each among the files npm packs, as openclaw's installer checks (validatePackageExtensionEntriesForInstall, openclaw 2026.9.6 dist/package-entry-resolution-*.mjs): the file `openclaw.runtimeExtensions` names at the same index when it is given (the official layout: TypeScript source in `extensions`, `./dist/index.js` in `runtimeExtensions`, one for one), else for a TypeScript source the first built file openclaw infers (`./src/index.ts` → `./dist/index.js`, …), else the entry itself. `openclaw.setupEntry` and `runtimeSetupEntry` pair the same way. An entry that leaves the package is refused."}
	openClawContractDriftRule = &Rule{ID: "openclaw-contract-drift", Severity: Error, Runtime: pack.OpenClaw, Family: "OpenClaw and Pi", Guard: true,
		Help: "(guard) Every tool the built entry registers must be in `contracts.tools` in openclaw.plugin.json: openclaw drops a registration the contract does not list (`plugin must declare contracts.tools for: …`, openclaw 2026.9.6 dist/loader-runtime-load-*.mjs registerTool). A `defineToolPlugin` entry's tools are fixed, and its contract must list exactly them (what `openclaw plugins build --check` compares); a `register(api)` entry may declare a tool it registers only when configured, which openclaw loads either way. Regenerate with `plaios export openclaw` or `openclaw plugins build`."}
	piPeerRangeRule = &Rule{ID: "pi-peer-range", Severity: Error, Runtime: pack.Pi, Family: "OpenClaw and Pi", Run: runPiPeers,
		Help: "Pi's core packages (`@earendil-works/pi-coding-agent`, `pi-ai`, `pi-agent-core`, `pi-tui`, `typebox`) are provided by Pi itself: list them as peer dependencies with the range `\"*\"`, never in `dependencies`, or a second copy is bundled next to Pi's."}
	piExtensionMissingRule = &Rule{ID: "pi-extension-missing", Severity: Error, Runtime: pack.Pi, Family: "OpenClaw and Pi", Run: runPiExtensions,
		Help: "Pi loads a package's extensions from the installed package, resolving package.json's `pi` field as Pi 1.6.0 does (dist/core/package-manager.js): each `pi.extensions` entry is a file, a folder (its own package.json `pi.extensions`, else its index.ts or index.js, else its .ts and .js files and the index of each subfolder) or a glob, and `!`, `+` and `-` entries filter what they find; without `pi.extensions`, a `pi` field that lists no skills, prompts or themes either means the conventional extensions/ folder. A plain entry must give Pi something among the files npm packs (or that the build writes and `files` ships), since Pi skips one that names nothing without a word; a package from which Pi loads nothing at all is refused. A package whose `pi` field lists only skills, prompts or themes has no extension, and that is no fault. guard resolves the tarball the same way."}
)

// maxOpenClawManifest is the largest manifest OpenClaw reads (MAX_PLUGIN_MANIFEST_BYTES).
const maxOpenClawManifest = 262144

func runOpenClawManifest(p *Pass) {
	m := p.Pack.OpenClaw
	if m == nil {
		return
	}
	if m.Err != nil {
		var se *jsonpos.SyntaxError
		switch {
		case errors.As(m.Err, &se):
			p.Report(m.File, se.Pos.Line, se.Pos.Col, "openclaw.plugin.json is not valid JSON5: "+se.Msg, "")
		case errors.Is(m.Err, fs.ErrNotExist):
		default:
			p.Report(m.File, 1, 1, "openclaw.plugin.json cannot be read: "+m.Err.Error(), "")
		}
		return
	}
	v := m.Value
	if v.Kind != jsonpos.Object {
		p.ReportJSON(m.File, v, "openclaw.plugin.json must hold an object", "")
		return
	}
	if len(m.Data) > maxOpenClawManifest {
		p.Report(m.File, 1, 1, fmt.Sprintf("openclaw.plugin.json is %d bytes; OpenClaw refuses manifests over %d bytes", len(m.Data), maxOpenClawManifest), "")
	}
	if id := v.Get("id"); id.IsString() && strings.EqualFold(strings.TrimSpace(id.Str), "node-mcp") {
		p.ReportJSON(m.File, id, fmt.Sprintf("plugin id %q is reserved by OpenClaw core", id.Str), "choose another id")
	}
	if id := v.Get("id"); id == nil {
		p.ReportJSON(m.File, v, "openclaw.plugin.json has no \"id\"", "add \"id\": the plugin id, usually the package name without its scope")
	} else if id.Kind != jsonpos.String || strings.TrimSpace(id.Str) == "" {
		p.ReportJSON(m.File, id, "\"id\" must be a non-empty string", "")
	}
	if cs := v.Get("configSchema"); cs == nil {
		p.ReportJSON(m.File, v, "openclaw.plugin.json has no \"configSchema\"", `add "configSchema": {"type": "object", "additionalProperties": false}`)
	} else if cs.Kind != jsonpos.Object {
		p.ReportJSON(m.File, cs, fmt.Sprintf("\"configSchema\" must be an object schema, not %s", article(cs.Kind.String())), "")
	}
	if tools := v.Path("contracts", "tools"); tools != nil {
		if tools.Kind != jsonpos.Array {
			p.ReportJSON(m.File, tools, "contracts.tools must be a list of tool names", "")
		}
	}
	known := map[string]bool{}
	for _, k := range pack.OpenClawKeys {
		known[k] = true
	}
	for _, mem := range v.Members {
		if !known[mem.Key] {
			p.ReportSeverity(Warning, m.File, mem.KeyPos.Line, mem.KeyPos.Col, fmt.Sprintf("%q is not a documented openclaw.plugin.json key; OpenClaw ignores it", mem.Key), "")
		}
	}
}

func runOpenClawVersion(p *Pass) {
	m := p.Pack.OpenClaw
	if m == nil || m.Value == nil || m.Version == "" || p.Pack.Version() == "" {
		return
	}
	if m.Version != p.Pack.Version() {
		p.ReportJSON(m.File, m.Value.Get("version"), fmt.Sprintf("manifest version %s differs from package.json version %s (%s)", m.Version, p.Pack.Version(), ahead(m.Version, p.Pack.Version())), fmt.Sprintf("write %q in openclaw.plugin.json, or run openclaw plugins build", p.Pack.Version()))
	}
}

// runOpenClawEntry checks the entry points as openclaw's installer does (pack.OpenClawEntries):
// each source entry of openclaw.extensions (and openclaw.setupEntry) must leave something an
// installed plugin can load — its runtime entry when one is given, else a compiled file
// openclaw infers for a TypeScript source, else the entry itself — and that file must be
// shipped.
func runOpenClawEntry(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil {
		return
	}
	entries, problems, missing := pack.OpenClawEntries(pj.Value)
	if missing {
		p.ReportJSON(p.PackageJSON(), orValue(pj.Get("openclaw"), nil), "package.json has no openclaw.extensions entry", `add "openclaw": {"extensions": ["./dist/index.js"]}`)
		return
	}
	for _, pr := range problems {
		p.ReportJSON(p.PackageJSON(), pr.At, pr.Message, "")
	}
	if pj.Private {
		return // not published: openclaw loads it from the folder
	}
	for _, e := range entries {
		if leavesPackage(e.Source.Str) {
			p.ReportJSON(p.PackageJSON(), e.Source, fmt.Sprintf("%s names %s, which escapes the plugin directory; openclaw refuses to install it", e.Field, e.Source.Str), "name a file inside the package, such as \"./dist/index.js\"")
			continue
		}
		if e.Runtime != nil {
			runtimeField := strings.Replace(strings.Replace(e.Field, "extensions", "runtimeExtensions", 1), "setupEntry", "runtimeSetupEntry", 1)
			if leavesPackage(e.Runtime.Str) {
				p.ReportJSON(p.PackageJSON(), e.Runtime, fmt.Sprintf("%s names %s, which escapes the plugin directory; openclaw refuses to install it", runtimeField, e.Runtime.Str), "")
			} else if ok, why := p.shippedOrBuilt(e.Runtime.Str); !ok {
				p.ReportJSON(p.PackageJSON(), e.Runtime, fmt.Sprintf("%s names %s, the file an installed plugin loads, which npm would not pack: %s", runtimeField, e.Runtime.Str, why), filesHint(e.Runtime.Str))
			}
			continue // the source entry need not be shipped
		}
		if candidates := pack.BuiltEntryCandidates(e.Source.Str); len(candidates) > 0 {
			found := false
			for _, c := range candidates {
				if p.Exists(strings.TrimPrefix(c, "./")) || p.inOutputDir(c) {
					if ok, _ := p.shippedOrBuilt(c); ok {
						found = true
						break
					}
				}
			}
			if !found {
				p.ReportJSON(p.PackageJSON(), e.Source, fmt.Sprintf("%s names the TypeScript source %s and %s names no built file; an installed plugin loads compiled JavaScript, and npm would pack none of the files openclaw looks for (%s)", e.Field, e.Source.Str, runtimeFieldOf(e.Field), strings.Join(candidates, ", ")),
					fmt.Sprintf("build it (to %s), ship the output in \"files\", and name the built file in %s", candidates[0], runtimeFieldOf(e.Field)))
			}
			continue
		}
		if ok, why := p.shippedOrBuilt(e.Source.Str); !ok {
			p.ReportJSON(p.PackageJSON(), e.Source, fmt.Sprintf("%s names %s, which npm would not pack: %s", e.Field, e.Source.Str, why), filesHint(e.Source.Str))
		}
	}
}

// runtimeFieldOf names the runtime field that pairs with an entry field.
func runtimeFieldOf(field string) string {
	if field == "openclaw.setupEntry" {
		return "openclaw.runtimeSetupEntry"
	}
	return "openclaw.runtimeExtensions"
}

func runPiPeers(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil {
		return
	}
	for _, core := range pack.PiCorePackages {
		if d := pj.Get("dependencies").Get(core); d != nil {
			p.ReportJSON(p.PackageJSON(), d, fmt.Sprintf("%s is a Pi core package and must not be a dependency (Pi provides it)", core), fmt.Sprintf("move it to peerDependencies as %q: \"*\"", core))
		}
		if peer := pj.Get("peerDependencies").Get(core); peer != nil && peer.Text() != "*" {
			p.ReportJSON(p.PackageJSON(), peer, fmt.Sprintf("the peer range of %s is %s; Pi core packages take \"*\"", core, describeJSON(peer)), fmt.Sprintf("write %q: \"*\"", core))
		}
	}
}

// runPiExtensions resolves package.json's pi field as Pi 1.6.0 does (pack.PiPackageExtensions,
// which guard reads too): files, folders, globs with ! exclusions, or the conventional
// extensions/ folder, over the files npm would pack. An entry that gives Pi nothing is a
// finding unless it is a file the build has yet to write and "files" would ship; a package
// from which Pi loads nothing at all is one too. A package whose pi field lists only skills,
// prompts or themes has no extension, and that is no fault.
func runPiExtensions(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil {
		return
	}
	source, err := fs.Sub(p.WS.FS, p.Pack.Dir)
	if err != nil {
		return
	}
	shipped, err := p.shippedFS()
	if err != nil {
		return // the packlist failure is reported once, by package-json-invalid
	}
	seen := shipped
	if pj.Private {
		seen = source // not published: Pi loads it from the folder
	}
	if pack.PiLoadsNothing(seen, pj.Value) {
		p.ReportJSON(p.PackageJSON(), orValue(pj.Get("pi"), pj.Value), pack.PiNothingMessage, pack.PiNothingHint)
		return
	}
	if pj.Private {
		return
	}
	for _, e := range pack.PiPackageExtensions(shipped, pj.Value) {
		switch e.Problem {
		case pack.PiFound:
		case pack.PiOutside:
			p.ReportJSON(p.PackageJSON(), e.At, fmt.Sprintf("pi.extensions names %s, which leaves the package", e.At.Str), "name a file or folder inside the package")
		default:
			if p.Exists(e.Path) && isDirFS(source, e.Path) {
				// A folder: what Pi would find in it in the source, and why npm leaves it out.
				files := pack.PiFilesAt(source, e.Path)
				if len(files) == 0 {
					p.ReportJSON(p.PackageJSON(), e.At, fmt.Sprintf("pi.extensions names the folder %s, in which Pi finds no extension (no index.ts or index.js, no .ts or .js file)", e.At.Str), "")
					continue
				}
				if ok, why := p.shippedOrBuilt(files[0]); !ok {
					p.ReportJSON(p.PackageJSON(), e.At, fmt.Sprintf("pi.extensions names the folder %s, whose extension %s npm would not pack: %s", e.At.Str, files[0], why), filesHint(e.Path))
				}
				continue
			}
			if ok, why := p.shippedOrBuilt(e.Path); !ok {
				hint := filesHint(e.Path)
				if why == "the file does not exist" {
					hint = "name a file that exists, or one the build writes"
				}
				p.ReportJSON(p.PackageJSON(), e.At, fmt.Sprintf("pi.extensions names %s, which npm would not pack: %s", e.At.Str, why), hint)
			}
		}
	}
}

// shippedFS is the package folder as an installed copy holds it: only the files npm would
// pack. The package.json files among them are readable (Pi's resolution reads a folder's
// package.json); the others are empty.
func (p *Pass) shippedFS() (fs.FS, error) {
	list, err := p.Shipped()
	if err != nil {
		return nil, err
	}
	m := fstest.MapFS{}
	for _, f := range list.Files() {
		mf := &fstest.MapFile{Mode: 0o644}
		if path.Base(f) == "package.json" {
			mf.Data, _ = fs.ReadFile(p.WS.FS, p.Pack.File(f))
		}
		m[f] = mf
	}
	return m, nil
}

func isDirFS(fsys fs.FS, p string) bool {
	st, err := fs.Stat(fsys, p)
	return err == nil && st.IsDir()
}
