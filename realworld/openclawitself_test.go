//go:build realworld

package realworld

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/testenv"
)

// openclawItself holds what plaios said of each installed OpenClaw plugin to openclaw itself:
// the pinned openclaw loads every installed plugin at once from its configuration's load paths,
// each enabled by its manifest's id, and reports what it made of each (`plugins inspect --all
// --runtime --json`: the plugin's status, its diagnostics and the names of the tools it
// registered). openclaw's verdict — loaded, with which tools, or its first error — is then held
// against guard's on the same package (itselfAgreement).
func openclawItself(t *testing.T, list []*entry) {
	byID := map[string]*entry{}
	folders := map[string]string{}
	for _, e := range list {
		if e.Runtime != "openclaw" || e.InstalledDir == "" {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(e.InstalledDir, "openclaw.plugin.json"))
		if err != nil {
			e.Itself = "FAIL: no openclaw.plugin.json in the installed copy"
			continue
		}
		var m struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &m); err != nil || m.ID == "" {
			e.Itself = "FAIL: openclaw.plugin.json has no id"
			continue
		}
		byID[m.ID], folders[m.ID] = e, e.InstalledDir
	}
	if len(folders) == 0 {
		return
	}
	start := time.Now()
	bin, env := testenv.OpenClaw(t)
	seen := 0
	for _, r := range testenv.InspectOpenClawLoadPaths(t, bin, env, t.TempDir(), folders) {
		e := byID[r.Plugin.ID]
		if e == nil {
			continue // one of openclaw's own bundled plugins
		}
		seen++
		setItself(e, r)
	}
	for id, e := range byID {
		switch {
		case e.Itself == "":
			e.Itself = fmt.Sprintf("FAIL: openclaw did not report the plugin %q from its load paths", id)
		case refusedTrust(e.Itself) && strings.HasPrefix(e.Name, "@openclaw/"):
			officialInstall(t, id, e)
		}
	}
	t.Logf("held %d OpenClaw plugins to openclaw itself (%d reported) in %v", len(byID), seen, time.Since(start).Round(time.Second))
}

// refusedTrust says whether a verdict is one of openclaw's refusals of what it gives only a
// trusted plugin (differences, refusesTrust).
func refusedTrust(verdict string) bool {
	if !strings.HasPrefix(verdict, "FAIL") {
		return false
	}
	for _, d := range differences {
		if d.refusesTrust && strings.Contains(verdict, d.differs) {
			return true
		}
	}
	return false
}

// officialInstall holds an official plugin that openclaw refused trust from a load path to
// openclaw again as its users get it: installed from npm at the sweep's version (`openclaw
// plugins install <name>@<version>`, which records an official install: trust reason
// "trusted-official") into a home of its own, and inspected there (`plugins inspect <id>
// --runtime --json`). When the install or the inspect fails, the load path's verdict stays.
func officialInstall(t *testing.T, id string, e *entry) {
	bin, env := testenv.OpenClaw(t)
	home := t.TempDir()
	testenv.WriteFiles(t, home, map[string]string{"openclaw.json": "{}\n"})
	env = append(env, "OPENCLAW_CONFIG_PATH="+filepath.Join(home, "openclaw.json"))
	if out, err := testenv.RunErr(t.TempDir(), env, bin, "plugins", "install", e.Name+"@"+e.Version); err != nil {
		t.Logf("%s: not held again as an official install: openclaw plugins install: %v\n%s", e.Name, err, out)
		return
	}
	var r testenv.OpenClawInspected
	if err := testenv.OpenClawInspect(t.TempDir(), env, bin, &r, id); err != nil || r.Plugin.ID != id {
		t.Logf("%s: not held again as an official install: openclaw reported %q (%v)", e.Name, r.Plugin.ID, err)
		return
	}
	was := e.Itself
	setItself(e, r)
	e.ItselfAs = "an official install from npm"
	t.Logf("%s: loaded from a load path: %s; as an official install from npm: %s", e.Name, was, e.Itself)
}

// setItself records openclaw's verdict on the plugin it inspected and the names of its tools.
func setItself(e *entry, r testenv.OpenClawInspected) {
	e.Itself = openclawVerdict(r)
	e.ItselfTools = append([]string(nil), r.Plugin.ToolNames...)
	sort.Strings(e.ItselfTools)
}

// openclawVerdict is openclaw's verdict on a plugin it inspected: "FAIL: why" when it did not
// load it or left an error for it, else its tools.
func openclawVerdict(r testenv.OpenClawInspected) string {
	if why := r.Failure(); why != "" {
		return "FAIL: " + firstLine(why)
	}
	if len(r.Plugin.ToolNames) == 0 {
		return "no tool"
	}
	return count(len(r.Plugin.ToolNames), "tool")
}
