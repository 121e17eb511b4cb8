package scaffold

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"text/template"

	"github.com/plaios/plaios/internal/exit"
)

// Versions are the dependency ranges the templates write, kept in one place. Each is one the
// tests install and build against.
type Versions struct {
	TypeScript    string // the TypeScript the tests pin (testdata/node/templates), never a bare `latest`
	TypesNode     string
	TypesReact    string
	AgentOSPeer   string // the oldest @framers/agentos on npm the AgentOS templates compile against
	OpenClawPeer  string // the plugin API floor of `openclaw plugins init`
	OpenClawBuild string // the openclaw the tests validate with (testdata/node/openclaw)
	OpenClawNode  string // engines.node of that openclaw: the Node its install needs
	Typebox       string
	PiCodingAgent string
}

// DefaultVersions are the ranges the embedded templates use.
var DefaultVersions = Versions{
	TypeScript:    "~7.0.2",
	TypesNode:     "^20.19.0",
	TypesReact:    "^19.1.0",
	AgentOSPeer:   ">=0.9.12",
	OpenClawPeer:  ">=2026.5.17",
	OpenClawBuild: "2026.9.6",
	OpenClawNode:  ">=24.16.0 <25 || >=26.1.0",
	Typebox:       "^1.1.38",
	PiCodingAgent: "^1.6.0",
}

// Kind is one PLAIOS interface of the package being made.
type Kind struct {
	Kind   string // action
	Suffix string // Capability
	Class  string // WeatherCapability
	ID     string // weather.action
}

// Data is what every template sees.
type Data struct {
	Runtime     string
	Name        string // web-search
	Package     string // the npm name
	Description string
	Version     string
	Title       string // Web Search
	Pascal      string // WebSearch
	Camel       string // webSearch
	Snake       string // web_search
	Upper       string // WEB_SEARCH
	Category    string // AgentOS category
	Template    string // AgentOS template (tool, multi-tool, guardrail); the kind elsewhere
	Kinds       []Kind // PLAIOS interfaces, in the order given
	Kind        *Kind  // the interface a per-kind template renders for
	V           Versions

	// HostDeps are the host packages (@plaios/core, @plaios/microfrontend) that the repository
	// itself holds as pnpm workspace packages: the package then names them as
	// `workspace:*` devDependencies, since pnpm links only what a package declares, and as
	// optional peers. Elsewhere they are no peers: pnpm installs a package's own peers,
	// optional ones too, and these are on no public registry.
	HostDeps []string
}

// source is a template tree: the embedded one, with an optional overlay folder whose files win.
type source struct {
	base    fs.FS
	overlay fs.FS // nil without --template
}

func (s source) read(name string) ([]byte, error) {
	if s.overlay != nil {
		if b, err := fs.ReadFile(s.overlay, name); err == nil {
			return b, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return fs.ReadFile(s.base, name)
}

// list returns the files under dir in both trees, sorted, without duplicates.
func (s source) list(dir string) ([]string, error) {
	set := map[string]bool{}
	for _, fsys := range []fs.FS{s.base, s.overlay} {
		if fsys == nil {
			continue
		}
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == dir {
					return fs.SkipDir
				}
				return err
			}
			if d.Type().IsRegular() {
				set[p] = true
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// renderer renders the files of template sets into one package.
type renderer struct {
	src   source
	files map[string][]byte
}

// renderSet renders every file of the set dir (not `_` fragments) with data, keyed by its
// path inside the set with `__Field__` placeholders replaced. Later sets override earlier ones.
func (r *renderer) renderSet(dir string, data *Data) error {
	names, err := r.src.list(dir)
	if err != nil {
		return exit.EnvErr(fmt.Errorf("read the templates in %s: %w", dir, err))
	}
	if len(names) == 0 {
		return exit.EnvErr(fmt.Errorf("the templates have no folder %s; check --template", dir))
	}
	for _, name := range names {
		rel := strings.TrimPrefix(name, dir+"/")
		if isFragment(rel) {
			continue
		}
		out, err := r.render(name, data)
		if err != nil {
			return err
		}
		target, err := expandPath(rel, data)
		if err != nil {
			return exit.EnvErr(fmt.Errorf("template %s: %w", name, err))
		}
		r.files[target] = out
	}
	return nil
}

// render executes one template file.
func (r *renderer) render(name string, data *Data) ([]byte, error) {
	text, err := r.src.read(name)
	if err != nil {
		return nil, exit.EnvErr(fmt.Errorf("read template %s: %w", name, err))
	}
	t, err := template.New(name).Option("missingkey=error").Funcs(r.funcs(name, data)).Parse(string(text))
	if err != nil {
		return nil, exit.EnvErr(fmt.Errorf("template %s does not parse: %w", name, err))
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return nil, exit.EnvErr(fmt.Errorf("template %s: %w", name, err))
	}
	return buf.Bytes(), nil
}

func (r *renderer) funcs(name string, data *Data) template.FuncMap {
	return template.FuncMap{
		// json writes a value as JSON (a string literal for a string), without HTML escaping.
		"json": func(v any) (string, error) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				return "", err
			}
			return strings.TrimSuffix(buf.String(), "\n"), nil
		},
		// include renders the fragment name of a PLAIOS kind's folder for that kind.
		"include": func(fragment string, k Kind) (string, error) {
			d := *data
			d.Kind = &k
			out, err := r.render(path.Join("plaios", k.Kind, fragment), &d)
			return strings.TrimRight(string(out), "\n"), err
		},
		// partial renders another template file (a path from the template root) with the
		// same data.
		"partial": func(file string) (string, error) {
			if file == name {
				return "", fmt.Errorf("%s includes itself", name)
			}
			out, err := r.render(file, data)
			return string(out), err
		},
	}
}

// isFragment reports whether a template file is a fragment for others to include: its name
// starts with one underscore (two start a __Field__ placeholder).
func isFragment(p string) bool {
	base := path.Base(p)
	return strings.HasPrefix(base, "_") && !strings.HasPrefix(base, "__")
}

// expandPath replaces __Field__ in a template path by the string field of data.
func expandPath(p string, data *Data) (string, error) {
	if !strings.Contains(p, "__") {
		return p, nil
	}
	v := reflect.ValueOf(*data)
	var out strings.Builder
	for {
		i := strings.Index(p, "__")
		if i < 0 {
			out.WriteString(p)
			break
		}
		j := strings.Index(p[i+2:], "__")
		if j < 0 {
			out.WriteString(p)
			break
		}
		field := p[i+2 : i+2+j]
		f := v.FieldByName(field)
		if !f.IsValid() || f.Kind() != reflect.String {
			return "", fmt.Errorf("unknown placeholder __%s__ in the file name", field)
		}
		out.WriteString(p[:i])
		out.WriteString(f.String())
		p = p[i+2+j+2:]
	}
	return out.String(), nil
}

// overlayFS opens a --template folder.
func overlayFS(dir, given string) (fs.FS, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, exit.Usagef("--template %s is not a folder; give a folder laid out like the embedded templates (plaios/, agentos/, openclaw/, pi/)", given)
	}
	return os.DirFS(dir), nil
}
