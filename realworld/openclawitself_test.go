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
	t.Logf("held %d OpenClaw plugins to openclaw itself (%d reported) in %v", len(byID), seen, time.Since(start).Round(time.Second))
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
