package publish

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/git"
	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/npm/tarball"
	"github.com/plaios/plaios/internal/workspace"
	"github.com/plaios/plaios/release"
)

// abs resolves a path given on the command line against the working directory.
func (r *run) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.opts.Dir, p)
}

func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// load reads the plan and the guard's report, checks the checkout and every tarball. Nothing
// is written and nothing is asked of the network.
func (r *run) load() error {
	plan, err := readPlan(r.abs(r.opts.Plan), r.opts.Plan)
	if err != nil {
		return err
	}
	r.plan = plan
	if !plan.OK() {
		var names []string
		for _, rf := range plan.Refusals {
			names = append(names, rf.Name)
		}
		return exit.Failf("the plan %s refuses %s; fix what release-plan says and make the plan again — nothing was published", r.opts.Plan, joinNames(names))
	}
	repo, err := git.Open(r.opts.Dir)
	if err != nil {
		return err
	}
	r.repo = repo
	head, err := repo.Head()
	if err != nil {
		return err
	}
	planHead := plan.Head
	if planHead == "" {
		return exit.Usagef("%s has no head commit; make it with plaios release-plan --out", r.opts.Plan)
	}
	if id, err := repo.RevParse(planHead); err == nil {
		planHead = id
	}
	if planHead != head {
		return exit.Failf("the plan %s was made for the commit %s but %s is checked out; check out the plan's head or make the plan again — nothing was published", r.opts.Plan, short(plan.Head), short(head))
	}
	r.root = workspaceRoot(repo.Dir, r.opts.Dir)
	r.res = &Result{Head: head, Remote: r.opts.Remote, DryRun: r.opts.DryRun}
	if len(plan.Releases) == 0 {
		return nil
	}

	packs := r.abs(r.opts.Packs)
	report, err := readReport(filepath.Join(packs, guard.ReportFile), r.opts.Packs)
	if err != nil {
		return err
	}
	byRelease := map[string]*guard.Result{}
	for _, g := range report.Packages {
		byRelease[release.Tag(g.Name, g.Version)] = g
	}
	var problems []string
	seen := map[string]bool{}
	for _, rel := range plan.Releases {
		tag := rel.Tag
		if tag == "" {
			tag = release.Tag(rel.Name, rel.Next)
		}
		if rel.Name == "" || rel.Next == "" {
			return exit.Usagef("%s lists a release without a name or a next version; make the plan again with plaios release-plan", r.opts.Plan)
		}
		if tag != release.Tag(rel.Name, rel.Next) {
			return exit.Usagef("%s tags %s@%s as %q; release-plan tags releases <name>@<version>: make the plan again", r.opts.Plan, rel.Name, rel.Next, tag)
		}
		if seen[tag] {
			return exit.Usagef("%s lists %s twice; make the plan again with plaios release-plan", r.opts.Plan, tag)
		}
		seen[tag] = true
		o := &Outcome{Name: rel.Name, Version: rel.Next, Tag: tag, Dir: rel.Dir, release: rel}
		r.res.Releases = append(r.res.Releases, o)
		g := byRelease[tag]
		switch {
		case g == nil:
			problems = append(problems, fmt.Sprintf("%s has no result in %s; run plaios guard --plan %s --out %s", tag, filepath.Join(r.opts.Packs, guard.ReportFile), r.opts.Plan, r.opts.Packs))
			continue
		case !g.OK:
			reason := strings.TrimSuffix(g.Reason, ".")
			if reason == "" {
				reason = "no reason given"
			}
			problems = append(problems, fmt.Sprintf("%s failed the guard (%s)", tag, reason))
			continue
		case g.Tarball == "" || g.Integrity == "":
			problems = append(problems, fmt.Sprintf("%s has no tarball or integrity in %s; run plaios guard again with --out", tag, guard.ReportFile))
			continue
		}
		file := g.Tarball
		if !filepath.IsAbs(file) {
			file = filepath.Join(packs, filepath.FromSlash(file))
		}
		if p := r.checkTarball(o, file, g.Integrity); p != "" {
			problems = append(problems, p)
		}
	}
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return exit.Failf("%s — nothing was published", problems[0])
	default:
		return exit.Failf("%d releases cannot be published, nothing was: %s", len(problems), strings.Join(problems, "; "))
	}
}

// checkTarball hashes a tarball, compares it with the guard's integrity and reads the name,
// version and dependencies of its package.json. It returns a problem, or "".
func (r *run) checkTarball(o *Outcome, file, integrity string) string {
	tb, err := tarball.Read(file, tarball.Options{})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("the tarball of %s (%s) is missing; run plaios guard --plan %s --out %s again", o.Tag, file, r.opts.Plan, r.opts.Packs)
		}
		return fmt.Sprintf("the tarball of %s cannot be read (%v); run plaios guard again", o.Tag, pathErr(err))
	}
	if !sameIntegrity(tb.Integrity, integrity) {
		return fmt.Sprintf("the tarball of %s changed after guard tested it (its sha512 is %s, guard-report.json says %s); run plaios guard again and publish what it tests", o.Tag, abbrev(tb.Integrity), abbrev(integrity))
	}
	var pj struct {
		Name                 string            `json:"name"`
		Version              string            `json:"version"`
		Dependencies         map[string]string `json:"dependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
		PeerDependencies     map[string]string `json:"peerDependencies"`
		PublishConfig        struct {
			Registry string `json:"registry"`
			Access   string `json:"access"`
			Tag      string `json:"tag"`
		} `json:"publishConfig"`
	}
	data, ok := tb.Content["package.json"]
	if !ok || json.Unmarshal(data, &pj) != nil {
		return fmt.Sprintf("the tarball of %s has no readable package.json; run plaios guard again", o.Tag)
	}
	if pj.Name != o.Name || pj.Version != o.Version {
		return fmt.Sprintf("the tarball for %s holds %s@%s; run plaios guard --plan %s --out %s again", o.Tag, pj.Name, pj.Version, r.opts.Plan, r.opts.Packs)
	}
	if pj.PublishConfig.Access == "restricted" {
		return fmt.Sprintf("%s sets publishConfig.access \"restricted\" but plaios publishes with --access public; remove it, or publish that package another way", o.Tag)
	}
	o.configRegistry, o.configTag = pj.PublishConfig.Registry, pj.PublishConfig.Tag
	for _, m := range []map[string]string{pj.Dependencies, pj.OptionalDependencies, pj.PeerDependencies} {
		for name := range m {
			o.deps = append(o.deps, name)
		}
	}
	sort.Strings(o.deps)
	o.tarball, o.sha512, o.shasum = file, integrity, tb.Shasum
	return ""
}

func readPlan(file, name string) (*release.Plan, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, exit.Usagef("cannot read the plan %s (%v); give the file plaios release-plan --out wrote", name, pathErr(err))
	}
	var plan release.Plan
	if err := json.Unmarshal(data, &plan); err != nil {
		return nil, exit.Usagef("%s is not a release plan (plan.json from plaios release-plan --out): %v", name, err)
	}
	if plan.SchemaVersion != release.SchemaVersion {
		return nil, exit.Usagef("%s has schemaVersion %d; this plaios reads plans of schemaVersion %d", name, plan.SchemaVersion, release.SchemaVersion)
	}
	return &plan, nil
}

func readReport(file, packs string) (*guard.Report, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, exit.Usagef("%s has no %s; give --packs the folder plaios guard --out wrote", packs, guard.ReportFile)
		}
		return nil, exit.Usagef("cannot read %s (%v)", filepath.Join(packs, guard.ReportFile), pathErr(err))
	}
	var rep guard.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, exit.Usagef("%s in %s is not a guard report: %v", guard.ReportFile, packs, err)
	}
	if rep.SchemaVersion != 1 {
		return nil, exit.Usagef("%s in %s has schemaVersion %d; this plaios reads reports of schemaVersion 1", guard.ReportFile, packs, rep.SchemaVersion)
	}
	return &rep, nil
}

// sameIntegrity reports whether two subresource-integrity strings share their sha512 hash.
func sameIntegrity(a, b string) bool {
	ha, hb := sha512Of(a), sha512Of(b)
	return ha != "" && ha == hb
}

// sha512Of returns the sha512 hash of an integrity string ("sha512-…", possibly among others,
// with or without options after "?").
func sha512Of(integrity string) string {
	for _, f := range strings.Fields(integrity) {
		if h, ok := strings.CutPrefix(f, "sha512-"); ok {
			h, _, _ = strings.Cut(h, "?")
			return h
		}
	}
	return ""
}

// workspaceRoot is the workspace root holding dir, kept inside the repository: where npm runs
// and the project .npmrc is read.
func workspaceRoot(top, dir string) string {
	root := workspace.FindRoot(dir)
	topReal, err1 := filepath.EvalSymlinks(top)
	rootReal, err2 := filepath.EvalSymlinks(root)
	if err1 != nil || err2 != nil {
		return root
	}
	rel, err := filepath.Rel(topReal, rootReal)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return dir
	}
	return root
}
