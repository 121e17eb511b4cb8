package check

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestCorpus validates the real files of testdata/corpus (copied from the AgentOS, OpenClaw and
// OpenFunction repositories) and requires exactly the faults its README lists — lagging manifest
// versions, undeclared secrets, MIT licences, missing publishConfig, names that do not follow
// the folder — and nothing else, apart from what the copy itself leaves out (READMEs, sources,
// the packs the role map names but the copy does not hold).
func TestCorpus(t *testing.T) {
	root, err := filepath.Abs("../../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range []string{"agentos-extensions", "openclaw/tavily", "openclaw/firecrawl", "openclaw/memory-core",
		"openfunction-plugins/openclaw-openfunctions", "openfunction-plugins/openclaw-execufunction", "openfunction-plugins/pi-openfunctions"} {
		paths = append(paths, d)
	}
	res, err := Validate(paths, ValidateOptions{WorkDir: root})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Packages != 19 {
		t.Errorf("checked %d packages, want 19 (13 AgentOS, 5 OpenClaw, 1 Pi)", res.Summary.Packages)
	}
	// Artefacts of the partial copy: files the corpus did not copy.
	artefact := func(d Diagnostic) bool {
		switch d.Rule {
		case "readme-missing", "role-orphan":
			return true
		case "entry-not-shipped", "openclaw-entry":
			return strings.Contains(d.Message, "the file does not exist")
		}
		return false
	}
	var got []string
	for _, d := range res.Diagnostics {
		if !artefact(d) {
			got = append(got, d.Rule+" "+d.File)
		}
	}
	sort.Strings(got)
	pack := func(dir string) string { return "agentos-extensions/registry/curated/" + dir }
	want := []string{
		// Manifest versions that lag package.json (web-search's is ahead).
		"agentos-version-mismatch " + pack("auth/manifest.json"),
		"agentos-version-mismatch " + pack("communications/telegram-bot/manifest.json"),
		"agentos-version-mismatch " + pack("provenance/anchor-providers/manifest.json"),
		"agentos-version-mismatch " + pack("research/web-search/manifest.json"),
		"agentos-version-mismatch " + pack("voice/piper/manifest.json"),
		// Secret properties not listed as secrets.
		"agentos-secret-undeclared " + pack("communications/telegram-bot/manifest.json"),
		"agentos-secret-undeclared " + pack("media/giphy/manifest.json"),
		"agentos-secret-undeclared " + pack("research/news-search/manifest.json"),
		"agentos-secret-undeclared " + pack("research/web-search/manifest.json"),
		"agentos-secret-undeclared agentos-extensions/templates/basic-tool/manifest.json",
		// MIT licences.
		"agentos-license " + pack("auth/package.json"),
		"agentos-license " + pack("channels/telegram/package.json"),
		"agentos-license " + pack("communications/telegram-bot/package.json"),
		"agentos-license " + pack("media/giphy/package.json"),
		"agentos-license " + pack("provenance/anchor-providers/package.json"),
		"agentos-license " + pack("research/news-search/package.json"),
		"agentos-license " + pack("research/web-search/package.json"),
		"agentos-license " + pack("safety/topicality/package.json"),
		"agentos-license " + pack("tools/zip-files/package.json"),
		"agentos-license " + pack("voice/piper/package.json"),
		"agentos-license agentos-extensions/templates/basic-tool/package.json",
		// Packs without publishConfig.
		"agentos-publish-access " + pack("auth/package.json"),
		"agentos-publish-access " + pack("channels/telegram/package.json"),
		"agentos-publish-access agentos-extensions/templates/basic-tool/package.json",
		// Exports maps without ./manifest.json.
		"agentos-manifest-not-exported " + pack("auth/package.json"),
		"agentos-manifest-not-exported " + pack("voice/piper/package.json"),
		// A name that does not follow its folder (channel-telegram in channels/telegram).
		"agentos-name " + pack("channels/telegram/package.json"),
		// OpenClaw: a key the 2026.9.6 manifest loader no longer reads.
		"openclaw-manifest-invalid openclaw/tavily/openclaw.plugin.json",
		// Pi: the core package as a capped peer.
		"pi-peer-range openfunction-plugins/pi-openfunctions/package.json",
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("corpus findings differ\n--- got\n%s\n--- want\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
