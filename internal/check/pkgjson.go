package check

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/npm/exports"
	"github.com/plaios/plaios/internal/npm/packlist"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/secretscan"
	"github.com/plaios/plaios/internal/semver"
)

var (
	packageJSONInvalidRule = &Rule{ID: "package-json-invalid", Severity: Error, Family: "Any package", Run: runPackageJSON,
		Help: "package.json must exist, be valid JSON (npm reads it with JSON.parse: no comments, no trailing commas), hold an object, and give each field npm reads the type npm expects: `name`, `version`, `main`, `type`, `license`, `description` strings; `private` a boolean; `files` and `keywords` lists of strings; `bin` a string or an object of strings; the dependency fields objects of version strings; `exports` a string, a list, an object or null. A package.json npm cannot read publishes nothing, or publishes something else than you think."}
	packageNameInvalidRule = &Rule{ID: "package-name-invalid", Severity: Error, Family: "Any package", Run: runPackageName,
		Help: "The `name` must be a name npm accepts for a new package: at most 214 characters, lower case, URL-safe, not starting with `.` or `_`, not a Node.js core module or a blocked name, in the form `name` or `@scope/name`. npm refuses to publish any other name."}
	packageVersionInvalidRule = &Rule{ID: "package-version-invalid", Severity: Error, Family: "Any package", Run: runPackageVersion,
		Help: "The `version` must be a semantic version (`MAJOR.MINOR.PATCH`, optionally `-prerelease` and `+build`). npm refuses to publish without one, and release-plan cannot compare versions it cannot read."}
	exportsTargetInvalidRule = &Rule{ID: "exports-target-invalid", Severity: Error, Family: "Any package", Run: runExportsTargets,
		Help: "Every `exports` target must start with `./` and stay inside the package: no `.`, `..` or `node_modules` segment (percent-encoded ones included), and one level of an exports object must hold either subpaths (`.`, `./x`) or conditions (`import`, `default`), never both. Node refuses such targets with ERR_INVALID_PACKAGE_TARGET or ERR_INVALID_PACKAGE_CONFIG when the package is imported."}
	entryNotShippedRule = &Rule{ID: "entry-not-shipped", Severity: Error, Family: "Any package", Run: runEntryShipped,
		Help: "The file `import \"<name>\"` loads — found as Node finds it: `exports` first, then `main`, then `index.js` — must be among the files npm packs, or the published package cannot be imported. Before a build, a file under the output folder (`dist/`, or tsconfig's `outDir`) counts as shipped when `files` covers its path; `plaios guard` then checks the real tarball."}
	manifestNotShippedRule = &Rule{ID: "manifest-not-shipped", Severity: Error, Family: "Any package", Run: runManifestShipped,
		Help: "The runtime manifest (`manifest.json`, `agent-os.package.yaml`, `openclaw.plugin.json`) must be among the files npm packs: a package without it installs as an empty box the runtime cannot load. Add it to `files`."}
	workspaceProtocolRule = &Rule{ID: "workspace-protocol", Severity: Error, Family: "Any package", Run: runWorkspaceProtocol,
		Help: "A `workspace:` or `catalog:` specifier in `dependencies`, `peerDependencies` or `optionalDependencies` only means something inside the monorepo. pnpm rewrites it to a real version when it packs; npm publishes it as written, and `npm install` of the result fails with EUNSUPPORTEDPROTOCOL. Publish with pnpm, or write the version range. In `devDependencies` it is harmless: npm never installs a dependency's devDependencies, so the published package installs, and this rule never fires there."}
	secretShippedRule = &Rule{ID: "secret-shipped", Severity: Error, Family: "Any package", Run: runSecretShipped,
		Help: "A file npm would pack looks like a credential: a `.env` file, a private key, an `.npmrc` holding a token, or an npm, GitHub or AWS token inside a file. Published files are public forever; remove the file from the package (`files`, `.npmignore`) and rotate the secret."}
	readmeMissingRule = &Rule{ID: "readme-missing", Severity: Warning, Family: "Any package", Run: runReadme,
		Help: "A published pack needs a README with at least one fenced code example (```), so that people (and agents reading the registry) can see how to install and use it."}
)

func runPackageJSON(p *Pass) {
	pj := p.Pack.JSON()
	file := p.PackageJSON()
	if pj.Err != nil {
		var se *jsonpos.SyntaxError
		switch {
		case errors.Is(pj.Err, fs.ErrNotExist):
			p.Report(file, 1, 1, "there is no package.json in this package folder", "run npm init, or point plaios at the package folder")
		case errors.As(pj.Err, &se):
			p.Report(file, se.Pos.Line, se.Pos.Col, "package.json is not valid JSON: "+se.Msg, "npm reads package.json with JSON.parse: remove comments and trailing commas")
		default:
			p.Report(file, 1, 1, "package.json cannot be read: "+pj.Err.Error(), "")
		}
		return
	}
	v := pj.Value
	want := func(key string, kinds ...jsonpos.Kind) {
		m := v.Member(key)
		if m == nil {
			return
		}
		for _, k := range kinds {
			if m.Value.Kind == k {
				return
			}
		}
		var names []string
		for _, k := range kinds {
			names = append(names, article(k.String()))
		}
		p.ReportJSON(file, m.Value, fmt.Sprintf("%q must be %s, not %s", key, strings.Join(names, " or "), article(m.Value.Kind.String())), "")
	}
	for _, k := range []string{"name", "version", "main", "type", "license", "description", "types", "typings", "module", "packageManager"} {
		want(k, jsonpos.String)
	}
	want("private", jsonpos.Bool)
	want("files", jsonpos.Array)
	want("keywords", jsonpos.Array)
	want("bin", jsonpos.String, jsonpos.Object)
	want("exports", jsonpos.String, jsonpos.Array, jsonpos.Object, jsonpos.Null)
	want("publishConfig", jsonpos.Object)
	want("scripts", jsonpos.Object)
	want("workspaces", jsonpos.Array, jsonpos.Object)
	for _, arr := range []string{"files", "keywords"} {
		if a := v.Get(arr); a != nil && a.Kind == jsonpos.Array {
			for _, it := range a.Items {
				if it.Kind != jsonpos.String {
					p.ReportJSON(file, it, fmt.Sprintf("every item of %q must be a string, not %s", arr, article(it.Kind.String())), "")
				}
			}
		}
	}
	for _, dep := range depFields {
		d := v.Member(dep)
		if d == nil {
			continue
		}
		if d.Value.Kind != jsonpos.Object {
			p.ReportJSON(file, d.Value, fmt.Sprintf("%q must be an object of package names and version ranges, not %s", dep, article(d.Value.Kind.String())), "")
			continue
		}
		for _, m := range d.Value.Members {
			if m.Value.Kind != jsonpos.String {
				p.ReportJSON(file, m.Value, fmt.Sprintf("the version range of %q in %q must be a string, not %s", m.Key, dep, article(m.Value.Kind.String())), "")
			}
		}
	}
	if t := v.Get("type"); t.IsString() && t.Str != "module" && t.Str != "commonjs" {
		p.ReportJSON(file, t, fmt.Sprintf("\"type\" is %q; Node reads only \"module\" or \"commonjs\"", t.Str), "")
	}
}

var depFields = []string{"dependencies", "devDependencies", "peerDependencies", "optionalDependencies"}

func article(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + s
	}
	return "a " + s
}

// nodeBuiltins are the Node.js core module names npm refuses as package names.
var nodeBuiltins = func() map[string]bool {
	m := map[string]bool{}
	for _, b := range strings.Fields(`assert assert/strict async_hooks buffer child_process cluster console constants crypto
	dgram diagnostics_channel dns dns/promises domain events fs fs/promises http http2 https inspector module net os path
	path/posix path/win32 perf_hooks process punycode querystring readline readline/promises repl stream
	stream/consumers stream/promises stream/web string_decoder sys timers timers/promises tls trace_events tty url util
	util/types v8 vm wasi worker_threads zlib test sea sqlite`) {
		m[b] = true
	}
	return m
}()

// splitName splits a package name as `^(?:@([^/]+?)/)?([^/]+?)$` does: an optional scope and
// the name after it; ok is false when the name has any other shape.
func splitName(name string) (scope, last string, ok bool) {
	if strings.HasPrefix(name, "@") {
		if i := strings.IndexByte(name, '/'); i > 1 && i+1 < len(name) && !strings.Contains(name[i+1:], "/") {
			return name[1:i], name[i+1:], true
		}
	}
	if name != "" && !strings.Contains(name, "/") {
		return "", name, true
	}
	return "", "", false
}

// NPMNameProblem says why npm would refuse name for a new package ("" when it is valid),
// following validate-npm-package-name.
func NPMNameProblem(name string) string {
	switch {
	case name == "":
		return "the name is empty"
	case strings.HasPrefix(name, "."):
		return "a name cannot start with a period"
	case strings.HasPrefix(name, "_"):
		return "a name cannot start with an underscore"
	case strings.TrimSpace(name) != name:
		return "a name cannot have leading or trailing spaces"
	case name == "node_modules" || name == "favicon.ico":
		return fmt.Sprintf("%q is a blocked name", name)
	case nodeBuiltins[name]:
		return fmt.Sprintf("%q is a Node.js core module name", name)
	case len(name) > 214:
		return "a name cannot be longer than 214 characters"
	case strings.ToLower(name) != name:
		return "a name cannot contain capital letters"
	}
	scope, last, ok := splitName(name)
	if !ok {
		last = name
	}
	if strings.ContainsAny(last, "~'!()*") {
		return "a name cannot contain special characters (\"~'!()*\")"
	}
	if !ok {
		return "a name must be URL-safe (one optional @scope/ then the name)"
	}
	for _, part := range []string{scope, last} {
		if part != "" && url.PathEscape(part) != part || strings.ContainsAny(part, ":@/?#[]$&+,;= ") {
			return "a name can only contain URL-safe characters"
		}
	}
	return ""
}

func runPackageName(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil || pj.Value.Kind != jsonpos.Object {
		return
	}
	file := p.PackageJSON()
	m := pj.Value.Member("name")
	if m == nil {
		if !pj.Private {
			p.Report(file, 1, 1, "package.json has no \"name\"; npm cannot publish a package without one", "add \"name\", or \"private\": true if it is not meant to be published")
		}
		return
	}
	if m.Value.Kind != jsonpos.String {
		return // package-json-invalid says so
	}
	if why := NPMNameProblem(m.Value.Str); why != "" {
		hint := ""
		if strings.ToLower(m.Value.Str) != m.Value.Str {
			hint = fmt.Sprintf("write %q", strings.ToLower(m.Value.Str))
		}
		p.ReportJSON(file, m.Value, fmt.Sprintf("%q is not a valid npm package name: %s", m.Value.Str, why), hint)
	}
}

func runPackageVersion(p *Pass) {
	pj := p.Pack.JSON()
	if pj.Value == nil || pj.Value.Kind != jsonpos.Object {
		return
	}
	file := p.PackageJSON()
	m := pj.Value.Member("version")
	if m == nil {
		if !pj.Private {
			p.Report(file, 1, 1, "package.json has no \"version\"; npm cannot publish a package without one", "add \"version\": \"0.1.0\"")
		}
		return
	}
	if m.Value.Kind != jsonpos.String {
		return
	}
	if problem := SemverProblem(m.Value.Str); problem != "" {
		p.ReportJSON(file, m.Value, fmt.Sprintf("version %q is not a semantic version: %s", m.Value.Str, problem), versionHint(m.Value.Str))
	}
}

// SemverProblem says why s is not a strict semantic version ("" when it is one).
func SemverProblem(s string) string {
	if len(s) > 256 {
		return "it is longer than 256 characters"
	}
	if _, err := semver.Parse(s); err != nil {
		switch {
		case strings.HasPrefix(s, "v") || strings.HasPrefix(s, "="):
			return "drop the leading " + s[:1]
		case strings.Count(strings.SplitN(strings.SplitN(s, "-", 2)[0], "+", 2)[0], ".") != 2:
			return "it needs exactly three numbers, MAJOR.MINOR.PATCH"
		}
		return "write MAJOR.MINOR.PATCH with optional -prerelease and +build parts"
	}
	return ""
}

func versionHint(s string) string {
	if v, err := semver.ParseLoose(s); err == nil {
		return fmt.Sprintf("write %q", v.String())
	}
	return ""
}

func runExportsTargets(p *Pass) {
	ex := p.Pack.JSON().Get("exports")
	if ex == nil {
		return
	}
	for _, prob := range exports.Problems(ex) {
		p.Report(p.PackageJSON(), prob.Pos.Line, prob.Pos.Col, prob.Message, "exports targets start with \"./\" and stay inside the package")
	}
}

// importConditions are the conditions `import "<name>"` matches under Node.
var importConditions = []string{"node", "import", "default"}

// outputDirs returns the folders a build writes into: tsconfig's outDir, else dist.
func (p *Pass) outputDirs() []string {
	dirs := []string{"dist"}
	data, err := fs.ReadFile(p.WS.FS, p.Pack.File("tsconfig.json"))
	if err != nil {
		return dirs
	}
	v, err := jsonpos.ParseJSON5(data)
	if err != nil {
		return dirs
	}
	if out := v.Path("compilerOptions", "outDir").Text(); out != "" {
		out = strings.TrimSuffix(strings.TrimPrefix(path.Clean(out), "./"), "/")
		if out != "dist" && out != "." && !strings.HasPrefix(out, "..") {
			dirs = append(dirs, out)
		}
	}
	return dirs
}

// shippedOrBuilt reports whether rel (a path inside the package, "./" optional) will be in
// the tarball: it is packed, or it is not built yet and `files` covers its place in an
// output folder. When it will not be, why says so in a phrase.
func (p *Pass) shippedOrBuilt(rel string) (ok bool, why string) {
	rel = strings.TrimPrefix(path.Clean(strings.TrimPrefix(rel, "./")), "/")
	list, err := p.Shipped()
	if err != nil {
		return true, "" // the packlist failure is reported once, by package-json-invalid or the caller
	}
	if list.Has(rel) {
		return true, ""
	}
	if p.Exists(rel) {
		return false, list.Why(rel)
	}
	if p.inOutputDir(rel) {
		if list.Covers(rel) {
			return true, ""
		}
		return false, "it is not built yet, and \"files\" would not ship it once built"
	}
	if list.Covers(rel) {
		return false, "the file does not exist"
	}
	return false, "the file does not exist, and \"files\" would not ship it"
}

// inOutputDir reports whether rel lies in a folder a build writes.
func (p *Pass) inOutputDir(rel string) bool {
	rel = strings.TrimPrefix(path.Clean(strings.TrimPrefix(rel, "./")), "/")
	for _, out := range p.outputDirs() {
		if rel == out || strings.HasPrefix(rel, out+"/") {
			return true
		}
	}
	return false
}

func runEntryShipped(p *Pass) {
	pj := p.Pack.JSON()
	v := pj.Value
	if v == nil || v.Kind != jsonpos.Object || pj.Private {
		return
	}
	if v.Get("exports") == nil && v.Get("main") == nil && !needsEntry(p.Pack) {
		return
	}
	file := p.PackageJSON()
	at := v.Get("exports")
	if at == nil {
		at = v.Get("main")
	}
	var target, how string
	if ex := v.Get("exports"); ex != nil {
		// Node resolves exports without looking at the disk; whether the file is there is
		// the shipping question below.
		t, err := exports.Resolve(ex, ".", importConditions)
		if err != nil {
			p.ReportJSON(file, at, fmt.Sprintf("import %q fails: %v", displayName(p), err), "")
			return
		}
		target, how = strings.TrimPrefix(t, "./"), `exports "."`
	} else {
		// The legacy lookup tries main, main.js, main/index.js…: a file is there when it is
		// on disk or a build will write it.
		exists := func(rel string) bool {
			rel = strings.TrimPrefix(rel, "./")
			return p.Exists(rel) || p.inOutputDir(rel)
		}
		t, h, err := exports.Entry(v, exists, importConditions)
		if err != nil {
			p.ReportJSON(file, at, fmt.Sprintf("import %q fails: %v", displayName(p), err), "")
			return
		}
		target, how = t, h
	}
	if _, err := p.Shipped(); err != nil {
		var me *packlist.ManifestError
		if !errors.As(err, &me) { // package-json-invalid reports package.json's own faults
			p.ReportJSON(file, v.Get("files"), "cannot list the files npm would pack: "+err.Error(), "")
		}
		return
	}
	if ok, why := p.shippedOrBuilt(target); !ok {
		p.ReportJSON(file, at, fmt.Sprintf("import %q loads %s (%s), which npm would not pack: %s", displayName(p), target, how, why), filesHint(target))
	}
}

func displayName(p *Pass) string {
	if n := p.Pack.Name(); n != "" {
		return n
	}
	return p.Pack.Dir
}

// needsEntry reports whether the runtime loads the package by importing it.
func needsEntry(pk *pack.Pack) bool {
	switch pk.Runtime {
	case pack.AgentOS:
		return pk.Role != "template"
	case pack.PLAIOS:
		return true
	}
	return false
}

func filesHint(target string) string {
	top := strings.SplitN(strings.TrimPrefix(target, "./"), "/", 2)[0]
	return fmt.Sprintf("add %q to \"files\" in package.json", top)
}

func runManifestShipped(p *Pass) {
	name := p.Pack.ManifestFile()
	if name == "" || !p.Exists(name) || p.Pack.JSON().Value == nil || p.Pack.JSON().Private {
		return
	}
	list, err := p.Shipped()
	if err != nil || list.Has(name) {
		return
	}
	p.ReportJSON(p.PackageJSON(), p.Pack.JSON().Get("files"), fmt.Sprintf("%s is not among the files npm would pack: %s", name, list.Why(name)), fmt.Sprintf("add %q to \"files\" in package.json", name))
}

func runWorkspaceProtocol(p *Pass) {
	v := p.Pack.JSON().Value
	if v == nil || p.Pack.JSON().Private || p.PackManager() == "pnpm" {
		return
	}
	for _, field := range []string{"dependencies", "peerDependencies", "optionalDependencies"} {
		deps := v.Get(field)
		if deps == nil || deps.Kind != jsonpos.Object {
			continue
		}
		for _, m := range deps.Members {
			spec := m.Value.Text()
			for _, proto := range []string{"workspace:", "catalog:"} {
				if strings.HasPrefix(spec, proto) {
					p.ReportJSON(p.PackageJSON(), m.Value, fmt.Sprintf("%s %q is %q, which npm would publish as written and nobody could install", field, m.Key, spec), "publish with pnpm (set packManager: pnpm), or write a version range")
				}
			}
		}
	}
}

func runSecretShipped(p *Pass) {
	if p.Pack.JSON().Value == nil || p.Pack.JSON().Private {
		return
	}
	list, err := p.Shipped()
	if err != nil {
		return
	}
	// Streamed through one window: a shipped file of any size, and any number of them, cost a
	// bounded amount of memory.
	var scanner secretscan.Scanner
	for _, f := range list.Files() {
		file, err := p.WS.FS.Open(p.Pack.File(f))
		if err != nil {
			continue
		}
		reason, found, err := scanner.ScanReader(f, file)
		file.Close()
		if err == nil && found {
			p.Report(p.Pack.File(f), 1, 1, fmt.Sprintf("%s would be published: it looks like %s", f, reason), "leave it out of the package (\"files\" or .npmignore) and rotate the secret")
		}
	}
}

// hasFence reports whether a line of text opens a fenced code block: up to three spaces,
// then ``` or ~~~ (CommonMark), as `(?m)^ {0,3}(```|~~~)` finds.
func hasFence(text []byte) bool {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		n := 0
		for n < 3 && n < len(line) && line[n] == ' ' {
			n++
		}
		if bytes.HasPrefix(line[n:], []byte("```")) || bytes.HasPrefix(line[n:], []byte("~~~")) {
			return true
		}
	}
	return false
}

func runReadme(p *Pass) {
	if p.Pack.JSON().Value == nil || p.Pack.JSON().Private {
		return
	}
	entries, err := fs.ReadDir(p.WS.FS, p.Pack.Dir)
	if err != nil {
		return
	}
	var readmes []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasPrefix(strings.ToLower(e.Name()), "readme") {
			readmes = append(readmes, e.Name())
		}
	}
	sort.Strings(readmes)
	if len(readmes) == 0 {
		p.Report(p.PackageJSON(), 1, 1, "the package has no README", "add README.md with installation, configuration and a fenced code example")
		return
	}
	for _, r := range readmes {
		data, err := fs.ReadFile(p.WS.FS, p.Pack.File(r))
		if err == nil && hasFence(data) {
			return
		}
	}
	p.Report(p.Pack.File(readmes[0]), 1, 1, readmes[0]+" has no fenced code example", "add an example in a ``` block")
}
