// Package scaffold renders the embedded templates (package templates) into a new extension
// pack: it resolves the runtime, the kinds, the npm name and the folder from the options and
// the repository around the working directory, refuses what it cannot make before writing
// anything, writes the package all at once (a staging folder renamed into place, undone on
// any failure), adds the folder to the AgentOS role map when the repository has one, and runs
// the package manager. It knows nothing of cobra or terminals: cmd/create.go drives it.
package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/workspace"
	"github.com/plaios/plaios/templates"
)

// Version is the version every new package starts at.
const Version = "0.1.0"

// DefaultCategory is the AgentOS category of a pack made without --category: tools, except
// for a guardrail, which goes under safety (both exist in the curated registry).
func DefaultCategory(template string) string {
	if template == "guardrail" {
		return "safety"
	}
	return "tools"
}

// Options are the inputs of one `create`.
type Options struct {
	Kinds       []string // empty: the runtime's default kind
	Name        string
	Runtime     string // empty: detected from the repository, else plaios
	Dir         string // where the package goes; relative to WorkDir; empty: the runtime's layout
	WorkDir     string // the working directory (after -C)
	Category    string // AgentOS only
	Scope       string // npm scope; empty: @plaios for PLAIOS, @framers for AgentOS, none else
	Description string
	Template    string // a folder laid out like templates/ whose files override the embedded ones
	Force       bool   // write into an existing, non-empty folder

	// Templates replaces the embedded templates (tests).
	Templates fs.FS
}

// File is one file of the new package.
type File struct {
	Path string // slash path inside the package folder
	Data []byte
}

// Scaffold is a package ready to be written.
type Scaffold struct {
	Runtime  string
	Name     string
	Package  string // npm name
	Kinds    []string
	Category string // AgentOS
	Root     string // repository root
	Dir      string // the package folder (absolute)
	Exists   bool   // Dir exists and is not empty (only with Force)
	Files    []File // sorted by path

	// RoleMap is the role map change, nil when the repository has no role map or already
	// names the folder.
	RoleMap *RoleMapEdit
}

// RoleMapEdit adds the package folder to scripts/package-roles.json.
type RoleMapEdit struct {
	Path string // the file (absolute)
	Key  string // the folder, relative to the root
	Role string
	Old  []byte
	New  []byte
}

// Plan resolves the options against the repository and renders every file, writing nothing.
// Every refusal is an exit-2 error whose message names the valid choices.
func Plan(opts Options) (*Scaffold, error) {
	if err := CheckName(opts.Name); err != nil {
		return nil, err
	}
	work := opts.WorkDir
	if work == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, exit.EnvErr(fmt.Errorf("find the working directory: %w", err))
		}
		work = wd
	}
	work, err := filepath.Abs(work)
	if err != nil {
		return nil, exit.EnvErr(err)
	}
	root := workspace.FindRoot(work)

	runtime := opts.Runtime
	if runtime == "" {
		runtime = DetectRuntime(root)
	}
	if err := CheckRuntime(runtime); err != nil {
		return nil, err
	}
	if len(opts.Kinds) == 0 && isKind(runtime, opts.Name) {
		// `plaios create memory`: almost surely a kind without a name, not a pack named memory.
		return nil, exit.Usagef("%s is a kind, not a name: did you mean `plaios create %s NAME` or `--kind %s`?", opts.Name, opts.Name, opts.Name)
	}
	kinds, err := checkKinds(runtime, opts.Kinds)
	if err != nil {
		return nil, err
	}
	if opts.Category != "" && runtime != AgentOS {
		return nil, exit.Usagef("--category applies to runtime agentos only (this package is for %s); leave it out", runtime)
	}
	category := ""
	if runtime == AgentOS {
		category = opts.Category
		if category == "" {
			category = DefaultCategory(kinds[0])
		}
		if !kebab().MatchString(category) {
			return nil, exit.Usagef("--category %q is not a folder name in kebab case; use one like research, channels or tools", category)
		}
	}
	pkgName, err := npmName(runtime, opts.Name, opts.Scope)
	if err != nil {
		return nil, err
	}
	desc := opts.Description
	if desc == "" {
		desc = defaultDescription(runtime, kinds[0], opts.Name)
	}
	if strings.IndexFunc(desc, unicode.IsControl) >= 0 {
		return nil, exit.Usagef("--description must be one line of text without control characters")
	}

	dir := opts.Dir
	switch {
	case dir == "" && runtime == AgentOS:
		dir = filepath.Join(root, "registry", "curated", category, opts.Name)
	case dir == "":
		dir = filepath.Join(root, "packages", opts.Name)
	case !filepath.IsAbs(dir):
		dir = filepath.Join(work, dir)
	}
	dir = filepath.Clean(dir)
	exists, err := nonEmpty(dir)
	if err != nil {
		return nil, err
	}
	if exists && !opts.Force {
		return nil, exit.Usagef("%s already exists and is not empty; choose another name or --dir, or pass --force to overwrite the files plaios writes there", relTo(work, dir))
	}

	src := source{base: opts.Templates}
	if src.base == nil {
		src.base = templates.FS
	}
	if opts.Template != "" {
		t := opts.Template
		if !filepath.IsAbs(t) {
			t = filepath.Join(work, t)
		}
		if src.overlay, err = overlayFS(t, opts.Template); err != nil {
			return nil, err
		}
	}
	data := &Data{
		Runtime:     runtime,
		Name:        opts.Name,
		Package:     pkgName,
		Description: desc,
		Version:     Version,
		Title:       Title(opts.Name),
		Pascal:      Pascal(opts.Name),
		Camel:       Camel(opts.Name),
		Snake:       Snake(opts.Name),
		Upper:       Upper(opts.Name),
		Category:    category,
		Template:    kinds[0],
		V:           DefaultVersions,
	}
	r := &renderer{src: src, files: map[string][]byte{}}
	switch runtime {
	case PLAIOS:
		data.HostDeps = hostDeps(root)
		for _, k := range kinds {
			data.Kinds = append(data.Kinds, Kind{Kind: k, Suffix: suffix(k), Class: Pascal(opts.Name) + suffix(k), ID: opts.Name + "." + k})
		}
		if err := r.renderSet("plaios/package", data); err != nil {
			return nil, err
		}
		for i := range data.Kinds {
			d := *data
			d.Kind = &data.Kinds[i]
			if err := r.renderSet("plaios/"+d.Kind.Kind, &d); err != nil {
				return nil, err
			}
		}
	case AgentOS:
		if err := r.renderSet("agentos/common", data); err != nil {
			return nil, err
		}
		if err := r.renderSet("agentos/"+kinds[0], data); err != nil {
			return nil, err
		}
	default:
		if err := r.renderSet(runtime+"/"+kinds[0], data); err != nil {
			return nil, err
		}
	}

	s := &Scaffold{Runtime: runtime, Name: opts.Name, Package: pkgName, Kinds: kinds, Category: category, Root: root, Dir: dir, Exists: exists}
	for p, b := range r.files {
		if !fs.ValidPath(p) || strings.HasPrefix(p, "../") {
			return nil, exit.EnvErr(fmt.Errorf("template file %s would be written outside the package", p))
		}
		s.Files = append(s.Files, File{Path: p, Data: b})
	}
	sort.Slice(s.Files, func(i, j int) bool { return s.Files[i].Path < s.Files[j].Path })
	if s.RoleMap, err = planRoleMap(root, dir); err != nil {
		return nil, err
	}
	return s, nil
}

// hostDeps returns the PLAIOS host packages that are workspace packages of a pnpm repository
// at root, sorted.
func hostDeps(root string) []string {
	if _, err := os.Stat(filepath.Join(root, "pnpm-workspace.yaml")); err != nil {
		return nil
	}
	ws, err := workspace.Open(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range ws.Packages {
		if p.JSON == nil {
			continue
		}
		if n := p.JSON.Name; n == "@plaios/core" || n == "@plaios/microfrontend" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// DetectRuntime guesses the runtime of the repository at root: a registry/curated folder
// means AgentOS, PLAIOS manifests (agent-os.package.yaml) in the packages mean PLAIOS, and
// anything else is PLAIOS too.
func DetectRuntime(root string) string {
	if st, err := os.Stat(filepath.Join(root, "registry", "curated")); err == nil && st.IsDir() {
		return AgentOS
	}
	return PLAIOS
}

// npmName is the package's npm name: @framers/agentos-ext-<name> for AgentOS (the scope may
// be replaced), @scope/<name> elsewhere, @plaios/<name> for PLAIOS without a scope, and
// openclaw-plugin-<name> or pi-<name> unscoped.
func npmName(runtime, name, scope string) (string, error) {
	if scope != "" {
		s, err := checkScope(scope)
		if err != nil {
			return "", err
		}
		scope = s
	}
	switch runtime {
	case AgentOS:
		if scope == "" {
			scope = "@framers"
		}
		return scope + "/agentos-ext-" + name, nil
	case PLAIOS:
		if scope == "" {
			scope = "@plaios"
		}
	case OpenClaw:
		if scope == "" {
			return "openclaw-plugin-" + name, nil
		}
	case Pi:
		if scope == "" {
			return "pi-" + name, nil
		}
	}
	return scope + "/" + name, nil
}

func defaultDescription(runtime, kind, name string) string {
	t := Title(name)
	switch runtime {
	case AgentOS:
		if kind == "guardrail" {
			return t + " guardrail for AgentOS"
		}
		return t + " tools for AgentOS"
	case OpenClaw:
		return "Add " + t + " tools to OpenClaw."
	case Pi:
		return t + " tools for Pi"
	}
	return t + " for PLAIOS"
}

// nonEmpty reports whether dir exists with something in it. A file where the folder should be
// is a refusal of its own.
func nonEmpty(dir string) (bool, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, exit.EnvErr(fmt.Errorf("look at %s: %w", dir, err))
	}
	if !st.IsDir() {
		return false, exit.Usagef("%s is a file, not a folder; choose another name or --dir", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, exit.EnvErr(fmt.Errorf("read %s: %w", dir, err))
	}
	return len(entries) > 0, nil
}

// relTo returns p relative to base when it lies inside it, else p, in slash form.
func relTo(base, p string) string {
	if rel, err := filepath.Rel(base, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

// planRoleMap prepares the role map change when root has scripts/package-roles.json and dir
// lies inside root.
func planRoleMap(root, dir string) (*RoleMapEdit, error) {
	file := filepath.Join(root, filepath.FromSlash(workspace.RolesFile))
	old, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, exit.EnvErr(fmt.Errorf("read %s: %w", workspace.RolesFile, err))
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, nil // outside the repository: not a workspace package
	}
	key := path.Clean(filepath.ToSlash(rel))
	updated, added, err := AddRole(old, key, workspace.RolePack)
	if err != nil {
		return nil, exit.Usagef("%s: %v; fix the role map first", workspace.RolesFile, err)
	}
	if !added {
		return nil, nil
	}
	return &RoleMapEdit{Path: file, Key: key, Role: workspace.RolePack, Old: old, New: updated}, nil
}
