package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/publish"
	"github.com/plaios/plaios/internal/publish/publishtest"
	"github.com/plaios/plaios/internal/testenv"
)

const publishReleases = 20

// BenchmarkPublish publishes a plan of 20 releases to a local Verdaccio with plaios — the
// registry step, 20 tags pushed in one push to a bare remote, 20 GitHub releases on the fake
// GitHub — and measures plaios's overhead over the npm publish calls it makes: its whole run
// minus the time its npm processes took (checking the tarballs, reading the registry before
// and after, tagging, pushing, writing the releases). It must stay under 10%.
//
// As a cross-check it also runs the very same `npm publish` commands bare, one after the
// other, for 20 other packages of the same shape, half before and half after the plaios run.
// That comparison is reported, not asserted: on a shared machine two sequences of 20 node
// processes differ by more than plaios's overhead from one minute to the next.
func BenchmarkPublish(b *testing.B) {
	reg := testenv.Verdaccio(b)
	gh := testenv.GitHub(b, "acme/bench")
	env := append(reg.NPMEnv(), "GITHUB_TOKEN="+gh.Token, "GITHUB_API_URL="+gh.URL)
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	// One npm run before measuring, so that neither side pays for a cold disk cache.
	testenv.Run(b, b.TempDir(), env, "npm", "--version")

	var bare, total, inNPM time.Duration
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		floor := publishtest.New(b, publishtest.Options{Scope: fmt.Sprintf("floor%d", n), Count: publishReleases})
		subject := publishtest.New(b, publishtest.Options{Scope: fmt.Sprintf("bench%d", n), Count: publishReleases})
		b.StartTimer()

		half := func(ps []publishtest.Package) {
			start := time.Now()
			for _, p := range ps {
				testenv.Run(b, floor.Dir, env, "npm", publish.NPMArgs(p.Tarball, reg.URL, p.Version, false)...)
			}
			bare += time.Since(start)
		}
		half(floor.Packages[:publishReleases/2])

		start := time.Now()
		res, err := publish.Run(context.Background(), publish.Options{
			Dir: subject.Dir, Plan: "plan.json", Packs: subject.Packs, Registry: reg.URL, GitHubRepo: "acme/bench",
			Provenance: publish.ProvenanceOff, Getenv: func(k string) string { return vars[k] }, Env: env,
		})
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		inNPM += res.NPM
		half(floor.Packages[publishReleases/2:])
		if p, s, f := res.Counts(); p != publishReleases || s != 0 || f != 0 {
			b.Fatalf("published %d, skipped %d, failed %d", p, s, f)
		}
		if tags := subject.RemoteTags(); len(tags) != publishReleases {
			b.Fatalf("%d tags on the remote", len(tags))
		}
	}
	b.StopTimer()
	if n := len(gh.Releases("acme/bench")); n != publishReleases*b.N {
		b.Fatalf("%d GitHub releases, want %d", n, publishReleases*b.N)
	}
	overhead := (total - inNPM).Seconds() / inNPM.Seconds()
	versusBare := (total - bare).Seconds() / bare.Seconds()
	per := func(d time.Duration) time.Duration { return (d / time.Duration(b.N)).Round(time.Millisecond) }
	b.ReportMetric(per(total).Seconds(), "plaios-s")
	b.ReportMetric(per(inNPM).Seconds(), "its-npm-s")
	b.ReportMetric(100*overhead, "overhead-%")
	b.ReportMetric(per(bare).Seconds(), "bare-npm-s")
	b.Logf("plaios publish of %d releases: %v, of which its npm publish calls %v: overhead %v (%.1f%%)",
		publishReleases, per(total), per(inNPM), per(total-inNPM), 100*overhead)
	b.Logf("the same %d npm publish calls run bare: %v (plaios's whole run is %+.1f%% of that)", publishReleases, per(bare), 100*versusBare)
	if overhead > 0.10 {
		b.Errorf("plaios's overhead over its npm publish calls is %.1f%%, over the 10%% budget", 100*overhead)
	}
}
