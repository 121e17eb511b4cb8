// Package catalog generates the AgentOS root catalog, `registry.json`, from the packs of an
// agentos-extensions repository, byte for byte as the repository's own
// `scripts/update-registry.js` writes it (`JSON.stringify(registry, null, 2)`, no final newline):
// the categories (the folders of registry/curated and registry/community, the templates), one
// entry per curated pack folder `registry/curated/<category>/<name>` holding a package.json
// (id, name, package, version from package.json, category, path, description, author,
// features, tools = the manifest's extension ids, keywords, npm and repository links,
// verification fields), the templates, and the counts.
//
// Where the script is not reproducible, on purpose: its `updated` (and every `verifiedAt`) is
// the time it ran; Generate takes that time from its caller — release-plan passes the head
// commit's committer date — so regenerating twice from the same commit gives identical bytes.
// Equal compares two catalogs with those timestamps left out, and Write-style callers keep the
// file untouched when nothing else differs.
package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/plaios/plaios/internal/jsonpos"
)

// File is the catalog's path relative to the repository root.
const File = "registry.json"

// Options change what Generate writes.
type Options struct {
	// Versions overrides the version of packages by npm name (the versions a plan publishes).
	Versions map[string]string
	// Updated is the catalog's timestamp (and every curated entry's verifiedAt).
	Updated time.Time
}

// Present reports whether the repository rooted at fsys has a catalog: a registry/curated
// folder, and a registry.json or a root package.json whose `files` ships one.
func Present(fsys fs.FS) bool {
	if st, err := fs.Stat(fsys, "registry/curated"); err != nil || !st.IsDir() {
		return false
	}
	if _, err := fs.Stat(fsys, File); err == nil {
		return true
	}
	data, err := fs.ReadFile(fsys, "package.json")
	if err != nil {
		return false
	}
	v, err := jsonpos.Parse(data)
	if err != nil {
		return false
	}
	for _, f := range v.Get("files").Strings() {
		if strings.TrimPrefix(f, "./") == File {
			return true
		}
	}
	return false
}

// Timestamp formats t as JavaScript's Date.toISOString does.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Generate builds registry.json from the repository rooted at fsys.
func Generate(fsys fs.FS, opts Options) ([]byte, error) {
	updated := Timestamp(opts.Updated)
	g := &gen{fsys: fsys, opts: opts}
	curatedCats, err := subdirs(fsys, "registry/curated")
	if err != nil {
		return nil, err
	}
	communityCats, err := subdirs(fsys, "registry/community")
	if err != nil {
		return nil, err
	}
	var templateNames []string
	var templates, curated, community []any

	tdirs, err := entries(fsys, "templates")
	if err != nil {
		return nil, err
	}
	for _, t := range tdirs {
		dir := "templates/" + t
		pj, ok, err := g.readJSON(dir + "/package.json")
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		templateNames = append(templateNames, t)
		e := jsonpos.NewOrderedObject()
		set(e, "id", str("com.framers.template."+t))
		set(e, "name", or(truthy(pj.Get("description")), str(t)))
		set(e, "package", pj.Get("name"))
		set(e, "version", g.version(pj))
		set(e, "path", str(dir))
		set(e, "description", pj.Get("description"))
		set(e, "repository", str(g.repoURL()+"/tree/master/"+dir))
		templates = append(templates, e)
	}

	for _, section := range []struct {
		base string
		cats []string
		out  *[]any
	}{{"registry/curated", curatedCats, &curated}, {"registry/community", communityCats, &community}} {
		isCurated := section.base == "registry/curated"
		for _, cat := range section.cats {
			names, err := entries(fsys, section.base+"/"+cat)
			if err != nil {
				return nil, err
			}
			for _, name := range names {
				dir := section.base + "/" + cat + "/" + name
				pj, ok, err := g.readJSON(dir + "/package.json")
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				man, _, err := g.readJSON(dir + "/manifest.json")
				if err != nil {
					return nil, err
				}
				e := jsonpos.NewOrderedObject()
				idPrefix := "com.framers."
				if !isCurated {
					idPrefix = "com.community."
				}
				set(e, "id", or(truthy(man.Get("id")), str(idPrefix+cat+"."+name)))
				set(e, "name", or(truthy(man.Get("name")), pj.Get("description")))
				set(e, "package", pj.Get("name"))
				set(e, "version", g.version(pj))
				set(e, "category", str(cat))
				set(e, "path", str(dir))
				set(e, "description", or(truthy(man.Get("description")), pj.Get("description")))
				set(e, "author", or(truthy(man.Get("author")), pj.Get("author")))
				if isCurated {
					set(e, "features", or(truthy(man.Get("features")), &jsonpos.Value{Kind: jsonpos.Array}))
					set(e, "tools", tools(man.Get("extensions")))
				}
				set(e, "keywords", or(truthy(man.Get("keywords")), truthy(pj.Get("keywords")), &jsonpos.Value{Kind: jsonpos.Array}))
				set(e, "npm", str("https://www.npmjs.com/package/"+jsString(pj.Get("name"))))
				set(e, "repository", str(g.repoURL()+"/tree/master/"+dir))
				if isCurated {
					set(e, "verified", &jsonpos.Value{Kind: jsonpos.Bool, Boolean: true})
					set(e, "verifiedAt", str(updated))
					set(e, "verificationChecklistVersion", str("1.0.0"))
				}
				set(e, "downloads", num(0))
				*section.out = append(*section.out, e)
			}
		}
	}

	root := jsonpos.NewOrderedObject()
	set(root, "version", str("1.0.0"))
	set(root, "updated", str(updated))
	cats := jsonpos.NewOrderedObject()
	set(cats, "templates", strs(templateNames))
	set(cats, "curated", strs(curatedCats))
	set(cats, "community", strs(communityCats))
	set(root, "categories", cats)
	exts := jsonpos.NewOrderedObject()
	set(exts, "curated", curated)
	set(exts, "community", community)
	set(exts, "templates", templates)
	set(root, "extensions", exts)
	stats := jsonpos.NewOrderedObject()
	set(stats, "totalExtensions", num(len(curated)+len(community)+len(templates)))
	set(stats, "curatedCount", num(len(curated)))
	set(stats, "communityCount", num(len(community)))
	set(stats, "templateCount", num(len(templates)))
	set(stats, "totalDownloads", num(0))
	set(root, "stats", stats)

	return jsonpos.Stringify(root, "  "), nil
}

// Equal reports whether two catalogs hold the same data once their timestamps (`updated` and
// every entry's `verifiedAt`) are left out. A catalog that does not parse equals nothing.
func Equal(a, b []byte) bool {
	va, err1 := jsonpos.Parse(a)
	vb, err2 := jsonpos.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	return reflect.DeepEqual(withoutTimes(va.Interface()), withoutTimes(vb.Interface()))
}

func withoutTimes(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	delete(m, "updated")
	if exts, ok := m["extensions"].(map[string]any); ok {
		for _, section := range exts {
			list, _ := section.([]any)
			for _, e := range list {
				if em, ok := e.(map[string]any); ok {
					delete(em, "verifiedAt")
				}
			}
		}
	}
	return m
}

type gen struct {
	fsys fs.FS
	opts Options
	repo string
}

// readJSON reads a JSON file; ok is false when it does not exist. A file that is not JSON is
// an error, as it stops the script.
func (g *gen) readJSON(name string) (*jsonpos.Value, bool, error) {
	data, err := fs.ReadFile(g.fsys, name)
	if err != nil {
		if isNotExist(err) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("cannot read %s: %v", name, err)
	}
	v, err := jsonpos.Parse(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s is not valid JSON (%v); fix it to regenerate %s", name, err, File)
	}
	return v, true, nil
}

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func (g *gen) version(pj *jsonpos.Value) *jsonpos.Value {
	if name := pj.Get("name"); name != nil && name.Kind == jsonpos.String {
		if v, ok := g.opts.Versions[name.Str]; ok {
			return str(v)
		}
	}
	return pj.Get("version")
}

// repoURL is the GitHub address of the repository, from the root package.json
// `repository` (as the script's hard-coded framerslab/agentos-extensions).
func (g *gen) repoURL() string {
	if g.repo != "" {
		return g.repo
	}
	g.repo = "https://github.com/framerslab/agentos-extensions"
	data, err := fs.ReadFile(g.fsys, "package.json")
	if err != nil {
		return g.repo
	}
	v, err := jsonpos.Parse(data)
	if err != nil {
		return g.repo
	}
	u := v.Get("repository").Text()
	if u == "" {
		u = v.Path("repository", "url").Text()
	}
	u = strings.TrimPrefix(u, "git+")
	u = strings.TrimSuffix(u, ".git")
	if strings.HasPrefix(u, "git@github.com:") {
		u = "https://github.com/" + strings.TrimPrefix(u, "git@github.com:")
	}
	if strings.HasPrefix(u, "https://github.com/") {
		g.repo = strings.TrimRight(u, "/")
	}
	return g.repo
}

// subdirs lists the folders in dir, sorted ("" and nil when dir does not exist).
func subdirs(fsys fs.FS, dir string) ([]string, error) {
	list, err := fs.ReadDir(fsys, dir)
	if err != nil {
		if isNotExist(err) {
			return []string{}, nil
		}
		return nil, fmt.Errorf("cannot list %s: %v", dir, err)
	}
	out := []string{}
	for _, e := range list {
		if e.IsDir() {
			out = append(out, e.Name())
		} else if e.Type()&fs.ModeSymlink != 0 {
			if st, err := fs.Stat(fsys, path.Join(dir, e.Name())); err == nil && st.IsDir() {
				out = append(out, e.Name())
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// entries lists every name in dir, sorted, as readdirSync gives them.
func entries(fsys fs.FS, dir string) ([]string, error) {
	list, err := fs.ReadDir(fsys, dir)
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("cannot list %s: %v", dir, err)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out, nil
}

// tools is `manifest.extensions?.map(e => e.id) || []`.
func tools(exts *jsonpos.Value) *jsonpos.Value {
	out := &jsonpos.Value{Kind: jsonpos.Array}
	if exts == nil || exts.Kind != jsonpos.Array {
		return out
	}
	for _, e := range exts.Items {
		id := e.Get("id")
		if id == nil {
			id = &jsonpos.Value{Kind: jsonpos.Null} // [undefined] stringifies as [null]
		}
		out.Items = append(out.Items, id)
	}
	return out
}

// truthy is the value when JavaScript would take it as true in `a || b`, else nil.
func truthy(v *jsonpos.Value) *jsonpos.Value {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case jsonpos.Null:
		return nil
	case jsonpos.Bool:
		if !v.Boolean {
			return nil
		}
	case jsonpos.String:
		if v.Str == "" {
			return nil
		}
	case jsonpos.Number:
		if f := v.Float(); f == 0 || f != f {
			return nil
		}
	}
	return v
}

// or returns the first non-nil value (the last one may be a falsy value JavaScript keeps).
func or(vs ...*jsonpos.Value) *jsonpos.Value {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

func jsString(v *jsonpos.Value) string {
	if v == nil {
		return "undefined"
	}
	switch v.Kind {
	case jsonpos.String:
		return v.Str
	case jsonpos.Null:
		return "null"
	case jsonpos.Bool:
		if v.Boolean {
			return "true"
		}
		return "false"
	case jsonpos.Number:
		return formatNumber(v.Float())
	case jsonpos.Array:
		var parts []string
		for _, it := range v.Items {
			if it.Kind == jsonpos.Null {
				parts = append(parts, "")
			} else {
				parts = append(parts, jsString(it))
			}
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

func str(s string) *jsonpos.Value { return &jsonpos.Value{Kind: jsonpos.String, Str: s} }
func num(n int) *jsonpos.Value    { return &jsonpos.Value{Kind: jsonpos.Number, Raw: fmt.Sprint(n)} }

func strs(list []string) *jsonpos.Value {
	v := &jsonpos.Value{Kind: jsonpos.Array}
	for _, s := range list {
		v.Items = append(v.Items, str(s))
	}
	return v
}

// set assigns k in o unless v is nil: JSON.stringify leaves out undefined, which is what a
// missing field reads as.
func set(o *jsonpos.OrderedObject, k string, v any) {
	if v == nil {
		return
	}
	if jv, ok := v.(*jsonpos.Value); ok && jv == nil {
		return
	}
	o.Set(k, v)
}

// formatNumber prints a float as JavaScript's Number#toString.
func formatNumber(f float64) string { return jsonpos.FormatJSNumber(f) }
