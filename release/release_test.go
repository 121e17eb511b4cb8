package release

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/semver"
)

// pkgAt builds a package with a package.json and an entry file, both shipped.
func pkgAt(dir, name, version string) Package {
	pj := fmt.Sprintf(`{"name": %q, "version": %q, "files": ["index.js"]}`, name, version)
	return Package{Dir: dir, Name: name, Version: version, Role: RolePack,
		Files: []string{dir + "/index.js", dir + "/package.json"}, PackageJSON: []byte(pj)}
}

// example is one row of RELEASE.md's worked examples, at the library level.
type example struct {
	name    string
	last    []string // published versions
	tags    []string // tagged versions
	atHead  []string // versions tagged at the head (the same merge, run again)
	ofHead  []string // published versions whose gitHead is the head
	title   string
	body    string
	change  string // "yes", "no", "test" (only test/ changed)
	written string // "" none
	private bool
	want    string // next version, "" not released
	refused string // a text the refusal must hold, "" none
	warning string // a text a warning must hold
	again   bool   // the release must be marked Released
}

var examples = []example{
	{name: "fix patches", last: []string{"0.3.1"}, title: "fix: retry on 429", change: "yes", want: "0.3.2"},
	{name: "breaking title below 1.0 bumps minor", last: []string{"0.3.1"}, title: "feat!: drop v1 api", change: "yes", want: "0.4.0"},
	{name: "breaking description below 1.0 bumps minor", last: []string{"0.3.1"}, title: "feat: x", body: "Details.\n\nBREAKING CHANGE: y", change: "yes", want: "0.4.0"},
	{name: "breaking in an HTML comment does not count", last: []string{"0.3.1"}, title: "feat: x", body: "<!-- BREAKING CHANGE: describe -->", change: "yes", want: "0.3.2"},
	{name: "breaking with 1.0.0 written below 1.0", last: []string{"0.3.1"}, title: "feat!: x", change: "yes", written: "1.0.0", want: "1.0.0"},
	{name: "breaking from 1.x without a written major is refused", last: []string{"1.4.2"}, title: "feat(api)!: rename", change: "yes", refused: "write 2.0.0"},
	{name: "breaking with 2.0.0 written", last: []string{"1.4.2"}, title: "feat!: x", change: "yes", written: "2.0.0", want: "2.0.0"},
	{name: "breaking with a minor written is refused", last: []string{"1.4.2"}, title: "feat!: x", change: "yes", written: "1.5.0", refused: "write 2.0.0"},
	{name: "chore patches", last: []string{"1.4.2"}, title: "chore: tidy", change: "yes", want: "1.4.3"},
	{name: "written above last publishes as written", last: []string{"1.4.2"}, title: "chore: release", change: "no", written: "1.6.0", want: "1.6.0"},
	{name: "written below last is refused", last: []string{"1.4.2"}, title: "fix: x", change: "no", written: "1.4.1", refused: "package.json says 1.4.1 but 1.4.2 is already published"},
	{name: "new package publishes its written version", title: "feat: new pack", change: "yes", written: "0.1.0", want: "0.1.0"},
	{name: "a change to unshipped files releases nothing", last: []string{"1.4.2"}, title: "fix: x", change: "test"},
	{name: "private packages never release", last: []string{"1.4.2"}, private: true, title: "fix: x", change: "yes"},
	{name: "unfinished release is skipped with a warning", last: []string{"1.0.0"}, tags: []string{"1.0.0", "1.0.1"}, title: "fix: x", change: "yes", want: "1.0.2", warning: "pkg@1.0.1 is tagged but not published"},
	{name: "a bang after the prefix colon is not breaking", last: []string{"1.4.2"}, title: "fix: handle a!: b", change: "yes", want: "1.4.3"},
	{name: "tagged at the head: the same merge run again", last: []string{"0.1.0", "0.1.1"}, atHead: []string{"0.1.1"}, title: "fix: x", change: "yes", want: "0.1.1", again: true},
	{name: "published from the head without a tag: run again after a failed push", last: []string{"0.1.0", "0.1.1"}, ofHead: []string{"0.1.1"}, title: "fix: x", change: "yes", want: "0.1.1", again: true},
	{name: "a new pack published from the head: run again", last: []string{"0.1.0"}, ofHead: []string{"0.1.0"}, title: "feat: new pack", change: "yes", written: "0.1.0", want: "0.1.0", again: true},
}

func (ex example) input() Input {
	base := pkgAt("packages/pkg", "pkg", "0.0.0")
	if len(ex.last) > 0 {
		base = pkgAt("packages/pkg", "pkg", ex.last[0])
	}
	base.Files = append(base.Files, "packages/pkg/README.md")
	head := base
	version := base.Version
	if ex.written != "" {
		version = ex.written
	}
	head = pkgAt("packages/pkg", "pkg", version)
	head.Files = base.Files
	head.Private = ex.private
	in := Input{Base: "b", Head: "h", PR: ParsePR(ex.title, ex.body), Published: map[string][]string{}, Tags: map[string]string{}}
	if len(ex.last) > 0 || ex.written == "" {
		in.BasePackages = []Package{base}
	}
	in.HeadPackages = []Package{head}
	in.HasRoles = true
	if ex.written != "" {
		in.Changed = append(in.Changed, "packages/pkg/package.json")
	}
	switch ex.change {
	case "yes":
		in.Changed = append(in.Changed, "packages/pkg/index.js")
	case "test":
		in.Changed = append(in.Changed, "packages/pkg/test/index.test.js")
	}
	if len(ex.last) > 0 {
		in.Published["pkg"] = ex.last
	}
	for _, v := range ex.tags {
		in.Tags["pkg@"+v] = "c0ffee"
	}
	for _, v := range ex.atHead {
		in.Tags["pkg@"+v] = in.Head
	}
	in.GitHeads = map[string]map[string]string{"pkg": {}}
	for _, v := range ex.ofHead {
		in.GitHeads["pkg"][v] = in.Head
	}
	if len(ex.ofHead) > 0 && len(ex.last) == len(ex.ofHead) {
		// A new pack: nothing at the base.
		in.BasePackages = nil
	}
	return in
}

func TestWorkedExamples(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			plan, err := Build(ex.input())
			if err != nil {
				t.Fatal(err)
			}
			checkExample(t, ex, plan)
		})
	}
}

func checkExample(t *testing.T, ex example, plan *Plan) {
	t.Helper()
	switch {
	case ex.refused != "":
		if len(plan.Refusals) != 1 || !strings.Contains(plan.Refusals[0].Message, ex.refused) {
			t.Fatalf("want a refusal holding %q, got %+v", ex.refused, plan.Refusals)
		}
		if !strings.Contains(plan.Refusals[0].Message, "packages/pkg/package.json") {
			t.Errorf("the refusal must say which file to write: %q", plan.Refusals[0].Message)
		}
	case ex.want == "":
		if len(plan.Releases) != 0 || len(plan.Refusals) != 0 {
			t.Fatalf("want nothing released, got %+v / %+v", plan.Releases, plan.Refusals)
		}
	default:
		if len(plan.Refusals) != 0 || len(plan.Releases) != 1 || plan.Releases[0].Next != ex.want {
			t.Fatalf("want %s, got releases %+v refusals %+v", ex.want, plan.Releases, plan.Refusals)
		}
		r := plan.Releases[0]
		if r.Tag != "pkg@"+ex.want || r.Dir != "packages/pkg" || r.Role != RolePack {
			t.Errorf("release = %+v", r)
		}
		if len(ex.last) == 0 && r.Last != nil {
			t.Errorf("last of a new package must be null, got %q", *r.Last)
		}
		if r.Released != ex.again {
			t.Errorf("released = %v, want %v", r.Released, ex.again)
		}
		if ex.again {
			// last is what it was before this merge released the version.
			before := ex.last[:len(ex.last)-1]
			if (len(before) == 0) != (r.Last == nil) || (r.Last != nil && *r.Last != before[len(before)-1]) {
				t.Errorf("last = %v, want the version before %s", r.Last, ex.want)
			}
		}
		if !strings.HasPrefix(r.Changelog, "## "+ex.want+"\n\n### ") {
			t.Errorf("changelog entry = %q", r.Changelog)
		}
	}
	if ex.warning != "" {
		if len(plan.Warnings) != 1 || !strings.Contains(plan.Warnings[0].Message, ex.warning) {
			t.Errorf("want a warning holding %q, got %+v", ex.warning, plan.Warnings)
		}
	} else if len(plan.Warnings) != 0 {
		t.Errorf("unexpected warnings %+v", plan.Warnings)
	}
}

// rootInput is an AgentOS-shaped workspace: a root with a catalog and two packs.
func rootInput(packChanged bool, catalogDiffers bool) Input {
	root := Package{Dir: ".", Name: "@framers/agentos-extensions", Version: "2.3.0", Role: RoleRoot,
		Files: []string{"index.mjs", "package.json", "registry.json"}, PackageJSON: []byte(`{"name":"@framers/agentos-extensions","version":"2.3.0"}`)}
	a := pkgAt("registry/curated/research/a", "@framers/agentos-ext-a", "1.0.0")
	b := pkgAt("registry/curated/research/b", "@framers/agentos-ext-b", "0.2.0")
	in := Input{Base: "b", Head: "h", HasRoles: true, PR: ParsePR("fix: x", ""),
		BasePackages: []Package{root, a, b}, HeadPackages: []Package{root, a, b},
		Published: map[string][]string{root.Name: {"2.2.0", "2.3.0"}, a.Name: {"1.0.0"}, b.Name: {"0.2.0"}}}
	if packChanged {
		in.Changed = []string{"registry/curated/research/a/index.js"}
	}
	in.Catalog = &Catalog{Path: "registry.json", Differs: func(next map[string]string) (bool, error) {
		return catalogDiffers || len(next) > 0, nil
	}}
	return in
}

func TestRootPublishesLastWhenAPackReleases(t *testing.T) {
	plan, err := Build(rootInput(true, false))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Releases) != 2 {
		t.Fatalf("releases = %+v", plan.Releases)
	}
	root := plan.Releases[1]
	if root.Name != "@framers/agentos-extensions" || root.Next != "2.3.1" || *root.Last != "2.3.0" || root.Role != RoleRoot {
		t.Errorf("root release = %+v", root)
	}
	if !reflect.DeepEqual(root.ChangedFiles, []string{"registry.json"}) || !strings.Contains(root.Reason, "catalog") {
		t.Errorf("root release = %+v", root)
	}
}

func TestRootCatalogRule(t *testing.T) {
	// Nothing changed, nothing to publish.
	plan, _ := Build(rootInput(false, false))
	if len(plan.Releases) != 0 {
		t.Errorf("no change: %+v", plan.Releases)
	}
	// The catalog differs by itself (a private pack was added): the root's next patch.
	plan, _ = Build(rootInput(false, true))
	if len(plan.Releases) != 1 || plan.Releases[0].Next != "2.3.1" {
		t.Errorf("catalog differs: %+v", plan.Releases)
	}
	// registry.json in the diff, in a breaking pull request: still a patch for the root.
	in := rootInput(false, false)
	in.Changed = []string{"registry.json"}
	in.PR = ParsePR("feat!: everything", "")
	plan, _ = Build(in)
	if len(plan.Releases) != 1 || plan.Releases[0].Next != "2.3.1" || len(plan.Refusals) != 0 {
		t.Errorf("catalog in the diff: %+v %+v", plan.Releases, plan.Refusals)
	}
	// The root's own file changed in a breaking pull request: the rules apply to it.
	in = rootInput(false, false)
	in.Changed = []string{"index.mjs", "registry.json"}
	in.PR = ParsePR("feat!: everything", "")
	plan, _ = Build(in)
	if len(plan.Refusals) != 1 || !strings.Contains(plan.Refusals[0].Message, "write 3.0.0") {
		t.Errorf("root breaking: %+v %+v", plan.Releases, plan.Refusals)
	}
	// The root's own file changed: patch, with the catalog among its changed files.
	in.PR = ParsePR("fix: y", "")
	plan, _ = Build(in)
	if len(plan.Releases) != 1 || !reflect.DeepEqual(plan.Releases[0].ChangedFiles, []string{"index.mjs", "registry.json"}) {
		t.Errorf("root own change: %+v", plan.Releases)
	}
	// A private root never publishes.
	in = rootInput(true, true)
	in.HeadPackages[0].Private = true
	plan, _ = Build(in)
	if len(plan.Releases) != 1 || plan.Releases[0].Role != RolePack {
		t.Errorf("private root: %+v", plan.Releases)
	}
}

func TestCandidates(t *testing.T) {
	in := rootInput(true, false)
	got := Candidates(in)
	if strings.Join(got, ",") != "@framers/agentos-extensions,@framers/agentos-ext-a" {
		t.Errorf("Candidates = %v: the changed pack and the root with a catalog", got)
	}
	in.Catalog = nil
	if got := Candidates(in); strings.Join(got, ",") != "@framers/agentos-ext-a" {
		t.Errorf("without a catalog = %v", got)
	}
	in.Changed = nil
	if got := Candidates(in); len(got) != 0 {
		t.Errorf("nothing changed = %v", got)
	}
}

func TestCatalogErrorStopsThePlan(t *testing.T) {
	in := rootInput(true, false)
	in.Catalog.Differs = func(map[string]string) (bool, error) { return false, fmt.Errorf("boom") }
	if _, err := Build(in); err == nil {
		t.Fatal("a catalog that cannot be compared must fail the plan")
	}
}

func TestRolesAndPublishable(t *testing.T) {
	mk := func(dir, role string) Package {
		p := pkgAt(dir, strings.ReplaceAll(dir, "/", "-"), "1.0.0")
		p.Role = role
		return p
	}
	pkgs := []Package{mk("libs/l", RoleLibrary), mk("packs/p", RolePack), mk("templates/t", RoleTemplate), mk("tools/x", "tool"), mk("docs", "")}
	var changed []string
	pub := map[string][]string{}
	for _, p := range pkgs {
		changed = append(changed, p.Dir+"/index.js")
		pub[p.Name] = []string{"1.0.0"}
	}
	in := Input{HasRoles: true, BasePackages: pkgs, HeadPackages: pkgs, Changed: changed, Published: pub, PR: ParsePR("fix: x", "")}
	plan, _ := Build(in)
	var got []string
	for _, r := range plan.Releases {
		got = append(got, r.Dir+":"+r.Role)
	}
	if strings.Join(got, " ") != "libs/l:library packs/p:pack templates/t:template" {
		t.Errorf("with a role map: %v", got)
	}
	in.HasRoles = false
	plan, _ = Build(in)
	if len(plan.Releases) != 5 {
		t.Errorf("without a role map every package publishes: %+v", plan.Releases)
	}
}

func TestPublishOrder(t *testing.T) {
	mk := func(dir, name, role string, deps ...string) Package {
		p := pkgAt(dir, name, "1.0.0")
		p.Role, p.Deps = role, deps
		return p
	}
	pkgs := []Package{
		mk(".", "root", RoleRoot),
		mk("a", "a", RolePack, "c"),             // after c
		mk("b", "b", RolePack, "a", "external"), // after a
		mk("c", "c", RoleLibrary, "d"),          // d is not released but orders c after it
		mk("d", "d", RoleLibrary, "e"),
		mk("e", "e", RoleLibrary),
		mk("t", "t", RoleTemplate, "a"),
		mk("x", "x", RolePack, "y"), // x and y form a cycle
		mk("y", "y", RolePack, "x"),
	}
	in := Input{HasRoles: true, BasePackages: pkgs, HeadPackages: pkgs, Published: map[string][]string{}, PR: ParsePR("fix: x", "")}
	for _, p := range pkgs {
		if p.Dir != "d" {
			in.Changed = append(in.Changed, p.Dir+"/index.js")
		}
		in.Published[p.Name] = []string{"1.0.0"}
	}
	plan, _ := Build(in)
	var got []string
	for _, r := range plan.Releases {
		got = append(got, r.Name)
	}
	if strings.Join(got, " ") != "e c a b x y t root" {
		t.Errorf("order = %v", got)
	}
	if len(plan.Warnings) != 1 || !strings.Contains(plan.Warnings[0].Message, "x and y depend on each other") {
		t.Errorf("cycle warning = %+v", plan.Warnings)
	}
}

func TestVersionOnlyChanges(t *testing.T) {
	base := pkgAt("p", "p", "1.0.0")
	base.PackageJSON = []byte("{\n  \"name\": \"p\",\n  \"version\": \"1.0.0\",\n  \"files\": [\"index.js\"]\n}\n")
	base.Manifest, base.ManifestData = "p/agent-os.package.yaml", []byte("id: p # the id\nversion: \"1.0.0\"\n")
	base.Files = append(base.Files, "p/agent-os.package.yaml")
	head := base
	head.Version = "1.1.0"
	head.PackageJSON = []byte("{\"name\":\"p\",\"files\":[\"index.js\"],\"version\":\"1.1.0\"}")
	head.ManifestData = []byte("id: p   # the id\nversion: 1.1.0\n")
	in := Input{HasRoles: true, BasePackages: []Package{base}, HeadPackages: []Package{head}, Published: map[string][]string{"p": {"1.0.0"}},
		Changed: []string{"p/package.json", "p/agent-os.package.yaml"}, PR: ParsePR("feat!: nothing really", "")}
	plan, _ := Build(in)
	if len(plan.Releases) != 1 || plan.Releases[0].Next != "1.1.0" || len(plan.Releases[0].ChangedFiles) != 0 {
		t.Fatalf("a version-only change is a written version, not a breaking change: %+v %+v", plan.Releases, plan.Refusals)
	}
	// Anything else in package.json is a change.
	head.PackageJSON = []byte(`{"name":"p","files":["index.js"],"version":"1.1.0","main":"x.js"}`)
	in.HeadPackages = []Package{head}
	plan, _ = Build(in)
	if len(plan.Refusals) != 1 || !strings.Contains(plan.Refusals[0].Message, "write 2.0.0") {
		t.Fatalf("a real package.json change with a breaking title: %+v %+v", plan.Releases, plan.Refusals)
	}
	// A file that stops being shipped is a change even though its content is unchanged.
	head = base
	head.Files = []string{"p/package.json"}
	in = Input{HasRoles: true, BasePackages: []Package{base}, HeadPackages: []Package{head}, Published: map[string][]string{"p": {"1.0.0"}},
		Changed: []string{"p/package.json"}, PR: ParsePR("fix: files", "")}
	head.PackageJSON = []byte(`{"name":"p","version":"1.0.0","files":[]}`)
	in.HeadPackages = []Package{head}
	plan, _ = Build(in)
	if len(plan.Releases) != 1 || !reflect.DeepEqual(plan.Releases[0].ChangedFiles, []string{"p/agent-os.package.yaml", "p/index.js", "p/package.json"}) {
		t.Fatalf("shipped list change: %+v", plan.Releases)
	}
}

func TestPrereleasesAndOddInputs(t *testing.T) {
	run := func(published []string, written, title string) *Plan {
		base := pkgAt("p", "p", "0.0.1")
		head := base
		in := Input{HasRoles: true, BasePackages: []Package{base}, Published: map[string][]string{"p": published}, PR: ParsePR(title, ""),
			Changed: []string{"p/index.js"}}
		if written != "" {
			head = pkgAt("p", "p", written)
			in.Changed = append(in.Changed, "p/package.json")
		}
		in.HeadPackages = []Package{head}
		plan, err := Build(in)
		if err != nil {
			t.Fatal(err)
		}
		return plan
	}
	next := func(p *Plan) string {
		if len(p.Releases) != 1 {
			return fmt.Sprintf("refused(%v)", p.Refusals)
		}
		return p.Releases[0].Next
	}
	cases := []struct {
		published      []string
		written, title string
		want           string
	}{
		{[]string{"1.4.2", "2.0.0-rc.1"}, "", "fix: x", "2.0.0"},
		{[]string{"0.4.0-rc.1"}, "", "feat!: x", "0.4.0"},
		{[]string{"1.4.2"}, "2.0.0-beta.1", "feat!: x", "2.0.0-beta.1"},
		{[]string{"1.4.2"}, "1.5.0-beta.1", "feat!: x", "refused"},
		{[]string{"0.3.1"}, "0.3.5", "feat!: x", "refused"},
		{[]string{"0.3.1"}, "0.4.0", "feat!: x", "0.4.0"},
		{[]string{"1.0.0", "not-a-version"}, "", "fix: x", "1.0.1"},
		{[]string{"1.0.0"}, "v1.1.0", "fix: x", "refused"},
		{[]string{"1.0.0"}, "1.0.0+build.5", "chore: release", "refused"},
	}
	for _, tc := range cases {
		got := next(run(tc.published, tc.written, tc.title))
		if got != tc.want && !(tc.want == "refused" && strings.HasPrefix(got, "refused")) {
			t.Errorf("published %v, written %q, %q: got %s, want %s", tc.published, tc.written, tc.title, got, tc.want)
		}
	}
}

func TestDuplicateNamesAndMissingNames(t *testing.T) {
	a, b := pkgAt("a", "same", "1.0.0"), pkgAt("b", "same", "1.0.0")
	noname := pkgAt("c", "", "1.0.0")
	in := Input{HasRoles: false, HeadPackages: []Package{a, b, noname}, Published: map[string][]string{}, Changed: []string{"a/index.js"}}
	plan, _ := Build(in)
	if len(plan.Releases) != 0 || len(plan.Refusals) != 3 {
		t.Fatalf("refusals = %+v", plan.Refusals)
	}
	if !strings.Contains(plan.Refusals[0].Message, "2 packages are named same") || !strings.Contains(plan.Refusals[2].Message, "has no name") {
		t.Errorf("refusals = %+v", plan.Refusals)
	}
}

func TestPlanJSONShape(t *testing.T) {
	plan, _ := Build(examples[11].input())
	data, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schemaVersion":1,"base":"b","head":"h","title":"feat: new pack","breaking":false,"releases":[{"name":"pkg","dir":"packages/pkg","role":"pack","last":null,"next":"0.1.0","reason":"new package","changedFiles":["packages/pkg/README.md","packages/pkg/index.js","packages/pkg/package.json"],"tag":"pkg@0.1.0","released":false,"changelog":"## 0.1.0\n\n### Minor Changes\n\n- feat: new pack\n"}],"refusals":[],"warnings":[]}`
	if string(data) != want {
		t.Errorf("plan.json =\n%s\nwant\n%s", data, want)
	}
	var sb strings.Builder
	if err := plan.WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	if sb.String() != "pkg  packages/pkg  new → 0.1.0  (new package)\n\npkg@0.1.0 (packages/pkg/CHANGELOG.md):\n    ## 0.1.0\n\n    ### Minor Changes\n\n    - feat: new pack\n" {
		t.Errorf("text = %q", sb.String())
	}
}

// TestBumpProperties checks, over random histories, that whatever the plan releases is above
// every published and tagged version, that a refused package is never released, and that a
// written version is either published exactly or refused.
func TestBumpProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(20240611))
	randVersion := func() string {
		v := fmt.Sprintf("%d.%d.%d", rng.Intn(3), rng.Intn(4), rng.Intn(4))
		if rng.Intn(6) == 0 {
			v += []string{"-rc.1", "-beta.0", "-alpha"}[rng.Intn(3)]
		}
		return v
	}
	titles := []string{"fix: x", "feat: y", "feat!: z", "chore(deps)!: w", "docs: a!: b"}
	bodies := []string{"", "BREAKING CHANGE: gone", "<!-- BREAKING CHANGE: -->"}
	for iter := range 3000 {
		var published, tags []string
		for range rng.Intn(5) {
			published = append(published, randVersion())
		}
		for range rng.Intn(3) {
			tags = append(tags, randVersion())
		}
		written := ""
		if rng.Intn(2) == 0 {
			written = randVersion()
		}
		baseVersion := randVersion()
		base := pkgAt("p", "p", baseVersion)
		head := base
		in := Input{HasRoles: true, BasePackages: []Package{base}, Published: map[string][]string{"p": published}, Tags: map[string]string{},
			PR: ParsePR(titles[rng.Intn(len(titles))], bodies[rng.Intn(len(bodies))])}
		for _, v := range tags {
			in.Tags["p@"+v] = "c"
		}
		if rng.Intn(3) > 0 {
			in.Changed = append(in.Changed, "p/index.js")
		}
		if written != "" && written != baseVersion {
			head = pkgAt("p", "p", written)
			in.Changed = append(in.Changed, "p/package.json")
		}
		in.HeadPackages = []Package{head}
		plan, err := Build(in)
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Releases)+len(plan.Refusals) > 1 {
			t.Fatalf("#%d: one package gave %d releases and %d refusals", iter, len(plan.Releases), len(plan.Refusals))
		}
		for _, r := range plan.Releases {
			next := semver.MustParse(r.Next)
			for _, v := range append(append([]string{}, published...), tags...) {
				if next.Compare(semver.MustParse(v)) <= 0 {
					t.Fatalf("#%d: next %s is not above %s (published %v, tagged %v, written %q, %q)", iter, r.Next, v, published, tags, written, in.PR.Title)
				}
			}
			if head.Version != baseVersion && r.Next != head.Version {
				t.Fatalf("#%d: a written version %s was published as %s", iter, head.Version, r.Next)
			}
		}
		if len(in.Changed) == 0 && (len(plan.Releases) > 0 || len(plan.Refusals) > 0) {
			t.Fatalf("#%d: nothing changed or written, yet %+v %+v", iter, plan.Releases, plan.Refusals)
		}
	}
}
