// Package release is the release planner as a library, with no I/O: given both ends of a
// merged pull request — each workspace package with its shipped files and version, the paths
// the pull request changed, its title and description, and the versions already published
// and tagged — Build decides which packages publish at which versions, in which order, and
// which must be refused, following RELEASE.md. Reading git, npm and the disk is the caller's
// job (package release/releaseplan does it for `plaios release-plan`).
//
// Decisions where RELEASE.md is silent, made on purpose:
//
//   - Versions are strict semver as npm publishes them. Prereleases count: "last" is the
//     highest of every published and tagged version, prereleases included, so nothing is ever
//     planned at or below an existing version. Automatic bumps follow `npm version` (a patch
//     after 2.0.0-rc.1 is 2.0.0). A written prerelease satisfies a breaking change's floor when
//     its major.minor.patch does (2.0.0-beta.1 for "write 2.0.0").
//   - Below 1.0.0, a breaking change that also writes a version must write at least the next
//     minor (0.3.1 → 0.4.0): publishing it as 0.3.5 would reach every ^0.3 user. Refused
//     otherwise, naming the minor.
//   - A runtime manifest (manifest.json, agent-os.package.yaml, openclaw.plugin.json) whose
//     only change is its version is a written version too, as package.json is: RUNTIMES.md
//     has both bumped together.
//   - A file that becomes shipped or stops being shipped (the `files` field or an ignore file
//     changed) is a change even when its content is the same: the tarball differs.
//   - A package is matched between base and head by its npm name; a package whose name is not
//     at the base is "written" (and "changed": all its files are new).
//   - Unfinished releases are reported for the packages the plan considers (changed or
//     written): those are the ones whose registry documents are read.
//   - A dependency cycle among packages is a warning, not a refusal: npm publishes each
//     package alone. The packages of a cycle publish in folder order.
//   - Without a role map every package but the workspace root is reported with role "pack";
//     the workspace root ("."), when publishable, is the root.
//   - A catalog change publishes the root's next patch whatever the pull request says
//     (breaking or not): the catalog is data about the other packages, not the root's API.
package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/semver"
)

// SchemaVersion is the version of the plan.json format.
const SchemaVersion = 1

// The roles of RELEASE.md's "Publishable".
const (
	RolePack     = "pack"
	RoleLibrary  = "library"
	RoleTemplate = "template"
	RoleRoot     = "root"
)

// Package is one workspace package at one end of the pull request. Paths are slash paths
// relative to the workspace root.
type Package struct {
	Dir     string
	Name    string
	Version string
	Private bool
	Role    string // from the role map; "" without one

	Files       []string // shipped files (what npm pack would include), relative to the root
	PackageJSON []byte   // the raw package.json, for the version-only rule

	Manifest     string // the runtime manifest (relative to the root), "" when none
	ManifestData []byte

	// Deps are the names in dependencies, peerDependencies and optionalDependencies.
	Deps []string
}

// Catalog is the root package's generated catalog (AgentOS registry.json).
type Catalog struct {
	Path string // relative to the workspace root, e.g. "registry.json"

	// Differs reports whether the catalog regenerated with next (package name → the version
	// this plan publishes, for the packages it releases) differs from the head's.
	Differs func(next map[string]string) (bool, error)
}

// Input is everything Build needs.
type Input struct {
	Base, Head string // commit ids
	PR         PR

	HasRoles bool // the repository has a role map: only pack, library, template and root publish

	BasePackages []Package
	HeadPackages []Package

	// Changed are the paths that differ between base and head (a rename gives both its paths).
	Changed []string

	// Published maps a package name to its published versions; a missing or nil entry means
	// none. Tags maps each git tag to its commit.
	Published map[string][]string
	Tags      map[string]string
	// GitHeads maps a package name to the commit each published version was published from
	// (npm's gitHead), for the versions whose document records one. A version tagged at Head
	// or published from it belongs to this merge: it is planned again, marked Released.
	GitHeads map[string]map[string]string

	Catalog *Catalog // nil when the repository has none
}

// Plan is the decision, in the shape of CLI.md's plan.json.
type Plan struct {
	SchemaVersion int       `json:"schemaVersion"`
	Base          string    `json:"base"`
	Head          string    `json:"head"`
	Title         string    `json:"title"`
	Breaking      bool      `json:"breaking"`
	Releases      []Release `json:"releases"`
	Refusals      []Refusal `json:"refusals"`
	Warnings      []Warning `json:"warnings"`
}

// Release is one package to publish.
type Release struct {
	Name         string   `json:"name"`
	Dir          string   `json:"dir"`
	Role         string   `json:"role"`
	Last         *string  `json:"last"` // null for a package never published or tagged
	Next         string   `json:"next"`
	Reason       string   `json:"reason"`
	ChangedFiles []string `json:"changedFiles"`
	Tag          string   `json:"tag"`

	// Released marks a version that belongs to the head already (tagged at it, or published
	// from it): the same merge run again. It is planned at that version, publish counts it as
	// done on the registry and creates only its missing tag and GitHub release.
	Released bool `json:"released"`
	// Changelog is the release's CHANGELOG.md entry (changesets' layout), also the notes of
	// its GitHub release.
	Changelog string `json:"changelog"`
}

// Refusal is a package the plan will not publish as the pull request left it.
type Refusal struct {
	Name    string `json:"name"`
	Dir     string `json:"dir"`
	Message string `json:"message"`
}

// Warning is something a person should know that does not stop the plan.
type Warning struct {
	Name    string `json:"name"`
	Dir     string `json:"dir"`
	Message string `json:"message"`
}

// OK reports whether the plan has no refusal.
func (p *Plan) OK() bool { return len(p.Refusals) == 0 }

// Versions maps each released package's name to its next version.
func (p *Plan) Versions() map[string]string {
	out := make(map[string]string, len(p.Releases))
	for _, r := range p.Releases {
		out[r.Name] = r.Next
	}
	return out
}

// Tag is the git tag of a release: "<name>@<version>".
func Tag(name, version string) string { return name + "@" + version }

// Publishable reports whether a package may be published (RELEASE.md "Publishable").
func Publishable(p Package, hasRoles bool) bool {
	if p.Private {
		return false
	}
	if !hasRoles {
		return true
	}
	switch p.Role {
	case RolePack, RoleLibrary, RoleTemplate, RoleRoot:
		return true
	}
	return false
}

// roleOf is the role reported in the plan.
func roleOf(p Package, hasRoles bool) string {
	if hasRoles {
		return p.Role
	}
	if p.Dir == "." {
		return RoleRoot
	}
	return RolePack
}

// considered is one publishable head package and what the pull request did to it.
type considered struct {
	pkg      Package
	role     string
	base     *Package
	written  bool
	changed  []string // changed shipped files, catalog excluded for the root
	catalog  bool     // the root's catalog is in the diff
	last     *semver.Version
	lastText string
	unpub    []string // tagged, not published
	again    string   // the highest version that belongs to the head ("" none)
	release  *Release
	refusal  *Refusal
}

// Build makes the plan. It fails only when the catalog cannot be compared.
func Build(in Input) (*Plan, error) {
	plan := &Plan{SchemaVersion: SchemaVersion, Base: in.Base, Head: in.Head, Title: in.PR.Title, Breaking: in.PR.Breaking,
		Releases: []Release{}, Refusals: []Refusal{}, Warnings: []Warning{}}

	all, root, names := consider(in)
	tagged := taggedVersions(in.Tags)

	// The rules, for every package the pull request changed or wrote.
	for _, c := range all {
		if !c.written && len(c.changed) == 0 {
			continue
		}
		if c.pkg.Name == "" {
			c.refusal = &Refusal{Dir: c.pkg.Dir, Message: fmt.Sprintf("%s has no name; give the package a name before it can be published", path.Join(c.pkg.Dir, "package.json"))}
			continue
		}
		if dirs := names[c.pkg.Name]; len(dirs) > 1 {
			c.refusal = &Refusal{Name: c.pkg.Name, Dir: c.pkg.Dir, Message: fmt.Sprintf("%d packages are named %s (%s); give each a name of its own", len(dirs), c.pkg.Name, strings.Join(dirs, ", "))}
			continue
		}
		c.setLast(in, tagged[c.pkg.Name])
		if c.again != "" {
			c.acceptAgain()
			continue
		}
		decide(c, in.PR)
	}

	// The root's catalog.
	if root != nil && root.release == nil && root.refusal == nil && in.Catalog != nil && root.pkg.Name != "" && len(names[root.pkg.Name]) == 1 {
		next := map[string]string{}
		for _, c := range all {
			if c != root && c.release != nil {
				next[c.pkg.Name] = c.release.Next
			}
		}
		differs := root.catalog
		if !differs {
			d, err := in.Catalog.Differs(next)
			if err != nil {
				return nil, err
			}
			differs = d
		}
		if differs {
			root.setLast(in, tagged[root.pkg.Name])
			catalogRelease(root, in.Catalog.Path)
		}
	} else if root != nil && root.release != nil && root.catalog {
		root.release.ChangedFiles = sortedUnique(append(root.release.ChangedFiles, in.Catalog.Path))
	}

	// Warnings about unfinished releases, then the plan in publish order.
	for _, c := range all {
		if c.release == nil && c.refusal == nil {
			continue
		}
		for _, v := range c.unpub {
			plan.Warnings = append(plan.Warnings, Warning{Name: c.pkg.Name, Dir: c.pkg.Dir, Message: fmt.Sprintf(
				"%s is tagged but not published: an unfinished release; it will not be planned again (publish that tag's commit by hand, or leave the version behind)", Tag(c.pkg.Name, v))})
		}
	}
	order, cycles := publishOrder(all)
	for _, c := range order {
		if c.release != nil {
			c.release.Changelog = ChangelogEntry(*c.release, in.PR)
			plan.Releases = append(plan.Releases, *c.release)
		}
	}
	for _, c := range all {
		if c.refusal != nil {
			plan.Refusals = append(plan.Refusals, *c.refusal)
		}
	}
	sort.SliceStable(plan.Refusals, func(i, j int) bool { return plan.Refusals[i].Dir < plan.Refusals[j].Dir })
	for _, cyc := range cycles {
		plan.Warnings = append(plan.Warnings, Warning{Name: cyc[0].pkg.Name, Dir: cyc[0].pkg.Dir, Message: fmt.Sprintf(
			"%s depend on each other (a dependency cycle); they publish in folder order", joinNames(cyc))})
	}
	return plan, nil
}

func joinNames(cs []*considered) string {
	var n []string
	for _, c := range cs {
		n = append(n, c.pkg.Name)
	}
	if len(n) == 2 {
		return n[0] + " and " + n[1]
	}
	return strings.Join(n[:len(n)-1], ", ") + " and " + n[len(n)-1]
}

// consider finds the publishable head packages and what the pull request did to each.
func consider(in Input) (all []*considered, root *considered, names map[string][]string) {
	changed := make(map[string]bool, len(in.Changed))
	for _, p := range in.Changed {
		changed[p] = true
	}
	baseByName := map[string]*Package{}
	for i := range in.BasePackages {
		b := &in.BasePackages[i]
		if b.Name != "" {
			if _, dup := baseByName[b.Name]; !dup {
				baseByName[b.Name] = b
			}
		}
	}
	names = map[string][]string{} // name → dirs, publishable head packages
	for _, p := range in.HeadPackages {
		if Publishable(p, in.HasRoles) && p.Name != "" {
			names[p.Name] = append(names[p.Name], p.Dir)
		}
	}
	for _, p := range in.HeadPackages {
		if !Publishable(p, in.HasRoles) {
			continue
		}
		c := &considered{pkg: p, role: roleOf(p, in.HasRoles)}
		if c.role == RoleRoot && root == nil {
			root = c
		}
		all = append(all, c)
		if b, ok := baseByName[p.Name]; ok && p.Name != "" {
			c.base = b
		}
		c.written = c.base == nil || c.base.Version != p.Version
		c.changed = changedFiles(p, c.base, changed)
		if c == root && in.Catalog != nil {
			kept := c.changed[:0:0]
			for _, f := range c.changed {
				if f == in.Catalog.Path {
					c.catalog = true
				} else {
					kept = append(kept, f)
				}
			}
			c.changed = kept
			if changed[in.Catalog.Path] {
				c.catalog = true
			}
		}
	}

	return all, root, names
}

// Candidates lists the names of the packages Build will look at — the publishable packages the
// pull request changed or wrote, and the root when the repository has a catalog — so that a
// caller reads the registry for those only. Published is not used.
func Candidates(in Input) []string {
	all, root, _ := consider(in)
	var out []string
	for _, c := range all {
		if c.pkg.Name != "" && (c.written || len(c.changed) > 0 || c.catalog || (c == root && in.Catalog != nil)) {
			out = append(out, c.pkg.Name)
		}
	}
	return out
}

// taggedVersions reads "<name>@<version>" tags: name → versions.
func taggedVersions(tags map[string]string) map[string][]string {
	out := map[string][]string{}
	for tag := range tags {
		i := strings.LastIndexByte(tag, '@')
		if i <= 0 {
			continue
		}
		name, version := tag[:i], tag[i+1:]
		if _, ok := parseVersion(version); ok {
			out[name] = append(out[name], version)
		}
	}
	return out
}

// setLast computes last = max(published ∪ tagged) and the unfinished releases, leaving out
// the versions that belong to the head (tagged at it, or published from it): the highest of
// those is c.again, and last is what it was before this merge released it.
func (c *considered) setLast(in Input, tagged []string) {
	name := c.pkg.Name
	ofHead := func(v string) bool {
		return in.Head != "" && (in.Tags[Tag(name, v)] == in.Head || in.GitHeads[name][v] == in.Head)
	}
	var againV *semver.Version
	pub := map[string]bool{}
	for _, v := range in.Published[name] {
		pv, ok := parseVersion(v)
		if !ok {
			continue
		}
		pub[pv.String()] = true
		if ofHead(v) {
			if againV == nil || pv.GreaterThan(againV) {
				againV, c.again = pv, v
			}
			continue
		}
		if c.last == nil || pv.GreaterThan(c.last) {
			c.last, c.lastText = pv, v
		}
	}
	for _, v := range tagged {
		tv, _ := parseVersion(v)
		if ofHead(v) {
			if againV == nil || tv.GreaterThan(againV) {
				againV, c.again = tv, v
			}
			continue
		}
		if !pub[tv.String()] {
			c.unpub = append(c.unpub, v)
		}
		if c.last == nil || tv.GreaterThan(c.last) {
			c.lastText = v
			c.last = tv
		}
	}
	sort.Slice(c.unpub, func(i, j int) bool {
		a, _ := parseVersion(c.unpub[i])
		b, _ := parseVersion(c.unpub[j])
		return a.LessThan(b)
	})
	c.unpub = compactStrings(c.unpub)
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// lastWord says how last is known: "published" or "tagged (an unfinished release)".
func (c *considered) lastWord() string {
	for _, v := range c.unpub {
		if v == c.lastText {
			return "tagged (an unfinished release)"
		}
	}
	return "published"
}

func (c *considered) pkgJSON() string { return path.Join(c.pkg.Dir, "package.json") }

func (c *considered) accept(next, reason string) {
	var last *string
	if c.last != nil {
		s := c.lastText
		last = &s
	}
	c.release = &Release{Name: c.pkg.Name, Dir: c.pkg.Dir, Role: c.role, Last: last, Next: next, Reason: reason,
		ChangedFiles: append([]string{}, c.changed...), Tag: Tag(c.pkg.Name, next)}
}

// acceptAgain plans the version that belongs to the head again: the same merge, run again.
func (c *considered) acceptAgain() {
	c.accept(c.again, "released from this commit already: finishing what is missing")
	c.release.Released = true
}

func (c *considered) refuse(format string, a ...any) {
	c.refusal = &Refusal{Name: c.pkg.Name, Dir: c.pkg.Dir, Message: fmt.Sprintf(format, a...)}
}

// decide applies RELEASE.md's six rules to one changed or written package.
func decide(c *considered, pr PR) {
	breaking := pr.Breaking && len(c.changed) > 0
	written, wok := parseVersion(c.pkg.Version)
	if c.written && !wok {
		c.refuse("%s says version %q, which is not a semver version npm accepts; write the version to publish (for example %s)", c.pkgJSON(), c.pkg.Version, suggestion(c))
		return
	}
	// 1. New: nothing published or tagged.
	if c.last == nil {
		if !wok {
			c.refuse("%s says version %q, which is not a semver version npm accepts; write the version to publish (for example 0.1.0)", c.pkgJSON(), c.pkg.Version)
			return
		}
		c.accept(c.pkg.Version, "new package")
		return
	}
	if c.written {
		if breaking {
			// 2 and 5 with a written version: at least the floor.
			floor := breakingFloor(c.last)
			if written.GreaterThan(c.last) && meetsFloor(written, floor) {
				c.accept(c.pkg.Version, "breaking change, version written")
				return
			}
			c.refuse("%s says %s but a breaking change after %s needs at least %s; write %s into %s", c.pkgJSON(), c.pkg.Version, c.lastText, floor, floor, c.pkgJSON())
			return
		}
		// 3. Written above last.
		if written.GreaterThan(c.last) {
			c.accept(c.pkg.Version, "version written")
			return
		}
		// 4. Written at or below last.
		c.refuse("package.json says %s but %s is already %s; write %s (or higher) into %s", c.pkg.Version, c.lastText, c.lastWord(), nextPatch(c.last), c.pkgJSON())
		return
	}
	if breaking {
		if c.last.Compare(one) >= 0 {
			// 2. Breaking, last ≥ 1.0.0, nothing written.
			major := nextMajor(c.last)
			c.refuse("a breaking change needs a new major version after %s; write %s into %s", c.lastText, major, c.pkgJSON())
			return
		}
		// 5. Breaking, last < 1.0.0.
		c.accept(nextMinor(c.last).String(), "breaking change: next minor")
		return
	}
	// 6. Changed.
	c.accept(nextPatch(c.last).String(), "changed: next patch")
}

func suggestion(c *considered) string {
	if c.last != nil {
		return nextPatch(c.last).String()
	}
	return "0.1.0"
}

// catalogRelease publishes the root's next patch for a catalog change (or its written
// version when it was never published).
func catalogRelease(c *considered, catalogPath string) {
	c.changed = []string{catalogPath}
	if c.again != "" {
		c.acceptAgain()
		return
	}
	if c.last == nil {
		if _, ok := parseVersion(c.pkg.Version); !ok {
			c.refuse("%s says version %q, which is not a semver version npm accepts; write the version to publish (for example 0.1.0)", c.pkgJSON(), c.pkg.Version)
			return
		}
		c.accept(c.pkg.Version, "new package")
		return
	}
	c.accept(nextPatch(c.last).String(), "catalog changed: next patch")
}

// changedFiles lists the package's shipped files (at either end) that the pull request
// changed, a package.json or runtime manifest whose only change is its version excepted, and
// the files that became or stopped being shipped.
func changedFiles(head Package, base *Package, changed map[string]bool) []string {
	var out []string
	headSet := toSet(head.Files)
	if base == nil {
		return sortedUnique(append([]string{}, head.Files...))
	}
	baseSet := toSet(base.Files)
	for f := range headSet {
		if changed[f] || !baseSet[f] {
			out = append(out, f)
		}
	}
	for f := range baseSet {
		if changed[f] || !headSet[f] {
			out = append(out, f)
		}
	}
	out = sortedUnique(out)
	keep := out[:0]
	for _, f := range out {
		if f == path.Join(head.Dir, "package.json") && base.Dir == head.Dir && headSet[f] && baseSet[f] && onlyVersionDiffers(f, base.PackageJSON, head.PackageJSON) {
			continue
		}
		if f == head.Manifest && head.Manifest != "" && base.Manifest == head.Manifest && headSet[f] && baseSet[f] && onlyVersionDiffers(f, base.ManifestData, head.ManifestData) {
			continue
		}
		keep = append(keep, f)
	}
	return keep
}

func toSet(s []string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, v := range s {
		m[v] = true
	}
	return m
}

func sortedUnique(s []string) []string {
	sort.Strings(s)
	return compactStrings(s)
}

// onlyVersionDiffers compares two versions of a JSON, JSON5 or YAML document with their
// top-level "version" removed.
func onlyVersionDiffers(name string, a, b []byte) bool {
	if a == nil || b == nil {
		return false
	}
	if bytes.Equal(a, b) {
		return true
	}
	da, ok1 := parseDoc(name, a)
	db, ok2 := parseDoc(name, b)
	if !ok1 || !ok2 {
		return false
	}
	ma, ok1 := da.(map[string]any)
	mb, ok2 := db.(map[string]any)
	if !ok1 || !ok2 {
		return false
	}
	delete(ma, "version")
	delete(mb, "version")
	return reflect.DeepEqual(ma, mb)
}

func parseDoc(name string, data []byte) (any, bool) {
	switch {
	case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml"):
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			return nil, false
		}
		return v, true
	case strings.HasSuffix(name, ".plugin.json"):
		v, err := jsonpos.ParseJSON5(data)
		if err != nil {
			return nil, false
		}
		return v.Interface(), true
	default:
		var v any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		return v, true
	}
}
