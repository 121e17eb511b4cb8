// Package releaseplan makes the release plan of a merged pull request from a real repository,
// for `plaios release-plan`: it reads both ends of the pull request from git objects (never the
// working tree), computes each package's shipped files with the Go packlist at both ends, reads
// the published versions of the packages that matter from the registry (concurrently) and the
// `<name>@<version>` tags from git, and hands all of it to release.Build. Write then writes the
// plan's versions into the working tree, changing only the version text, and regenerates the
// AgentOS catalog — all files or none.
package releaseplan

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
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
	Jobs   int // concurrent registry requests (at least 1; the command gives max(8, 4 × jobs))
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
	headRev := opts.Head
	if headRev == "" {
		headRev = "HEAD"
	}
	// Open the repository, read the head commit and resolve --base at the same time.
	var (
		repo       *git.Repo
		headCommit *git.Commit
		base       string
	)
	early := git.At(opts.Dir)
	openErr := parallel(
		func() (err error) { repo, err = git.Open(opts.Dir); return },
		func() (err error) { headCommit, err = early.Commit(headRev); return },
		func() (err error) {
			if opts.Base != "" {
				base, err = early.RevParse(opts.Base)
			}
			return
		},
	)
	if repo == nil {
		return nil, openErr // not a repository: say that, whatever else failed
	}
	defer func() {
		if err != nil {
			repo.Close()
		}
	}()
	if openErr != nil {
		return nil, openErr
	}
	root, prefix, err := workspaceRoot(repo.Dir, opts.Dir)
	if err != nil {
		return nil, err
	}
	head := headCommit.ID
	if opts.Base == "" {
		if base, err = repo.FirstParentOf(headCommit); err != nil {
			return nil, err
		}
	}

	title, body := opts.Title, opts.Body
	if !opts.TitleSet {
		title, body = TitleFromCommit(headCommit.Subject, headCommit.Body)
	}
	pr := release.ParsePR(title, body)

	// The two trees, the diff and the tags, read by four git processes at once.
	var (
		headTree, baseTree *git.Tree
		gitChanges         []git.Change
		tags               map[string]string
	)
	if err := parallel(
		func() (err error) { headTree, err = repo.Tree(head); return },
		func() (err error) { baseTree, err = repo.Tree(base); return },
		func() (err error) { gitChanges, err = repo.Changed(base, head); return },
		func() (err error) { tags, err = repo.Tags(); return },
	); err != nil {
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
	changed, status := flatten(gitChanges, prefix)

	g := &gather{changed: changed, status: status}
	in := release.Input{Base: base, Head: head, PR: pr, HasRoles: headWS.Roles != nil, Changed: changed, Tags: tags}
	res = &Result{Root: root, repo: repo, headFS: headFS, manifests: map[string]string{}}
	bases := &baseFinder{fsys: baseFS}

	var jobs []func() error
	for _, p := range headWS.Packages {
		hp := describe(headWS, p)
		if hp.Manifest != "" {
			res.manifests[p.Dir] = hp.Manifest
		}
		if !release.Publishable(hp, in.HasRoles) {
			in.HeadPackages = append(in.HeadPackages, hp)
			continue
		}
		if !g.touches(p.Dir) {
			// Nothing the pull request changed can reach this package: its package.json is the
			// base's, and so are its files.
			in.HeadPackages = append(in.HeadPackages, hp)
			in.BasePackages = append(in.BasePackages, hp)
			continue
		}
		hi, bi := len(in.HeadPackages), -1
		in.HeadPackages = append(in.HeadPackages, hp)
		if bp := bases.find(hp); bp != nil {
			bi = len(in.BasePackages)
			in.BasePackages = append(in.BasePackages, describe(bases.ws(), bp))
		}
		jobs = append(jobs, func() error {
			h := &in.HeadPackages[hi]
			list, err := g.files(headFS, h, true)
			if err != nil || bi < 0 {
				return err
			}
			b := &in.BasePackages[bi]
			if g.sameRules(h, b) {
				g.deriveBase(headFS, list, h, b, baseFS)
				return nil
			}
			_, err = g.files(baseFS, b, false)
			return err
		})
	}
	if err := parallel(jobs...); err != nil {
		return nil, err
	}

	if catalog.Present(headFS) {
		when := headCommit.Time
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

// flatten lists every path a change touched, relative to the workspace root — both paths of a
// rename, the new path of a copy — with what happened to it: "A" (exists at the head only),
// "D" (at the base only) or "M" (at both).
func flatten(changes []git.Change, prefix string) ([]string, map[string]string) {
	status := map[string]string{}
	add := func(p, st string) {
		if p == "" {
			return
		}
		if prefix != "." {
			if !strings.HasPrefix(p, prefix+"/") {
				return
			}
			p = strings.TrimPrefix(p, prefix+"/")
		}
		if old, ok := status[p]; ok && old != st {
			st = "M" // deleted by one change, added by another (a rename onto an old path)
		}
		status[p] = st
	}
	for _, c := range changes {
		switch c.Status {
		case "A", "C":
			add(c.Path, "A")
		case "D":
			add(c.Path, "D")
		case "R":
			add(c.OldPath, "D")
			add(c.Path, "A")
		default:
			add(c.Path, "M")
		}
	}
	out := make([]string, 0, len(status))
	for p := range status {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, status
}

// baseFinder finds a head package's counterpart at the base: the package.json in the same
// folder when it has the same name, else the base workspace's package of that name (a moved
// package), discovering the base workspace only then.
type baseFinder struct {
	fsys   fs.FS
	w      *workspace.Workspace
	byName map[string]*workspace.Package
}

func (b *baseFinder) ws() *workspace.Workspace {
	if b.w == nil {
		w, err := workspace.Discover(b.fsys)
		if err != nil {
			w = &workspace.Workspace{FS: b.fsys} // the base may predate the workspace
		}
		b.w = w
	}
	return b.w
}

func (b *baseFinder) find(hp release.Package) *workspace.Package {
	if hp.Name == "" {
		return nil
	}
	if pj := workspace.ReadPackageJSON(b.fsys, hp.Dir); pj.Err == nil && pj.Name == hp.Name {
		return &workspace.Package{Dir: hp.Dir, Role: hp.Role, JSON: pj}
	}
	if b.byName == nil {
		b.byName = map[string]*workspace.Package{}
		for _, p := range b.ws().Packages {
			if p.JSON != nil && p.JSON.Name != "" {
				if _, dup := b.byName[p.JSON.Name]; !dup {
					b.byName[p.JSON.Name] = p
				}
			}
		}
	}
	return b.byName[hp.Name]
}

// parallel runs fns on as many goroutines as there are CPUs (at least two: they mostly wait
// on git) and returns the first error in the order of fns.
func parallel(fns ...func() error) error {
	errs := make([]error, len(fns))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(len(fns), max(2, runtime.GOMAXPROCS(0))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = fns[i]()
			}
		}()
	}
	for i := range fns {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// gather computes shipped files for the packages that need them.
type gather struct {
	changed []string
	status  map[string]string // path → A, D or M
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
		if mf := pk.ManifestFile(); mf != "" && pk.Exists(mf) {
			out.Manifest = pk.File(mf)
		}
	}
	return out
}

// files fills in the shipped files of a package: npm's packlist, plus the sources whose build
// outputs the packlist ships. At the head a packlist that cannot be computed stops the plan;
// at the base it leaves the files unknown, so everything at the head counts as changed.
func (g *gather) files(fsys fs.FS, p *release.Package, atHead bool) (*packlist.List, error) {
	if p.Manifest != "" {
		if data, err := fs.ReadFile(fsys, p.Manifest); err == nil {
			p.ManifestData = data
		}
	}
	list, err := packlist.Load(fsys, p.Dir, packlist.Options{WorkspaceRoot: "."})
	if err != nil {
		if !atHead {
			return nil, nil
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) && pe.Path == path.Join(p.Dir, "package.json") {
			return nil, exit.Failf("%s has no package.json at the head; restore it or remove the package from the workspace", p.Dir)
		}
		return nil, exit.Failf("cannot work out the files npm would pack for %s: %v; fix the package", p.Dir, err)
	}
	files := list.Files()
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, path.Join(p.Dir, f))
	}
	// The changed sources that exist at this end.
	gone := "D"
	if !atHead {
		gone = "A"
	}
	var present []string
	for _, c := range g.changed {
		if g.status[c] != gone {
			present = append(present, c)
		}
	}
	out = append(out, buildInputs(fsys, p.Dir, list, present)...)
	sort.Strings(out)
	p.Files = compact(out)
	return list, nil
}

// sameRules reports whether npm's rules for what the package ships are the same at both ends:
// the same folder, the same package.json bytes, and no ignore file (in the package or a folder
// above it) or nested package.json changed. Then the base's packlist follows from the head's.
func (g *gather) sameRules(head, base *release.Package) bool {
	if head.Dir != base.Dir || !bytes.Equal(head.PackageJSON, base.PackageJSON) {
		return false
	}
	for _, p := range g.changed {
		b := path.Base(p)
		if b != ".npmignore" && b != ".gitignore" && b != "package.json" {
			continue
		}
		d := path.Dir(p)
		if under(d, head.Dir) || under(head.Dir, d) {
			return false
		}
	}
	return true
}

// deriveBase fills in the base's shipped files from the head's packlist when the rules are the
// same: the head's files less those the pull request added, plus the files it deleted that the
// same rules ship (and the deleted sources of shipped build outputs).
func (g *gather) deriveBase(headFS fs.FS, list *packlist.List, head, base *release.Package, baseFS fs.FS) {
	var out, deleted []string
	for _, f := range head.Files {
		if g.status[f] != "A" {
			out = append(out, f)
		}
	}
	for _, p := range g.changed {
		if g.status[p] != "D" {
			continue
		}
		rel, ok := relTo(p, head.Dir)
		if !ok || rel == "." {
			continue
		}
		deleted = append(deleted, p)
		if list.Covers(rel) {
			out = append(out, p)
		}
	}
	out = append(out, buildInputs(headFS, head.Dir, list, deleted)...)
	if base.Manifest != "" {
		if data, err := fs.ReadFile(baseFS, base.Manifest); err == nil {
			base.ManifestData = data
		}
	}
	sort.Strings(out)
	base.Files = compact(out)
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
