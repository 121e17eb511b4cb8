// Package workspace finds a repository's root and its packages the way the package managers
// and the AgentOS role map name them: `pnpm-workspace.yaml` globs, a package.json
// `workspaces` field, or the role map `scripts/package-roles.json`. It reads through an
// fs.FS, so that the same code serves the working tree (validate, guard) and a git tree at a
// commit (release-plan), and it loads every package.json keeping positions.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/plaios/plaios/internal/jsonpos"
)

// RolesFile is the AgentOS role map, relative to the repository root.
const RolesFile = "scripts/package-roles.json"

// The roles of the role map.
const (
	RolePack     = "pack"
	RoleLibrary  = "library"
	RoleTemplate = "template"
	RoleRoot     = "root"
)

// Workspace is a repository (or a lone package) and its packages.
type Workspace struct {
	FS   fs.FS  // rooted at the repository root
	Root string // the root on disk; "" when FS is not the working tree

	// Source says how packages were found: "pnpm", "npm", "roles" or "single".
	Source string
	// PackManager is "pnpm" for pnpm workspaces, else "npm".
	PackManager string

	Roles *Roles // nil without a role map

	Packages []*Package // sorted by Dir, the root (".") first

	// Problems found while reading the workspace files themselves (a broken
	// pnpm-workspace.yaml, a role map that is not JSON, …).
	Problems []Problem

	loadMu sync.Mutex
}

// Package is one workspace package.
type Package struct {
	Dir  string       // slash path relative to the root; "." for the root
	Role string       // from the role map; "" when none is given
	JSON *PackageJSON // nil until Load when the workspace was opened with OpenLazy
}

// Problem is a fault in a workspace file, with its position.
type Problem struct {
	File    string // relative to the root
	Line    int
	Col     int
	Rule    string // the check ID it belongs to
	Message string
}

// Roles is the parsed role map.
type Roles struct {
	File           string
	Value          *jsonpos.Value
	Roles          map[string]string      // dir → role
	RolePos        map[string]jsonpos.Pos // dir → position of its key
	LibraryExports map[string][]string    // dir → function names
	Fixtures       map[string]Fixture     // dir → fixture
	Order          []string               // dirs in file order
}

// PackageJSON is a package.json with positions.
type PackageJSON struct {
	File  string         // relative to the workspace root
	Data  []byte         // the bytes as read
	Value *jsonpos.Value // nil when the file does not parse
	Err   error          // the read or parse error, if any

	Name       string
	Version    string
	Private    bool
	Workspaces []string
}

// Get returns a top-level field, or nil.
func (p *PackageJSON) Get(key string) *jsonpos.Value {
	if p == nil {
		return nil
	}
	return p.Value.Get(key)
}

// ReadPackageJSON reads dir/package.json from fsys. A missing or broken file is reported in
// Err, not as an error: validate turns it into a finding.
func ReadPackageJSON(fsys fs.FS, dir string) *PackageJSON {
	file := path.Join(dir, "package.json")
	p := &PackageJSON{File: file}
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		p.Err = err
		return p
	}
	p.Data = data
	v, err := jsonpos.Parse(data)
	if err != nil {
		p.Err = err
		return p
	}
	p.Value = v
	if v.Kind != jsonpos.Object {
		p.Err = fmt.Errorf("package.json must hold a JSON object, not %s", v.Kind)
		return p
	}
	p.Name = v.Get("name").Text()
	p.Version = v.Get("version").Text()
	if pv := v.Get("private"); pv != nil && pv.Kind == jsonpos.Bool {
		p.Private = pv.Boolean
	}
	switch ws := v.Get("workspaces"); {
	case ws == nil:
	case ws.Kind == jsonpos.Array:
		p.Workspaces = ws.Strings()
	case ws.Kind == jsonpos.Object:
		p.Workspaces = ws.Get("packages").Strings()
	}
	return p
}

// FindRoot walks up from dir on disk to the nearest folder that holds pnpm-workspace.yaml,
// a package.json with `workspaces`, or the role map, and returns it; else dir itself. It is
// where `plaios create` run in dir puts a new package; PackageRoot is the root a package
// folder belongs to.
func FindRoot(dir string) string {
	return walkUp(dir, func(root, abs string) bool { return true })
}

// PackageRoot is the root of the workspace the folder dir belongs to: the nearest folder at
// or above it that is a workspace root (FindRoot's markers) and whose workspace holds a
// package at dir or under it; else dir itself. A package folder that no workspace above it
// names is a package on its own, as npm has it (`npm prefix` run there prints the folder:
// @npmcli/config's loadLocalPrefix walks past a root whose workspaces leave it out, and stops
// at the first that lists it), so a pack kept where a repository's workspace globs do not
// reach, or a checkout inside another repository's workspace, is judged alone instead of
// refused. A folder that is a root itself is its own: validate and guard then judge its whole
// workspace, where npm would name an outer root that lists it.
func PackageRoot(dir string) string {
	return walkUp(dir, func(root, abs string) bool { return root == abs || holds(root, abs) })
}

// walkUp returns the nearest folder at or above dir that is a root and that accept takes,
// else dir (made absolute).
func walkUp(dir string, accept func(root, abs string) bool) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for cur := abs; ; {
		if isRoot(os.DirFS(cur)) && accept(cur, abs) {
			return cur
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		cur = parent
	}
}

// holds reports whether the workspace rooted at root has a package at dir or under it.
func holds(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	ws, err := discover(os.DirFS(root), true)
	return err == nil && len(ws.PackagesUnder(rel)) > 0
}

func isRoot(fsys fs.FS) bool {
	if exists(fsys, "pnpm-workspace.yaml") || exists(fsys, RolesFile) {
		return true
	}
	if _, err := fs.Stat(fsys, "package.json"); err == nil {
		pj := ReadPackageJSON(fsys, ".")
		return pj.Value.Get("workspaces") != nil
	}
	return false
}

func exists(fsys fs.FS, name string) bool {
	_, err := fs.Stat(fsys, name)
	return err == nil
}

// Open discovers the workspace whose root is the folder dir on disk.
func Open(dir string) (*Workspace, error) {
	return open(dir, false)
}

// OpenLazy is Open without reading the packages' package.json files: a caller that needs only
// some packages reads theirs with Load. Validating one package of a repository of hundreds
// costs one file instead of hundreds this way.
func OpenLazy(dir string) (*Workspace, error) {
	return open(dir, true)
}

func open(dir string, lazy bool) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("%s does not exist", dir)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	ws, err := discover(os.DirFS(abs), lazy)
	if err != nil {
		return nil, err
	}
	ws.Root = abs
	return ws, nil
}

// Discover reads the workspace rooted at fsys's top.
func Discover(fsys fs.FS) (*Workspace, error) {
	return discover(fsys, false)
}

func discover(fsys fs.FS, lazy bool) (*Workspace, error) {
	ws := &Workspace{FS: fsys, PackManager: "npm"}
	var globs []string
	hasPnpm := exists(fsys, "pnpm-workspace.yaml")
	if hasPnpm {
		ws.Source = "pnpm"
		ws.PackManager = "pnpm"
		g, prob := readPnpmWorkspace(fsys)
		if prob != nil {
			ws.Problems = append(ws.Problems, *prob)
		}
		globs = g
	}
	rootJSON := ReadPackageJSON(fsys, ".")
	if !hasPnpm && rootJSON.Value.Get("workspaces") != nil {
		ws.Source = "npm"
		globs = rootJSON.Workspaces
	}
	if exists(fsys, RolesFile) {
		roles, prob := readRoles(fsys)
		if prob != nil {
			ws.Problems = append(ws.Problems, *prob)
		}
		ws.Roles = roles
		if ws.Source == "" {
			ws.Source = "roles"
		}
	}
	if ws.Source == "" {
		ws.Source = "single"
		if rootJSON.Err != nil && errors.Is(rootJSON.Err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no package.json, pnpm-workspace.yaml or %s here: give a package folder or a repository root", RolesFile)
		}
		ws.Packages = []*Package{{Dir: ".", JSON: rootJSON}}
		return ws, nil
	}

	dirs := map[string]bool{}
	if ws.Source == "roles" {
		for _, d := range ws.Roles.Order {
			if exists(fsys, path.Join(d, "package.json")) {
				dirs[d] = true
			}
		}
	} else {
		found, err := expandGlobs(fsys, globs)
		if err != nil {
			return nil, err
		}
		for _, d := range found {
			dirs[d] = true
		}
	}
	var list []string
	for d := range dirs {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i] == "." || list[j] == "." {
			return list[i] == "."
		}
		return list[i] < list[j]
	})
	for _, d := range list {
		p := &Package{Dir: d}
		if d == "." {
			p.JSON = rootJSON
		} else if !lazy {
			p.JSON = ReadPackageJSON(fsys, d)
		}
		if ws.Roles != nil {
			p.Role = ws.Roles.Roles[d]
		}
		ws.Packages = append(ws.Packages, p)
	}
	return ws, nil
}

// Load reads the package.json of each of pkgs that OpenLazy left unread.
func (ws *Workspace) Load(pkgs ...*Package) {
	ws.loadMu.Lock()
	defer ws.loadMu.Unlock()
	for _, p := range pkgs {
		if p.JSON == nil {
			p.JSON = ReadPackageJSON(ws.FS, p.Dir)
		}
	}
}

// Package returns the package at dir, or nil.
func (ws *Workspace) Package(dir string) *Package {
	for _, p := range ws.Packages {
		if p.Dir == dir {
			return p
		}
	}
	return nil
}

// PackagesUnder is the packages whose folder is dir (slash-separated, relative to the root) or
// lies under it.
func (ws *Workspace) PackagesUnder(dir string) []*Package {
	var out []*Package
	for _, p := range ws.Packages {
		if p.Dir == dir || strings.HasPrefix(p.Dir, dir+"/") {
			out = append(out, p)
		}
	}
	return out
}

// Publishable reports whether a package may be published: role pack, library, template or
// root when there is a role map (else any package), and never `"private": true`.
func (ws *Workspace) Publishable(p *Package) bool {
	if p.JSON == nil || p.JSON.Private || p.JSON.Value == nil {
		return false
	}
	if ws.Roles != nil {
		switch p.Role {
		case RolePack, RoleLibrary, RoleTemplate, RoleRoot:
			return true
		}
		return false
	}
	return true
}

func readPnpmWorkspace(fsys fs.FS) ([]string, *Problem) {
	data, err := fs.ReadFile(fsys, "pnpm-workspace.yaml")
	if err != nil {
		return nil, &Problem{File: "pnpm-workspace.yaml", Rule: "package-json-invalid", Message: fmt.Sprintf("cannot read pnpm-workspace.yaml: %v", err)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		fmt.Sscanf(err.Error(), "yaml: line %d:", &line)
		return nil, &Problem{File: "pnpm-workspace.yaml", Line: line, Col: 1, Rule: "package-json-invalid", Message: "pnpm-workspace.yaml is not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &Problem{File: "pnpm-workspace.yaml", Line: root.Line, Col: root.Column, Rule: "package-json-invalid", Message: "pnpm-workspace.yaml must be a mapping with a `packages` list"}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "packages" {
			continue
		}
		seq := root.Content[i+1]
		if seq.Kind != yaml.SequenceNode {
			return nil, &Problem{File: "pnpm-workspace.yaml", Line: seq.Line, Col: seq.Column, Rule: "package-json-invalid", Message: "`packages` in pnpm-workspace.yaml must be a list of globs"}
		}
		var globs []string
		for _, it := range seq.Content {
			if it.Kind == yaml.ScalarNode {
				globs = append(globs, it.Value)
			}
		}
		return globs, nil
	}
	return nil, nil
}

func readRoles(fsys fs.FS) (*Roles, *Problem) {
	r := &Roles{File: RolesFile, Roles: map[string]string{}, RolePos: map[string]jsonpos.Pos{}, LibraryExports: map[string][]string{}, Fixtures: map[string]Fixture{}}
	data, err := fs.ReadFile(fsys, RolesFile)
	if err != nil {
		return r, &Problem{File: RolesFile, Rule: "role-missing", Message: fmt.Sprintf("cannot read the role map: %v", err)}
	}
	v, err := jsonpos.Parse(data)
	if err != nil {
		var se *jsonpos.SyntaxError
		p := &Problem{File: RolesFile, Rule: "role-missing", Message: "the role map is not valid JSON: " + err.Error()}
		if errors.As(err, &se) {
			p.Line, p.Col, p.Message = se.Pos.Line, se.Pos.Col, "the role map is not valid JSON: "+se.Msg
		}
		return r, p
	}
	r.Value = v
	if roles := v.Get("roles"); roles != nil && roles.Kind == jsonpos.Object {
		for _, m := range roles.Members {
			dir := cleanDir(m.Key)
			r.Roles[dir] = m.Value.Text()
			r.RolePos[dir] = m.KeyPos
			r.Order = append(r.Order, dir)
		}
	} else {
		return r, &Problem{File: RolesFile, Line: v.Pos.Line, Col: v.Pos.Col, Rule: "role-missing", Message: "the role map has no `roles` object"}
	}
	if le := v.Get("libraryExports"); le != nil && le.Kind == jsonpos.Object {
		for _, m := range le.Members {
			r.LibraryExports[cleanDir(m.Key)] = m.Value.Strings()
		}
	}
	if fx := v.Get("fixtures"); fx != nil && fx.Kind == jsonpos.Object {
		for _, m := range fx.Members {
			f := Fixture{}
			if s := m.Value.Get("secrets"); s != nil && s.Kind == jsonpos.Object {
				f.Secrets = map[string]string{}
				for _, sm := range s.Members {
					f.Secrets[sm.Key] = sm.Value.Text()
				}
			}
			if o, ok := m.Value.Get("options").Interface().(map[string]any); ok {
				f.Options = o
			}
			f.InstallScripts = m.Value.Get("installScripts").Strings()
			f.Loopback = m.Value.Get("loopback").Interface() == true
			r.Fixtures[cleanDir(m.Key)] = f
		}
	}
	return r, nil
}

func cleanDir(d string) string {
	d = path.Clean(strings.TrimPrefix(filepath.ToSlash(d), "./"))
	if d == "" {
		return "."
	}
	return d
}

// expandGlobs lists the folders holding a package.json that the workspace globs name, with
// `!` globs removing folders, as pnpm and npm read them (`*` one segment, `**` any depth,
// node_modules never entered).
func expandGlobs(fsys fs.FS, globs []string) ([]string, error) {
	var include, exclude []string
	for _, g := range globs {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		if strings.HasPrefix(g, "!") {
			exclude = append(exclude, cleanGlob(g[1:]))
		} else {
			include = append(include, cleanGlob(g))
		}
	}
	found := map[string]bool{}
	for _, g := range include {
		if !strings.ContainsAny(g, "*?[{") {
			if exists(fsys, path.Join(g, "package.json")) {
				found[g] = true
			}
			continue
		}
		base := staticPrefix(g)
		if _, err := fs.Stat(fsys, base); err != nil {
			continue
		}
		err := fs.WalkDir(fsys, base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable folders are not packages
			}
			if !d.IsDir() {
				return nil
			}
			if d.Name() == "node_modules" || (d.Name() != "." && strings.HasPrefix(d.Name(), ".") && p != base) {
				return fs.SkipDir
			}
			if Match(g, p) && exists(fsys, path.Join(p, "package.json")) {
				found[p] = true
			}
			if !strings.Contains(g, "**") && strings.Count(p, "/") >= strings.Count(g, "/") && p != "." {
				return fs.SkipDir
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var out []string
	for d := range found {
		skip := false
		for _, x := range exclude {
			if Match(x, d) {
				skip = true
				break
			}
		}
		if !skip {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out, nil
}

func cleanGlob(g string) string {
	g = strings.TrimPrefix(g, "./")
	g = strings.TrimSuffix(g, "/")
	if g == "" {
		return "."
	}
	return path.Clean(g)
}

func staticPrefix(g string) string {
	parts := strings.Split(g, "/")
	var keep []string
	for _, p := range parts {
		if strings.ContainsAny(p, "*?[{") {
			break
		}
		keep = append(keep, p)
	}
	if len(keep) == 0 {
		return "."
	}
	return strings.Join(keep, "/")
}

// Match reports whether a slash path matches a workspace glob (`*` and `?` within one
// segment, `**` across segments, `[…]` classes, `{a,b}` alternatives).
func Match(glob, name string) bool {
	for _, alt := range expandBraces(glob) {
		if matchSegments(strings.Split(alt, "/"), strings.Split(name, "/")) {
			return true
		}
	}
	return false
}

func matchSegments(g, n []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(n); i++ {
				if matchSegments(g[1:], n[i:]) {
					return true
				}
			}
			return false
		}
		if len(n) == 0 {
			return false
		}
		ok, err := path.Match(g[0], n[0])
		if err != nil || !ok {
			return false
		}
		g, n = g[1:], n[1:]
	}
	return len(n) == 0
}

func expandBraces(g string) []string {
	open := strings.IndexByte(g, '{')
	if open < 0 {
		return []string{g}
	}
	depth := 0
	for i := open; i < len(g); i++ {
		switch g[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				var out []string
				for _, alt := range splitTop(g[open+1 : i]) {
					out = append(out, expandBraces(g[:open]+alt+g[i+1:])...)
				}
				return out
			}
		}
	}
	return []string{g}
}

func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
