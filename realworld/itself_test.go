//go:build realworld

package realworld

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/testenv"
)

// inspected is a plugin as openclaw 2026.9.6's `plugins inspect --json` reports it.
func inspected(t *testing.T, report string) testenv.OpenClawInspected {
	t.Helper()
	var r testenv.OpenClawInspected
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// guarded is guard's result on a package that registered the tools (ok or not).
func guarded(ok bool, reason string, tools ...string) *guard.Result {
	r := &guard.Result{OK: ok, Reason: reason}
	for _, id := range tools {
		r.Descriptors = append(r.Descriptors, guard.Descriptor{ID: id})
	}
	return r
}

// TestItselfOpenClawVerdicts: openclaw's verdict on a plugin it inspected, from the reports the
// sweep met (codex and discord from load paths, feishu), and which of them are its trust
// refusals, which the sweep holds again as official installs.
func TestItselfOpenClawVerdicts(t *testing.T) {
	for _, c := range []struct {
		report, verdict string
		refusesTrust    bool
	}{
		{`{"plugin":{"id":"codex","status":"loaded","toolNames":["codex_threads","codex_plugins"]},"diagnostics":[` +
			`{"level":"error","message":"native compaction requires the registry-owned \"codex\" harness"},` +
			`{"level":"error","message":"only bundled plugins can claim reserved command ownership: codex"},` +
			`{"level":"warn","message":"OpenClaw can't verify where this plugin came from."}]}`,
			`FAIL: native compaction requires the registry-owned "codex" harness`, true},
		{`{"plugin":{"id":"discord","status":"error","error":"PluginTrustRefusalError: openKeyedStore is only available for trusted plugins in this release.\nmore"},"diagnostics":[]}`,
			"FAIL: PluginTrustRefusalError: openKeyedStore is only available for trusted plugins in this release.", true},
		{`{"plugin":{"id":"feishu","status":"loaded","toolNames":["b","a"]},"diagnostics":[{"level":"warn","message":"OpenClaw can't verify where this plugin came from."}]}`,
			"2 tools", false},
		{`{"plugin":{"id":"irc","status":"loaded","toolNames":[]},"diagnostics":[]}`, "no tool", false},
		{`{"plugin":{"id":"x","status":"disabled"},"diagnostics":[]}`, "FAIL: status disabled", false},
		{`{"plugin":{"id":"y","status":"error","error":"Cannot find module 'z'"},"diagnostics":[]}`, "FAIL: Cannot find module 'z'", false},
	} {
		r := inspected(t, c.report)
		if got := openclawVerdict(r); got != c.verdict {
			t.Errorf("%s: verdict %q, want %q", r.Plugin.ID, got, c.verdict)
		}
		if got := refusedTrust(openclawVerdict(r)); got != c.refusesTrust {
			t.Errorf("%s: refused trust %v, want %v", r.Plugin.ID, got, c.refusesTrust)
		}
	}
	e := &entry{Runtime: "openclaw"}
	setItself(e, inspected(t, `{"plugin":{"id":"feishu","status":"loaded","toolNames":["b","a"]}}`))
	if e.Itself != "2 tools" || strings.Join(e.ItselfTools, ",") != "a,b" {
		t.Errorf("setItself: %q %v", e.Itself, e.ItselfTools)
	}
}

// TestItselfAgreement: what differs between a runtime itself and plaios, and whether it is
// judged.
func TestItselfAgreement(t *testing.T) {
	for _, c := range []struct {
		name    string
		e       entry
		differs string // "" when they agree
		judged  bool
	}{
		{"openclaw agrees", entry{Runtime: "openclaw", Itself: "2 tools", ItselfTools: []string{"a", "b"}, Guard: guarded(true, "", "b", "a")}, "", true},
		{"openclaw agrees, no tool", entry{Runtime: "openclaw", Itself: "no tool", Guard: guarded(true, "")}, "", true},
		{"openclaw has other tools", entry{Runtime: "openclaw", Itself: "1 tool", ItselfTools: []string{"a"}, Guard: guarded(true, "", "a", "b")}, "guard saw [a b]; openclaw has [a]", false},
		{"guard failed what openclaw loads", entry{Runtime: "openclaw", Itself: "1 tool", ItselfTools: []string{"a"}, Guard: guarded(false, "it threw")}, "guard: it threw; openclaw loaded it ([a])", false},
		{"openclaw's trust", entry{Runtime: "openclaw", Itself: "FAIL: PluginTrustRefusalError: openKeyedStore is only available for trusted plugins in this release.", Guard: guarded(true, "")},
			"guard loaded it ([]); openclaw: FAIL: PluginTrustRefusalError", true},
		{"openclaw refuses what guard refuses", entry{Runtime: "openclaw", Itself: "FAIL: Cannot find module 'z'", Guard: guarded(false, "Cannot find module 'z'")}, "", true},
		{"pi agrees", entry{Runtime: "pi", Itself: "1 tool", ItselfTools: []string{"a"}, Serve: "1 tool", ServedTools: []string{"a"}, Guard: guarded(true, "", "a")}, "", true},
		{"pi and mcp serve", entry{Runtime: "pi", Itself: "FAIL: Cannot find module 'ollama'", Serve: "1 tool", ServedTools: []string{"a"}}, "Pi: FAIL: Cannot find module 'ollama'; mcp serve: 1 tool", false},
		{"pi without a UI", entry{Runtime: "pi", Itself: "no tool", Serve: "1 tool", ServedTools: []string{"ask_user_question"}, Guard: guarded(true, "", "ask_user_question")},
			"Pi offers []; mcp serve serves [ask_user_question]; guard saw [ask_user_question]; Pi has []", true},
	} {
		got := itselfAgreement(&c.e)
		if (c.differs == "") != (got == "") || !strings.Contains(got, c.differs) {
			t.Errorf("%s: differs %q, want %q", c.name, got, c.differs)
		}
		if judged := !strings.HasPrefix(differenceVerdict(got), "UNJUDGED: "); got != "" && judged != c.judged {
			t.Errorf("%s: judged %v, want %v (%s)", c.name, judged, c.judged, differenceVerdict(got))
		}
	}
}

// TestRenderNamesTheUnjudged: the table counts a failure of a kind no judgement covers as
// unjudged and render names its package, so that TestRealWorld fails on it; a judged failure
// and a package guard passed are not named.
func TestRenderNamesTheUnjudged(t *testing.T) {
	list := []*entry{
		{Name: "@demo/ok", Runtime: "agentos", Version: "1.0.0", Guard: guarded(true, "", "search")},
		{Name: "@demo/judged", Runtime: "agentos", Version: "1.0.0", Guard: guarded(false, "npm install: ssh: Could not resolve hostname github.com")},
		{Name: "@demo/new-kind", Runtime: "agentos", Version: "1.0.0", Guard: guarded(false, "createExtensionPack threw: something nobody has read yet")},
	}
	table, unjudged := render(list, 0)
	if len(unjudged) != 1 || unjudged[0] != "@demo/new-kind" {
		t.Errorf("render named %q as unjudged, want only @demo/new-kind", unjudged)
	}
	if !strings.Contains(table, "3 packages: 1 guard ok, 2 guard failed, 0 not published, 1 unjudged") || !strings.Contains(table, "UNJUDGED: createExtensionPack threw") {
		t.Errorf("the table does not count and mark the unjudged package:\n%s", table)
	}
}

// TestFromProject: a file under the project the pack was installed into is named from there;
// a path elsewhere, or one that only begins like the project's, is left as it was.
func TestFromProject(t *testing.T) {
	project := "/sweep/installed/pi/0xkobold__pi-ollama"
	said := "FAIL: Cannot find module 'ollama' Require stack: - " + project + "/node_modules/@0xkobold/pi-ollama/dist/shared.js - /usr/lib/node.js - " + project + "-2/x.js"
	want := "FAIL: Cannot find module 'ollama' Require stack: - node_modules/@0xkobold/pi-ollama/dist/shared.js - /usr/lib/node.js - " + project + "-2/x.js"
	if got := fromProject(project, said); got != want {
		t.Errorf("fromProject gave\n%s\nwant\n%s", got, want)
	}
}
