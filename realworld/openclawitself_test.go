//go:build realworld

package realworld

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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
	var paths []string
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
		byID[m.ID] = e
		paths = append(paths, e.InstalledDir)
	}
	if len(paths) == 0 {
		return
	}
	start := time.Now()
	bin, env := testenv.OpenClaw(t)
	entries := map[string]any{}
	for id := range byID {
		entries[id] = map[string]any{"enabled": true}
	}
	config, err := json.Marshal(map[string]any{"plugins": map[string]any{"load": map[string]any{"paths": paths}, "entries": entries}})
	if err != nil {
		t.Fatal(err)
	}
	configPath := filepath.Join(t.TempDir(), "openclaw.json")
	if err := os.WriteFile(configPath, config, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "plugins", "inspect", "--all", "--runtime", "--json")
	cmd.Dir, cmd.Env = t.TempDir(), append(env, "OPENCLAW_CONFIG_PATH="+configPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("openclaw plugins inspect: %v\n%s", err, lastLines(stderr.String(), 20))
	}
	reports, err := decodeInspect(stdout.Bytes())
	if err != nil {
		t.Fatalf("openclaw plugins inspect: %v\n%s", err, lastLines(stdout.String(), 20))
	}
	seen := 0
	for _, r := range reports {
		e := byID[r.Plugin.ID]
		if e == nil {
			continue // one of openclaw's own bundled plugins
		}
		seen++
		e.Itself = r.verdict()
		e.ItselfTools = append([]string(nil), r.Plugin.ToolNames...)
		sort.Strings(e.ItselfTools)
	}
	for id, e := range byID {
		if e.Itself == "" {
			e.Itself = fmt.Sprintf("FAIL: openclaw did not report the plugin %q from its load paths", id)
		}
	}
	for id, e := range byID {
		if refusedTrust(e.Itself) && strings.HasPrefix(e.Name, "@openclaw/") {
			officialInstall(t, id, e)
		}
	}
	t.Logf("held %d OpenClaw plugins to openclaw itself (%d reported) in %v", len(byID), seen, time.Since(start).Round(time.Second))
}

// trustRefusals are openclaw 2026.9.6's refusals of what it gives only a trusted plugin, one
// bundled with it or officially installed (from its npm package or ClawHub listing): a plugin
// state store (dist/plugin-trust-*.mjs, assertTrustedPluginRuntime), the codex harness's
// native compaction and a reserved command (dist/loader-runtime-load-*.mjs,
// canClaimReservedCommandOwnership). A plugin loaded from a load path is neither.
var trustRefusals = []string{
	"is only available for trusted plugins",
	`requires the registry-owned "codex" harness`,
	"only bundled plugins can claim reserved command ownership",
}

// refusedTrust says whether a verdict is one of openclaw's trust refusals.
func refusedTrust(verdict string) bool {
	if !strings.HasPrefix(verdict, "FAIL") {
		return false
	}
	for _, r := range trustRefusals {
		if strings.Contains(verdict, r) {
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
	configPath := filepath.Join(t.TempDir(), "openclaw.json")
	if err := os.WriteFile(configPath, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env = append(env, "OPENCLAW_CONFIG_PATH="+configPath)
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = t.TempDir(), env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("openclaw %s: %v: %s", strings.Join(args[:2], " "), err, lastLines(stderr.String()+stdout.String(), 3))
		}
		return stdout.Bytes(), nil
	}
	if _, err := run("plugins", "install", e.Name+"@"+e.Version); err != nil {
		t.Logf("%s: not held again as an official install: %v", e.Name, err)
		return
	}
	out, err := run("plugins", "inspect", id, "--runtime", "--json")
	if err != nil {
		t.Logf("%s: not held again as an official install: %v", e.Name, err)
		return
	}
	var r inspectReport
	i := bytes.IndexByte(out, '{')
	if i < 0 {
		t.Logf("%s: not held again as an official install: no JSON report from openclaw plugins inspect", e.Name)
		return
	}
	if err := json.NewDecoder(bytes.NewReader(out[i:])).Decode(&r); err != nil || r.Plugin.ID != id {
		t.Logf("%s: not held again as an official install: openclaw plugins inspect reported %q (%v)", e.Name, r.Plugin.ID, err)
		return
	}
	t.Logf("%s: loaded from a load path: %s; as an official install from npm: %s", e.Name, e.Itself, r.verdict())
	e.Itself, e.ItselfAs = r.verdict(), "an official install from npm"
	e.ItselfTools = append([]string(nil), r.Plugin.ToolNames...)
	sort.Strings(e.ItselfTools)
}

// inspectReport is one plugin in the report of openclaw 2026.9.6's `plugins inspect --all
// --json` (dist/plugins-inspect-command-*.mjs prints buildPluginInspectRecord's records): the
// plugin's record from the registry the runtime loaded (id, status, error, toolNames), and the
// diagnostics the load left for it.
type inspectReport struct {
	Plugin struct {
		ID        string   `json:"id"`
		Status    string   `json:"status"`
		Error     string   `json:"error"`
		ToolNames []string `json:"toolNames"`
	} `json:"plugin"`
	Diagnostics []struct {
		Level   string `json:"level"`
		Message string `json:"message"`
	} `json:"diagnostics"`
}

// verdict is openclaw's verdict on the plugin: "FAIL: why" when it did not load it or left an
// error for it, else its tools.
func (r inspectReport) verdict() string {
	if r.Plugin.Status != "loaded" {
		why := r.Plugin.Error
		if why == "" {
			why = "status " + r.Plugin.Status
		}
		return "FAIL: " + firstLine(why)
	}
	for _, d := range r.Diagnostics {
		if d.Level == "error" {
			return "FAIL: " + firstLine(d.Message)
		}
	}
	if len(r.Plugin.ToolNames) == 0 {
		return "no tool"
	}
	return count(len(r.Plugin.ToolNames), "tool")
}

// decodeInspect reads the JSON array openclaw prints after whatever its plugins logged while
// they loaded.
func decodeInspect(out []byte) ([]inspectReport, error) {
	for i := bytes.IndexByte(out, '['); i >= 0; {
		var reports []inspectReport
		if err := json.NewDecoder(bytes.NewReader(out[i:])).Decode(&reports); err == nil {
			return reports, nil
		}
		next := bytes.IndexByte(out[i+1:], '[')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return nil, fmt.Errorf("no JSON report in its output")
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
