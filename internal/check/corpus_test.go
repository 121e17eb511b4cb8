package check

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/pack"
)

// TestCorpus validates the real files of testdata/corpus (copied from the AgentOS, OpenClaw and
// OpenFunction repositories: twelve AgentOS packs with the repository's root, three OpenClaw
// plugins of openclaw/openclaw, two OpenClaw plugins and a Pi package of OpenFunction) and
// requires exactly the faults below, each at its file, line and column — every one a real fault
// its maintainers would accept — and nothing else, apart from what the copy itself leaves out
// (READMEs, sources, the root's index.mjs and types.d.ts, the packs the role map names but the
// copy does not hold).
func TestCorpus(t *testing.T) {
	root, err := filepath.Abs("../../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"agentos-extensions", "openclaw/tavily", "openclaw/firecrawl", "openclaw/memory-core",
		"openfunction-plugins/openclaw-openfunctions", "openfunction-plugins/openclaw-execufunction", "openfunction-plugins/pi-openfunctions"}
	res, err := Validate(paths, ValidateOptions{WorkDir: root})
	if err != nil {
		t.Fatal(err)
	}
	runtimes := map[pack.Runtime]int{}
	for _, tg := range res.Targets {
		runtimes[tg.Pack.Runtime]++
	}
	// By content: the twelve packs depend on @framers/agentos; the root catalog does not, and
	// is a plain npm package.
	if res.Summary.Packages != 19 || runtimes[pack.AgentOS] != 12 || runtimes[pack.OpenClaw] != 5 || runtimes[pack.Pi] != 1 || runtimes[pack.None] != 1 {
		t.Errorf("checked %d packages %v, want 19 (12 AgentOS, 5 OpenClaw, 1 Pi, the root)", res.Summary.Packages, runtimes)
	}
	// Artefacts of the partial copy: files the corpus did not copy.
	artefact := func(d Diagnostic) bool {
		switch d.Rule {
		case "readme-missing", "role-orphan":
			return true
		case "entry-not-shipped", "types-not-shipped":
			return d.File == "agentos-extensions/package.json" && strings.Contains(d.Message, "the file does not exist")
		}
		return false
	}
	var got []string
	for _, d := range res.Diagnostics {
		if !artefact(d) {
			got = append(got, d.Rule+" "+d.File+":"+strconv.Itoa(d.Line)+":"+strconv.Itoa(d.Col))
		}
	}
	sort.Strings(got)
	curated := func(dir string) string { return "agentos-extensions/registry/curated/" + dir }
	want := []string{
		// Manifest versions that lag package.json (web-search's is ahead).
		"agentos-version-mismatch " + curated("auth/manifest.json:4:14"),
		"agentos-version-mismatch " + curated("communications/telegram-bot/manifest.json:5:14"),
		"agentos-version-mismatch " + curated("provenance/anchor-providers/manifest.json:5:14"),
		"agentos-version-mismatch " + curated("research/web-search/manifest.json:5:14"),
		"agentos-version-mismatch " + curated("voice/piper/manifest.json:3:14"),
		// Secret properties not listed as secrets.
		"agentos-secret-undeclared " + curated("communications/telegram-bot/manifest.json:59:7"),
		"agentos-secret-undeclared " + curated("media/giphy/manifest.json:27:7"),
		"agentos-secret-undeclared " + curated("research/news-search/manifest.json:16:21"),
		"agentos-secret-undeclared " + curated("research/web-search/manifest.json:51:7"),
		"agentos-secret-undeclared agentos-extensions/templates/basic-tool/manifest.json:31:7",
		// MIT licences in an Apache-2.0 repository.
		"agentos-license " + curated("auth/package.json:29:14"),
		"agentos-license " + curated("channels/telegram/package.json:26:14"),
		"agentos-license " + curated("communications/telegram-bot/package.json:39:14"),
		"agentos-license " + curated("media/giphy/package.json:45:14"),
		"agentos-license " + curated("provenance/anchor-providers/package.json:53:14"),
		"agentos-license " + curated("research/news-search/package.json:46:14"),
		"agentos-license " + curated("research/web-search/package.json:46:14"),
		"agentos-license " + curated("safety/topicality/package.json:25:14"),
		"agentos-license " + curated("tools/zip-files/package.json:35:14"),
		"agentos-license " + curated("voice/piper/package.json:33:14"),
		"agentos-license agentos-extensions/templates/basic-tool/package.json:33:14",
		// Scoped packages without publishConfig (no key to point at: the file's start).
		"agentos-publish-access " + curated("auth/package.json:1:1"),
		"agentos-publish-access " + curated("channels/telegram/package.json:1:1"),
		"agentos-publish-access agentos-extensions/templates/basic-tool/package.json:1:1",
		// A pack's exports map without ./manifest.json (the library auth is not discovered).
		"agentos-manifest-not-exported " + curated("voice/piper/package.json:8:14"),
		// auth points main and exports at src/index.ts, which "files" leaves out (the copy has
		// no src, so the message says the file does not exist) and which Node could not load
		// from node_modules anyway: @framers/agentos-ext-auth@1.1.0 is published that way
		// (npm view @framers/agentos-ext-auth main exports) and cannot be imported.
		"entry-not-shipped " + curated("auth/package.json:8:14"),
		"entry-typescript " + curated("auth/package.json:7:11"),
		"entry-typescript " + curated("auth/package.json:9:10"),
		// OpenClaw: a key the 2026.9.6 manifest loader does not read (providers now declare
		// their variables in setup.providers[].envVars).
		"openclaw-manifest-invalid openclaw/tavily/openclaw.plugin.json:3:3",
		// Pi: the core package as a capped peer.
		"pi-peer-range openfunction-plugins/pi-openfunctions/package.json:22:40",
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("corpus findings differ\n--- got\n%s\n--- want\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
