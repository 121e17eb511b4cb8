package guard

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"

	"github.com/plaios/plaios/internal/check"
	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/npm/exports"
	"github.com/plaios/plaios/internal/npm/tarball"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/secretscan"
	"github.com/plaios/plaios/internal/workspace"
)

// importConditions are the conditions `import "<name>"` matches under Node.
var importConditions = []string{"node", "import", "default"}

// packed is what the tarball checks learned about one candidate, for the install and load
// steps.
type packed struct {
	tb       *tarball.Tarball
	pkg      *jsonpos.Value // the packed package.json
	agentos  *pack.AgentOSModel
	plaios   *pack.PLAIOSModel
	openclaw *pack.OpenClawModel
	catalog  []byte // registry.json, for the root package
	fsys     fs.FS  // the package folder the tarball unpacks to (packedFS), made once
}

// files is the package folder the tarball unpacks to.
func (p *packed) files() fs.FS {
	if p.fsys == nil {
		p.fsys = packedFS(p.tb)
	}
	return p.fsys
}

// keepFiles are the files whose content the checks need.
func keepFiles(name string) bool {
	switch name {
	case "package.json", pack.AgentOSManifest, pack.PLAIOSManifest, pack.OpenClawManifest, "registry.json":
		return true
	}
	return keepForRules(name)
}

// checkTarballs reads, hashes and checks every packed tarball, in parallel.
func (g *run) checkTarballs(results []*Result) {
	total := len(results)
	done := 0
	g.parallel(total, func(i int) {
		r := results[i]
		if r.OK && r.tarballPath != "" {
			g.checkTarball(r)
			g.applySeverity(r)
		}
		g.mu.Lock()
		done++
		d := done
		g.mu.Unlock()
		g.progress(Progress{Stage: "check", Done: d, Total: total})
	})
}

// diag adds a finding about a file of r's package (name is the path inside the package).
func (r *Result) diag(rule string, name string, at *jsonpos.Value, msg, hint string) {
	sev := check.Error
	if rl := check.Lookup(rule); rl != nil {
		sev = rl.Severity
	}
	d := check.Diagnostic{Rule: rule, Severity: sev, File: path.Join(r.Dir, name), Message: msg, Hint: hint}
	if at != nil {
		d.Line, d.Col = at.Pos.Line, at.Pos.Col
	} else if name != "" {
		d.Line, d.Col = 1, 1
	}
	r.Diagnostics = append(r.Diagnostics, d)
}

func (g *run) checkTarball(r *Result) {
	type secret struct{ name, reason string }
	var secrets []secret
	tb, err := tarball.Read(r.tarballPath, tarball.Options{
		Keep: keepFiles,
		Visit: func(name string, content []byte) {
			if reason, found := secretscan.Scan(name, content); found {
				secrets = append(secrets, secret{name, reason})
			}
		},
	})
	if err != nil {
		r.fail("the tarball cannot be read: %v", err)
		return
	}
	r.Integrity, r.Shasum, r.Files = tb.Integrity, tb.Shasum, len(tb.Files)
	p := &packed{tb: tb}
	r.packed = p

	if len(tb.Problems) > 0 {
		var list []string
		for i, pr := range tb.Problems {
			if i == 3 {
				list = append(list, fmt.Sprintf("and %d more", len(tb.Problems)-i))
				break
			}
			list = append(list, pr.String())
		}
		r.fail("the tarball has entries that would land outside the package folder: %s", strings.Join(list, "; "))
		return
	}

	data, ok := tb.Content["package.json"]
	if !ok {
		r.fail("the tarball holds no package.json")
		return
	}
	pj, err := jsonpos.Parse(data)
	if err != nil || pj.Kind != jsonpos.Object {
		r.fail("the packed package.json is not a JSON object: %v", err)
		return
	}
	p.pkg = pj
	if n, v := pj.Get("name").Text(), pj.Get("version").Text(); n != r.Name || v != r.Version {
		r.fail("the tarball holds %s@%s, not %s@%s", n, v, r.Name, r.Version)
		return
	}

	for _, s := range secrets {
		r.diag("secret-shipped", s.name, nil, fmt.Sprintf("the tarball ships %s, which looks like a credential: %s", s.name, s.reason),
			"remove it from the package (files in package.json, or .npmignore) and rotate the secret")
	}
	g.checkSpecifiers(r, pj)

	files := mapFS(tb)
	switch r.Runtime {
	case pack.AgentOS:
		if r.pk.AgentOS != nil || tb.Has(pack.AgentOSManifest) {
			g.requireManifest(r, tb, pack.AgentOSManifest)
			if tb.Has(pack.AgentOSManifest) {
				p.agentos = pack.ParseAgentOS(files, pack.AgentOSManifest)
			}
		}
		g.checkEntry(r, pj, tb)
	case pack.PLAIOS:
		if g.requireManifest(r, tb, pack.PLAIOSManifest) {
			p.plaios = pack.ParsePLAIOS(files, pack.PLAIOSManifest)
			g.checkPLAIOS(r, pj, tb, p.plaios)
		}
	case pack.OpenClaw:
		if g.requireManifest(r, tb, pack.OpenClawManifest) {
			p.openclaw = pack.ParseOpenClaw(files, pack.OpenClawManifest)
		}
		g.checkOpenClaw(r, pj, tb)
	case pack.Pi:
		g.checkPi(r, pj, tb)
	default:
		g.checkEntry(r, pj, tb)
	}
	// The root of a role map is held to its catalog whatever its runtime: the root of an
	// agentos-extensions repository is a plain package by its content.
	if r.Role == workspace.RoleRoot && tb.Has("registry.json") {
		p.catalog = tb.Content["registry.json"]
	}
}

// mapFS makes the kept files of a tarball an fs.FS, for the manifest parsers.
func mapFS(tb *tarball.Tarball) fs.FS {
	m := fstest.MapFS{}
	for name, data := range tb.Content {
		m[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return m
}

func (g *run) requireManifest(r *Result, tb *tarball.Tarball, name string) bool {
	if tb.Has(name) {
		return true
	}
	r.diag("manifest-not-shipped", "package.json", r.packed.pkg.Get("files"),
		fmt.Sprintf("the tarball lacks %s, the runtime manifest", name),
		fmt.Sprintf("add %q to files in package.json", name))
	return false
}

// checkEntry: the file `import "<name>"` loads must be in the tarball.
func (g *run) checkEntry(r *Result, pj *jsonpos.Value, tb *tarball.Tarball) {
	at := pj.Get("exports")
	if at == nil {
		at = pj.Get("main")
	}
	if _, _, err := exports.Entry(pj, tb.Has, importConditions); err == nil {
		return
	} else if target, _, err2 := exports.Entry(pj, func(string) bool { return true }, importConditions); err2 == nil {
		r.diag("entry-not-shipped", "package.json", at,
			lacking(r, target, fmt.Sprintf("the tarball lacks %s, the file import %q loads", strings.TrimPrefix(target, "./"), r.Name)),
			"build before packing, and make files in package.json cover it")
	} else {
		r.diag("entry-not-shipped", "package.json", at, fmt.Sprintf("import %q fails in the packed package: %v", r.Name, err), "")
	}
}

// checkSpecifiers: no workspace: or catalog: dependency a consumer's install reads may be left
// in the packed package.json. devDependencies are not among them: npm never installs a
// dependency's devDependencies (TestWorkspaceProtocolWithNPM shows it with real npm), so a
// workspace:* there harms nobody, and validate's workspace-protocol rule says the same.
func (g *run) checkSpecifiers(r *Result, pj *jsonpos.Value) {
	for _, field := range []string{"dependencies", "optionalDependencies", "peerDependencies"} {
		deps := pj.Get(field)
		if deps == nil || deps.Kind != jsonpos.Object {
			continue
		}
		for _, m := range deps.Members {
			spec := m.Value.Text()
			if strings.HasPrefix(spec, "workspace:") || strings.HasPrefix(spec, "catalog:") {
				r.diag("workspace-protocol", "package.json", m.Value,
					fmt.Sprintf("the packed package.json still says %s %q: %q, which nobody can install from the registry", field, m.Key, spec),
					"pack with pnpm (it rewrites these specifiers) or write a version range")
			}
		}
	}
}

// checkPLAIOS: every interface's entry and page resolve through exports to files inside.
func (g *run) checkPLAIOS(r *Result, pj *jsonpos.Value, tb *tarball.Tarball, m *pack.PLAIOSModel) {
	if m.Err != nil || m.Doc == nil {
		r.diag("plaios-manifest-invalid", pack.PLAIOSManifest, nil, "the packed agent-os.package.yaml cannot be read: "+errText(m.Err), "")
		return
	}
	ex := pj.Get("exports")
	for _, in := range m.Ifaces {
		id := pack.Scalar(in.ID)
		for _, e := range []struct {
			sub  string
			page bool
		}{{in.EntryPath(), false}, {in.WebEntryPath(), true}} {
			what := "entry"
			if e.page {
				what = "page"
			}
			target, err := exports.Resolve(ex, e.sub, importConditions)
			if err != nil {
				r.diag("plaios-entry-unresolved", pack.PLAIOSManifest, nil,
					fmt.Sprintf("the %s %q of interface %s does not resolve through exports: %v", what, e.sub, id, err),
					"add a matching key to exports in package.json")
				continue
			}
			if tb.Has(target) {
				continue
			}
			if e.page {
				r.diag("plaios-page-missing", pack.PLAIOSManifest, nil,
					lacking(r, target, fmt.Sprintf("the page of interface %s resolves to %s, which the tarball lacks", id, strings.TrimPrefix(target, "./"))),
					"build the page (web/<kind>/index.tsx) before packing and make files cover dist")
			} else {
				r.diag("entry-not-shipped", "package.json", ex,
					lacking(r, target, fmt.Sprintf("the entry of interface %s resolves to %s, which the tarball lacks", id, strings.TrimPrefix(target, "./"))),
					"build before packing, and make files in package.json cover it")
			}
		}
	}
}

// checkOpenClaw: every entry resolves to a shipped runtime file as the installed openclaw
// resolves it (openClawEntries), and the tarball keeps within the limits openclaw's install
// enforces (openClawFolderLimits).
func (g *run) checkOpenClaw(r *Result, pj *jsonpos.Value, tb *tarball.Tarball) {
	entries, at, problem := openClawEntries(pj, tb.Has)
	if problem != "" {
		r.diag("openclaw-entry", "package.json", at, problem, `list the built entry: "openclaw": {"extensions": ["./dist/index.js"]} (or the source in extensions and the built file in runtimeExtensions)`)
	}
	for _, e := range entries {
		if e.Problem != "" {
			msg := e.Problem
			if strings.HasPrefix(msg, "the tarball lacks ") {
				msg = lacking(r, e.Declared, msg)
			}
			r.diag("openclaw-entry", "package.json", e.At, msg, "build before packing, make files in package.json cover the built entry, and name it in openclaw.runtimeExtensions")
		}
	}
	if setup := pj.Path("openclaw", "setupEntry"); setup != nil || pj.Path("openclaw", "runtimeSetupEntry") != nil {
		g.checkOpenClawSetup(r, pj, tb)
	}
	if why := openClawFolderLimits(tb); why != "" {
		r.fail("%s", why)
	}
}

// checkOpenClawSetup: openclaw.setupEntry (and runtimeSetupEntry) resolve as the install
// checks them (validatePackageExtensionEntriesForInstall in
// src/plugins/package-entry-resolution.ts).
func (g *run) checkOpenClawSetup(r *Result, pj *jsonpos.Value, tb *tarball.Tarball) {
	setup := pj.Path("openclaw", "setupEntry")
	rt := pj.Path("openclaw", "runtimeSetupEntry")
	if setup == nil || strings.TrimSpace(setup.Text()) == "" {
		if rt != nil && strings.TrimSpace(rt.Text()) != "" {
			r.diag("openclaw-entry", "package.json", rt, "openclaw.runtimeSetupEntry requires openclaw.setupEntry, and openclaw refuses to install the plugin without it", "add openclaw.setupEntry")
		}
		return
	}
	var runtime []*jsonpos.Value
	if rt != nil && strings.TrimSpace(rt.Text()) != "" {
		runtime = []*jsonpos.Value{rt}
	}
	for _, e := range resolveOpenClawEntries([]*jsonpos.Value{setup}, runtime, "openclaw.setupEntry", "openclaw.runtimeSetupEntry", tb.Has) {
		if e.Problem != "" {
			msg := e.Problem
			r.diag("openclaw-entry", "package.json", e.At, msg, "build before packing, and make files in package.json cover the setup entry")
		}
	}
}

// checkPi: every pi.extensions entry names files in the tarball, as Pi resolves them
// (pack.PiPackageExtensions, which validate's pi-extension-missing reads too), and the package
// gives Pi something to load.
func (g *run) checkPi(r *Result, pj *jsonpos.Value, tb *tarball.Tarball) {
	files := r.packed.files()
	for _, e := range pack.PiPackageExtensions(files, pj) {
		var msg string
		switch e.Problem {
		case pack.PiFound:
			continue
		case pack.PiOutside:
			msg = fmt.Sprintf("pi.extensions names %s, which leaves the package", e.Path)
		case pack.PiEmptyFolder:
			msg = fmt.Sprintf("pi.extensions names the folder %s, in which Pi finds no extension (no index.ts or index.js, no .ts or .js file)", e.Path)
		default:
			msg = lacking(r, e.Path, fmt.Sprintf("the tarball lacks %s, which pi.extensions names (Pi skips it without a word)", e.Path))
		}
		r.diag("pi-extension-missing", "package.json", e.At, msg, "build before packing, and make files in package.json cover it")
	}
	if pack.PiLoadsNothing(files, pj) {
		r.diag("pi-extension-missing", "package.json", pj.Get("pi"), pack.PiNothingMessage, pack.PiNothingHint)
	}
}

// lacking words a finding about a file the tarball lacks: when the package folder lacks it too
// and a build script would make it, the package is simply not built, and the finding says so
// and how to build it (pack.Pack.NotBuilt).
func lacking(r *Result, file, msg string) string {
	if r.pk != nil {
		if nb := r.pk.NotBuilt(file, r.Dir); nb != "" {
			return nb
		}
	}
	return msg
}

func size(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func errText(err error) string {
	if err == nil {
		return "it is not a mapping"
	}
	return err.Error()
}
