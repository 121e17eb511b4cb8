package publish_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/publish"
	"github.com/plaios/plaios/internal/publish/publishtest"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/release"
)

// TestPublishTheSameMergeAgainRebuiltDiffers: the tarballs are rebuilt by a second run of the
// job and their bytes differ from what the first run published (a build that is not
// reproducible). A release the plan marks released, and one whose packument's gitHead is the
// head, count as done on the registry with a warning each; nothing is published, tagged or
// released twice, and the run exits 0. The same rebuilt tarball for a version published from
// another commit is still refused.
func TestPublishTheSameMergeAgainRebuiltDiffers(t *testing.T) {
	testenv.SkipShort(t, "publishes to a Verdaccio with npm")
	reg := testenv.Verdaccio(t)
	gh := testenv.GitHub(t, repo)
	f := publishtest.New(t, publishtest.Options{Scope: "again", Count: 2})
	stamp := func(head string) {
		for _, p := range f.Packages {
			if err := guard.StampGitHead(p.Tarball, head); err != nil {
				t.Fatal(err)
			}
		}
		f.Rehash()
	}
	stamp(f.Head)
	counts(t, run(t, options(f, reg, gh, &events{})), 2, 0, 0)
	assertDone(t, f, reg, gh)
	published := publishtest.Versions(t, reg.URL, f.Packages[0].Name)

	// The second run's rebuild: other bytes, the same head.
	f.ChangeTarball(0)
	f.ChangeTarball(1)
	stamp(f.Head)
	var plan release.Plan
	data, err := os.ReadFile(f.PlanFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &plan); err != nil {
		t.Fatal(err)
	}
	plan.Releases[0].Released = true // release-plan marked it; the second only has its gitHead
	data, _ = json.Marshal(plan)
	if err := os.WriteFile(f.PlanFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ev := &events{}
	res := run(t, options(f, reg, gh, ev))
	counts(t, res, 0, 2, 0)
	if res.Err() != nil || ev.count("registry", publish.StatusSkipped) != 2 || ev.count("tag", publish.StatusExists) != 2 || ev.count("release", publish.StatusExists) != 2 {
		t.Fatalf("events:\n%s", ev)
	}
	if w := ev.count("warning", ""); w != 2 || !strings.Contains(ev.String(), "was published from this commit by an earlier run, but the tarball built now differs") {
		t.Errorf("want one warning per rebuilt release:\n%s", ev)
	}
	if got := publishtest.Versions(t, reg.URL, f.Packages[0].Name); len(got) != 1 || got[f.Packages[0].Version] != published[f.Packages[0].Version] {
		t.Errorf("the registry changed: %v", got)
	}
	if tags := f.RemoteTags(); len(tags) != 2 || len(gh.Releases(repo)) != 2 {
		t.Errorf("tags %v, releases %+v: want one of each per release", tags, gh.Releases(repo))
	}

	// Without the mark, and with a registry whose versions were published from another commit,
	// other bytes are refused: only this merge's own versions are taken as done.
	g := publishtest.New(t, publishtest.Options{Scope: "other", Count: 1})
	for _, p := range g.Packages {
		if err := guard.StampGitHead(p.Tarball, g.Initial); err != nil {
			t.Fatal(err)
		}
	}
	g.Rehash()
	counts(t, run(t, options(g, reg, gh, &events{})), 1, 0, 0)
	g.ChangeTarball(0)
	g.Rehash()
	ev = &events{}
	res = run(t, options(g, reg, gh, ev))
	if res.Err() == nil || !strings.Contains(ev.String(), "already has @other/pack-1@1.0.0 with other content") {
		t.Errorf("want a refusal:\n%s", ev)
	}
}
