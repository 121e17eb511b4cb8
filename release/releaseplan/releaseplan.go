// Package releaseplan makes the release plan of a merged pull request from a real repository,
// for `plaios release-plan`: it reads both ends of the pull request from git objects (never the
// working tree), computes each package's shipped files with the Go packlist at both ends, reads
// the published versions of the packages that matter from the registry (concurrently) and the
// `<name>@<version>` tags from git, and hands all of it to release.Build. Write then writes the
// plan's versions into the working tree, changing only the version text, and regenerates the
// AgentOS catalog — all files or none.
package releaseplan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/plaios/plaios/internal/catalog"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/git"
	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/npm/packlist"
	"github.com/plaios/plaios/internal/npm/registry"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/workspace"
	"github.com/plaios/plaios/release"
)

// Options are the inputs of one plan.
type Options struct {
	Dir  string // where plaios runs: the workspace root or a folder inside it
	Base string // "" for the first parent of Head
	Head string // "" for HEAD

	// The pull request. When TitleSet is false the head commit's message is used instead
	// (subject and body, as a squash merge writes them; a GitHub merge commit's
	// "Merge pull request #N from …" subject gives way to the title on its body's first line).
	Title, Body string
	TitleSet    bool

	// Client returns the registry client for the workspace root on disk (where .npmrc is).
	Client func(root string) (*registry.Client, error)
	Jobs   int // concurrent registry requests (at least 1)
}

// Result is a plan and what Write needs to apply it.
type Result struct {
	Plan *release.Plan
	Root string // the workspace root on disk

	repo      *git.Repo
	headFS    fs.FS
	manifests map[string]string // package dir → runtime manifest at the head ("" none)
	catalog   bool
	updated   time.Time
}

// Close releases the git processes the result holds.
func (r *Result) Close() error {
	if r == nil || r.repo == nil {
		return nil
	}
	return r.repo.Close()
}

// Run makes the plan.
func Run(ctx context.Context, opts Options) (res *Result, err error) {
	repo, err := git.Open(opts.Dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			repo.Close()
		}
	}()
	root, prefix, err := workspaceRoot(repo.Dir, opts.Dir)
	if err != nil {
		return nil, err
	}
	headRev := opts.Head
	if headRev == "" {
		headRev = "HEAD"
	}
	head, err := repo.RevParse(headRev)
	if err != nil {
		return nil, err
	}
	var base string
	if opts.Base == "" {
		if base, err = repo.FirstParent(head); err != nil {
			return nil, err
		}
	} else if base, err = repo.RevParse(opts.Base); err != nil {
		return nil, err
	}

	title, body := opts.Title, opts.Body
	if !opts.TitleSet {
		subject, msg, err := repo.CommitMessage(head)
		if err != nil {
			return nil, err
		}
		title, body = TitleFromCommit(subject, msg)
	}
	pr := release.ParsePR(title, body)

	headTree, err := repo.Tree(head)
	if err != nil {
		return nil, err
	}
	baseTree, err := repo.Tree(base)
	if err != nil {
		return nil, err
	}
	headFS, err := sub(headTree, prefix)
	if err != nil {
		return nil, err
	}
	baseFS, err := sub(baseTree, prefix)
	if err != nil {
		return nil, err
	}
	headWS, err := workspace.Discover(headFS)
	if err != nil {
		return nil, exit.Failf("the workspace at %s cannot be read at %s: %v", displayRoot(prefix), short(head), err)
	}
	baseWS, err := workspace.Discover(baseFS)
	if err != nil {
		baseWS = &workspace.Workspace{FS: baseFS} // the base may predate the workspace
	}

	gitChanges, err := repo.Changed(base, head)
	if err != nil {
		return nil, err
	}
	changed := flatten(gitChanges, prefix)

	g := &gather{changed: changed}
	in := release.Input{Base: base, Head: head, PR: pr, HasRoles: headWS.Roles != nil, Changed: changed}
	res = &Result{Root: root, repo: repo, headFS: headFS, manifests: map[string]string{}}

	baseByName := map[string]*workspace.Package{}
	for _, p := range baseWS.Packages {
		if p.JSON != nil && p.JSON.Name != "" {
			if _, dup := baseByName[p.JSON.Name]; !dup {
				baseByName[p.JSON.Name] = p
			}
		}
	}
	matchedBase := map[*workspace.Package]bool{}
	for _, p := range headWS.Packages {
		hp := describe(headWS, p)
		candidate := release.Publishable(hp, in.HasRoles) && g.touches(p.Dir)
		if hp.Manifest != "" {
			res.manifests[p.Dir] = hp.Manifest
		}
		bp := baseByName[hp.Name]
		if bp == nil && hp.Name != "" {
			// The package may be at the base without being in the base workspace.
			if pj := workspace.ReadPackageJSON(baseFS, p.Dir); pj.Err == nil && pj.Name == hp.Name {
				bp = &workspace.Package{Dir: p.Dir, Role: p.Role, JSON: pj}
				baseWS.Packages = append(baseWS.Packages, bp)
			}
		}
		if candidate {
			if err := g.files(headFS, &hp, true); err != nil {
				return nil, err
			}
		}
		in.HeadPackages = append(in.HeadPackages, hp)
		if bp != nil && !matchedBase[bp] {
			matchedBase[bp] = true
			bpkg := describe(baseWS, bp)
			if candidate {
				if err := g.files(baseFS, &bpkg, false); err != nil {
					return nil, err
				}
			}
			in.BasePackages = append(in.BasePackages, bpkg)
		}
	}

	if catalog.Present(headFS) {
		when, err := repo.CommitTime(head)
		if err != nil {
			return nil, err
		}
		res.catalog, res.updated = true, when
		in.Catalog = &release.Catalog{Path: catalog.File, Differs: func(next map[string]string) (bool, error) {
			return catalogDiffers(headFS, baseFS, next, when)
		}}
	}

	names := release.Candidates(in)
	in.Published = map[string][]string{}
	if len(names) > 0 {
		client, err := opts.Client(root)
		if err != nil {
			return nil, err
		}
		docs, err := client.Packuments(ctx, names, max(1, opts.Jobs))
		if err != nil {
			return nil, err
		}
		for name, doc := range docs {
			in.Published[name] = doc.VersionList()
		}
	}
	if in.Tags, err = repo.Tags(); err != nil {
		return nil, err
	}
	plan, err := release.Build(in)
	if err != nil {
		return nil, err
	}
	res.Plan = plan
	return res, nil
}

// TitleFromCommit turns a commit message into a pull request title and description: a squash
// merge's subject and body as they are, a GitHub merge commit ("Merge pull request #12 from
// owner/branch", then the title) with the title taken from the body's first line.
func TitleFromCommit(subject, body string) (string, string) {
	if strings.HasPrefix(subject, "Merge pull request #") && strings.Contains(subject, " from ") {
		first, rest, _ := strings.Cut(strings.TrimLeft(body, "\n"), "\n")
		if strings.TrimSpace(first) != "" {
			return strings.TrimSpace(first), strings.TrimLeft(rest, "\n")
		}
	}
	return subject, body
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func displayRoot(prefix string) string {
	if prefix == "." {
		return "the repository root"
	}
	return prefix
}

// workspaceRoot finds the workspace root on disk for dir, kept inside the git repository, and
// its path relative to the repository's top level.
func workspaceRoot(top, dir string) (string, string, error) {
	topReal, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", "", exit.EnvErr(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", exit.EnvErr(err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root := workspace.FindRoot(abs)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, err := filepath.Rel(topReal, root)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		// The nearest workspace marker is outside the repository: use the folder itself.
		root = abs
		if rel, err = filepath.Rel(topReal, abs); err != nil || strings.HasPrefix(rel, "..") {
			return "", "", exit.Envf("%s is not inside the git repository %s", dir, top)
		}
	}
	return root, filepath.ToSlash(rel), nil
}

func sub(fsys fs.FS, prefix string) (fs.FS, error) {
	if prefix == "." || prefix == "" {
		return fsys, nil
	}
	s, err := fs.Sub(fsys, prefix)
	if err != nil {
		return nil, exit.EnvErr(err)
	}
	return s, nil
}

// flatten lists every path a change touched, relative to the workspace root: both paths of a
// rename, the new path of a copy.
func flatten(changes []git.Change, prefix string) []string {
	seen := map[string]bool{}
	add := func(p string) {
		if p == "" {
			return
		}
		if prefix != "." {
			if !strings.HasPrefix(p, prefix+"/") {
				return
			}
			p = strings.TrimPrefix(p, prefix+"/")
		}
		seen[p] = true
	}
	for _, c := range changes {
		add(c.Path)
		if c.Status == "R" {
			add(c.OldPath)
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// gather computes shipped files for the packages that need them.
type gather struct {
	changed []string
}

// touches reports whether the pull request changed a path that can change what the package
// in dir ships: a path inside it, or an ignore file in a folder above it (npm applies those of
// the workspace root and of every folder down to the package).
func (g *gather) touches(dir string) bool {
	for _, p := range g.changed {
		if dir == "." || strings.HasPrefix(p, dir+"/") {
			return true
		}
		if b := path.Base(p); b == ".npmignore" || b == ".gitignore" {
			d := path.Dir(p)
			if d == "." || dir == d || strings.HasPrefix(dir, d+"/") {
				return true
			}
		}
	}
	return false
}

// describe turns a workspace package into the planner's view, without its files.
func describe(ws *workspace.Workspace, p *workspace.Package) release.Package {
	out := release.Package{Dir: p.Dir, Role: p.Role}
	if p.JSON == nil {
		return out
	}
	out.Name, out.Version, out.Private, out.PackageJSON = p.JSON.Name, p.JSON.Version, p.JSON.Private, p.JSON.Data
	if p.JSON.Value != nil {
		for _, field := range []string{"dependencies", "peerDependencies", "optionalDependencies"} {
			if deps := p.JSON.Get(field); deps != nil && deps.Kind == jsonpos.Object {
				for _, m := range deps.Members {
					out.Deps = append(out.Deps, m.Key)
				}
			}
		}
		pk := &pack.Pack{WS: ws, Pkg: p, Dir: p.Dir, Role: p.Role, Runtime: pack.Detect(ws, p, pack.None)}
		if mf := pk.ManifestFile(); mf != "" {
			out.Manifest = pk.File(mf)
			if data, err := fs.ReadFile(ws.FS, out.Manifest); err == nil {
				out.ManifestData = data
			} else {
				out.Manifest = ""
			}
		}
	}
	return out
}

// files fills in the shipped files of a package: npm's packlist, plus the sources whose build
// outputs the packlist ships. At the head a packlist that cannot be computed stops the plan;
// at the base it leaves the files unknown, so everything at the head counts as changed.
func (g *gather) files(fsys fs.FS, p *release.Package, atHead bool) error {
	list, err := packlist.Load(fsys, p.Dir, packlist.Options{WorkspaceRoot: "."})
	if err != nil {
		if !atHead {
			return nil
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) && pe.Path == path.Join(p.Dir, "package.json") {
			return exit.Failf("%s has no package.json at the head; restore it or remove the package from the workspace", p.Dir)
		}
		return exit.Failf("cannot work out the files npm would pack for %s: %v; fix the package", p.Dir, err)
	}
	files := list.Files()
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, path.Join(p.Dir, f))
	}
	out = append(out, buildInputs(fsys, p.Dir, list)...)
	sort.Strings(out)
	p.Files = compact(out)
	return nil
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// catalogDiffers compares the catalog regenerated at the head with next against the head's
// registry.json when it is tracked, else against the catalog generated at the base (the repo
// generates it at build time and does not track it).
func catalogDiffers(headFS, baseFS fs.FS, next map[string]string, when time.Time) (bool, error) {
	gen, err := catalog.Generate(headFS, catalog.Options{Versions: next, Updated: when})
	if err != nil {
		return false, exit.Failf("cannot regenerate %s: %v", catalog.File, err)
	}
	ref, err := fs.ReadFile(headFS, catalog.File)
	if err != nil {
		if !catalog.Present(baseFS) {
			return true, nil
		}
		if ref, err = catalog.Generate(baseFS, catalog.Options{Updated: when}); err != nil {
			return true, nil // the base's catalog could not be built: this one is new
		}
	}
	return !catalog.Equal(gen, ref), nil
}

// pathError says what went wrong with a file, relative to the root.
func pathError(root, file string, err error) error {
	rel, rerr := filepath.Rel(root, file)
	if rerr != nil {
		rel = file
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %v", filepath.ToSlash(rel), err)
}
