package testenv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// OpenClawInspected is one plugin of what openclaw 2026.9.6's `plugins inspect --json` reports
// (dist/plugins-inspect-command-*.mjs prints buildPluginInspectRecord's records): the plugin's
// record from the registry its runtime loaded, and the diagnostics the load left for it.
type OpenClawInspected struct {
	Plugin struct {
		ID        string   `json:"id"`
		Status    string   `json:"status"` // "loaded" when openclaw loaded it
		Error     string   `json:"error"`  // why not, when it did not
		ToolNames []string `json:"toolNames"`
	} `json:"plugin"`
	Diagnostics []struct {
		Level   string `json:"level"` // "error", "warn"
		Message string `json:"message"`
	} `json:"diagnostics"`
}

// Failure is why openclaw did not take the plugin, "" when it did: its status is not "loaded"
// (the registry's error, else the status), or the load left an error for it. A warning is not
// a refusal: openclaw warns every plugin from a load path that it cannot verify where the plugin
// came from, and loads it (dist/loader-runtime-load-*.mjs pushes that diagnostic at level
// "warn").
func (r OpenClawInspected) Failure() string {
	if r.Plugin.Status != "loaded" {
		if r.Plugin.Error != "" {
			return r.Plugin.Error
		}
		return "status " + r.Plugin.Status
	}
	for _, d := range r.Diagnostics {
		if d.Level == "error" {
			return d.Message
		}
	}
	return ""
}

// InspectOpenClawLoadPaths has the pinned openclaw (bin and env from OpenClaw) load the plugins
// in folders (a plugin's folder by its manifest's id) from its configuration's load paths, each
// enabled, with a configuration and a state folder of this call's own, and returns what
// `plugins inspect --all --runtime --json`, run in dir, reports of every plugin: these and
// openclaw's bundled ones.
func InspectOpenClawLoadPaths(t testing.TB, bin string, env []string, dir string, folders map[string]string) []OpenClawInspected {
	t.Helper()
	ids := make([]string, 0, len(folders))
	for id := range folders {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var paths []string
	entries := map[string]any{}
	for _, id := range ids {
		paths = append(paths, folders[id])
		entries[id] = map[string]any{"enabled": true}
	}
	config, err := json.Marshal(map[string]any{"plugins": map[string]any{"load": map[string]any{"paths": paths}, "entries": entries}})
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	WriteFiles(t, home, map[string]string{"openclaw.json": string(config)})
	env = append(append([]string(nil), env...), "OPENCLAW_CONFIG_PATH="+filepath.Join(home, "openclaw.json"), "OPENCLAW_STATE_DIR="+filepath.Join(home, "state"))
	var inspected []OpenClawInspected
	if err := OpenClawInspect(dir, env, bin, &inspected, "--all"); err != nil {
		t.Fatal(err)
	}
	return inspected
}

// OpenClawInspect runs openclaw's `plugins inspect <args> --runtime --json` in dir and decodes
// its report into v: a list of OpenClawInspected for --all, else one. openclaw runs the plugins'
// code in its own process, and what a plugin prints goes to the same standard output, so the
// report is the first JSON value there that decodes into v.
func OpenClawInspect(dir string, env []string, bin string, v any, args ...string) error {
	cmd := exec.Command(bin, append(append([]string{"plugins", "inspect"}, args...), "--runtime", "--json")...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("openclaw plugins inspect: %v\n%s", err, stderr.String())
	}
	if err := decodeFirstJSON(stdout.Bytes(), v); err != nil {
		return fmt.Errorf("openclaw plugins inspect --json: %v\n%s", err, stdout.String())
	}
	return nil
}

// decodeFirstJSON decodes into v the first JSON value in out, starting at a '[' or '{', that
// decodes into it; whatever follows it is ignored.
func decodeFirstJSON(out []byte, v any) error {
	for i := range out {
		if out[i] != '[' && out[i] != '{' {
			continue
		}
		if err := json.NewDecoder(bytes.NewReader(out[i:])).Decode(v); err == nil {
			return nil
		}
	}
	return errors.New("no JSON report in its output")
}
