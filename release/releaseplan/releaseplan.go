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
	Number      int // the pull request's number (from the event); 0: from the head commit

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

// Run makes the plan: it reads both ends of the pull request from git, describes the packages
// the pull request can reach, reads the registry for the ones the plan looks at, and hands
// everything to release.Build.
func Run(ctx context.Context, opts Options) (res *Result, err error) {
	ends, err := openEnds(opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			ends.repo.Close()
		}
	}()
	headWS, err := workspace.Discover(ends.headFS)
	if err != nil {
		return nil, exit.Failf("the workspace at %s cannot be read at %s: %v", displayRoot(ends.prefix), short(ends.head.ID), err)
	}
	changed, status := flatten(ends.changes, ends.prefix)
	in := release.Input{Base: ends.base, Head: ends.head.ID, PR: ends.pr, HasRoles: headWS.Roles != nil, Changed: changed, Tags: ends.tags}
	res = &Result{Root: ends.root, repo: ends.repo, headFS: ends.headFS, manifests: map[string]string{}}
	g := &gather{changed: changed, status: status}
	if err := g.describeAll(&in, headWS, ends, res.manifests); err != nil {
		return nil, err
	}
	if catalog.Present(ends.headFS) {
		headFS, baseFS, when := ends.headFS, ends.baseFS, ends.head.Time
		res.catalog, res.updated = true, when
		in.Catalog = &release.Catalog{Path: catalog.File, Differs: func(next map[string]string) (bool, error) {
			return catalogDiffers(headFS, baseFS, next, when)
		}}
	}
	if err := readRegistry(ctx, opts, ends.root, &in); err != nil {
		return nil, err
	}
	plan, err := release.Build(in)
	if err != nil {
		return nil, err
	}
	res.Plan = plan
	return res, nil
}

// ends is what git says about both ends of the pull request.
type ends struct {
	repo           *git.Repo
	root, prefix   string // the workspace root on disk, and its path in the repository
	head           *git.Commit
	base           string
	pr             release.PR
	headFS, baseFS fs.FS // the workspace at each end
	changes        []git.Change
	tags           map[string]string
}

// openEnds opens the repository, resolves the head and the base, reads the pull request's
// text, and reads both trees, the diff and the tags — with git processes running at once.
func openEnds(opts Options) (_ *ends, err error) {
	headRev := opts.Head
	if headRev == "" {
		headRev = "HEAD"
	}
	e := &ends{}
	early := git.At(opts.Dir)
	openErr := parallel(
		func() (err error) { e.repo, err = git.Open(opts.Dir); return },
		func() (err error) { e.head, err = early.Commit(headRev); return },
		func() (err error) {
			if opts.Base != "" {
				e.base, err = early.RevParse(opts.Base)
			}
			return
		},
	)
	if e.repo == nil {
		return nil, openErr // not a repository: say that, whatever else failed
	}
	defer func() {
		if err != nil {
			e.repo.Close()
		}
	}()
	if openErr != nil {
		return nil, openErr
	}
	if e.root, e.prefix, err = workspaceRoot(e.repo.Dir, opts.Dir); err != nil {
		return nil, err
	}
	if opts.Base == "" {
		if e.base, err = e.repo.FirstParentOf(e.head); err != nil {
			return nil, err
		}
	}
	e.pr = pullRequest(opts, e.head)

	var headTree, baseTree *git.Tree
	if err := parallel(
		func() (err error) { headTree, err = e.repo.Tree(e.head.ID); return },
		func() (err error) { baseTree, err = e.repo.Tree(e.base); return },
		func() (err error) { e.changes, err = e.repo.Changed(e.base, e.head.ID); return },
		func() (err error) { e.tags, err = e.repo.Tags(); return },
	); err != nil {
		return nil, err
	}
	if e.headFS, err = sub(headTree, e.prefix); err != nil {
		return nil, err
	}
	if e.baseFS, err = sub(baseTree, e.prefix); err != nil {
		return nil, err
	}
	return e, nil
}

// pullRequest is the pull request's title, description and number: from the options, else
// from the head commit's message (as a squash merge or a GitHub merge commit writes it).
func pullRequest(opts Options, head *git.Commit) release.PR {
	title, body := opts.Title, opts.Body
	if !opts.TitleSet {
		title, body = TitleFromCommit(head.Subject, head.Body)
	}
	pr := release.ParsePR(title, body)
	pr.Number = opts.Number
	if pr.Number == 0 {
		pr.Number = NumberFromCommit(head.Subject)
	}
	return pr
}

// describeAll describes every head package for the planner, and computes the shipped files at
// both ends (concurrently) of the publishable packages the pull request can reach.
func (g *gather) describeAll(in *release.Input, headWS *workspace.Workspace, e *ends, manifests map[string]string) error {
	bases := &baseFinder{fsys: e.baseFS}
	var jobs []func() error
	for _, p := range headWS.Packages {
		hp := describe(headWS, p)
		if hp.Manifest != "" {
			manifests[p.Dir] = hp.Manifest
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
			list, err := g.files(e.headFS, h, true)
			if err != nil || bi < 0 {
				return err
			}
			b := &in.BasePackages[bi]
			if g.sameRules(h, b) {
				g.deriveBase(e.headFS, list, h, b, e.baseFS)
				return nil
			}
			_, err = g.files(e.baseFS, b, false)
			return err
		})
	}
	return parallel(jobs...)
}

// readRegistry reads the published versions of the packages the plan looks at (abbreviated
// documents, concurrently), then the full documents of those with a published version no tag
// names: only a full document says which commit a version was published from (gitHead), and an
// untagged version may be this merge's own, published by a run whose tag push failed.
func readRegistry(ctx context.Context, opts Options, root string, in *release.Input) error {
	in.Published = map[string][]string{}
	in.GitHeads = map[string]map[string]string{}
	names := release.Candidates(*in)
	if len(names) == 0 {
		return nil
	}
	client, err := opts.Client(root)
	if err != nil {
		return err
	}
	docs, err := client.Packuments(ctx, names, max(1, opts.Jobs))
	if err != nil {
		return err
	}
	var untagged []string
	for name, doc := range docs {
		in.Published[name] = doc.VersionList()
		for _, v := range in.Published[name] {
			if _, ok := in.Tags[release.Tag(name, v)]; !ok {
				untagged = append(untagged, name)
				break
			}
		}
	}
	if len(untagged) == 0 {
		return nil
	}
	sort.Strings(untagged)
	full := *client
	full.Abbreviated = false
	docs, err = full.Packuments(ctx, untagged, max(1, opts.Jobs))
	if err != nil {
		return err
	}
	for name, doc := range docs {
		if doc == nil {
			continue
		}
		heads := map[string]string{}
		for key, v := range doc.Versions {
			if v.GitHead != "" {
				heads[key] = v.GitHead
			}
		}
		in.GitHeads[name] = heads
	}
	return nil
}

// NumberFromCommit reads the pull request number from a merge's subject: a GitHub merge
// commit's "Merge pull request #12 from owner/branch", or a squash merge's "title (#12)".
func NumberFromCommit(subject string) int {
	if rest, ok := strings.CutPrefix(subject, "Merge pull request #"); ok {
		n := 0
		for _, c := range rest {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
			if n > 1<<30 {
				return 0
			}
		}
		return n
	}
	return release.NumberFromTitle(subject)
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
