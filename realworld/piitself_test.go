//go:build realworld

package realworld

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/testenv"
)

// piItself holds what plaios said of each installed Pi package to Pi itself: the pinned Pi
// 1.6.0 loads the installed copy (`pi -e <folder>`, the package's resources by Pi's package
// rules, nothing else: no built-in tools, MCP, skills, prompts, themes or context files) and
// runs one prompt against a stand-in model, which records the tools Pi offers it. Pi's
// verdict — loaded, with which tools, or the error it printed — is then held against mcp serve's
// on the same copy and against the tools guard saw registered.
func piItself(t *testing.T, list []*entry) {
	var pis []*entry
	for _, e := range list {
		if e.Runtime == "pi" && e.InstalledDir != "" {
			pis = append(pis, e)
		}
	}
	if len(pis) == 0 {
		return
	}
	start := time.Now()
	model := &toolRecorder{offered: map[int][]string{}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	bin, agentDir, env := testenv.Pi(t)
	// One provider for every run; the run's number is its API key, which the model reads back.
	models := fmt.Sprintf(`{"providers":{"stand-in":{"baseUrl":%q,"api":"openai-completions","apiKey":"0",
"models":[{"id":"stand-in","name":"Stand-in","cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0}}]}}}`, srv.URL+"/v1")
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	twoAtATime(len(pis), func(i int) {
		e := pis[i]
		cmd := exec.Command(bin, "--offline", "--no-session", "--approve", "--no-builtin-tools", "--no-mcp", "--no-skills",
			"--no-prompt-templates", "--no-themes", "--no-context-files", "--no-extensions", "-e", e.InstalledDir,
			"--provider", "stand-in", "--model", "stand-in", "--api-key", strconv.Itoa(i), "--mode", "json", "-p", "Say ok.")
		cmd.Dir, cmd.Env = cwd, env
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		err := cmd.Run()
		tools, asked := model.tools(i)
		switch {
		case piLoadError.MatchString(stderr.String()):
			e.Itself = "FAIL: " + strings.TrimSpace(piLoadError.FindStringSubmatch(stderr.String())[1])
		case err != nil || !asked:
			e.Itself = fmt.Sprintf("FAIL: pi exited (%v) without asking the model: %s", err, firstLine(stderr.String()))
		case len(tools) == 0:
			e.Itself = "no tool"
		default:
			e.Itself = count(len(tools), "tool")
		}
		e.ItselfTools = tools
	})
	t.Logf("held %d Pi packages to Pi itself in %v", len(pis), time.Since(start).Round(time.Second))
}

// piLoadError is Pi 1.6.0's report of an extension it cannot load (dist/main.js), up to the
// first line of the cause.
var piLoadError = regexp.MustCompile(`(?m)^Error: Failed to load extension "[^"]*": (?:Failed to load extension: )?(.*)$`)

// toolRecorder is an OpenAI-compatible chat completions endpoint standing in for a model: it
// records the names of the tools each run offers and answers "ok".
type toolRecorder struct {
	mu      sync.Mutex
	offered map[int][]string
}

func (m *toolRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	run, err := strconv.Atoi(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	if err != nil || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, `{"error":{"message":"not a chat completion of a run"}}`, http.StatusBadRequest)
		return
	}
	names := []string{}
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	sort.Strings(names)
	m.mu.Lock()
	m.offered[run] = names
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	for _, c := range []string{`{"role":"assistant","content":"ok"}`, `{}`} {
		finish := "null"
		if c == `{}` {
			finish = `"stop"`
		}
		fmt.Fprintf(w, `data: {"id":"stand-in","object":"chat.completion.chunk","created":1796200000,"model":"stand-in","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", c, finish)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// tools are the names run offered the model, and whether it asked at all.
func (m *toolRecorder) tools(run int) ([]string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	names, ok := m.offered[run]
	return names, ok
}

// differences are the verdicts on what differs between a runtime itself and plaios, decided by
// reading the package: a substring of the difference, the verdict, and whether it is one of
// openclaw 2026.9.6's refusals of what it gives only a trusted plugin, one bundled with it or
// officially installed (from its npm package or ClawHub listing), which a plugin from a load
// path is not (openclawItself holds such a plugin again as an official install). Any other
// difference is UNJUDGED.
var differences = []struct {
	differs, verdict string
	refusesTrust     bool
}{
	{"Pi offers []; mcp serve serves [ask_user_question]", "plaios's limit: the extension takes its ask_user_question tool off the model's list in a run without Pi's UI (reconcile.ts, on before_agent_start), and the tool refuses to run without one (ask-user-question.ts); mcp serve, which gives it no UI, lists it, and a call gets the tool's refusal", false},
	{"is only available for trusted plugins", "the sweep's, not the plugin's nor plaios's: openclaw gives a plugin's keyed state store only to a trusted plugin, one installed from its official npm package or ClawHub listing (openclaw 2026.9.6's dist/plugin-trust-*.mjs), and the sweep loads every plugin from a load path (origin \"config\", no install record); guard treats an @openclaw/* plugin as an official install", true},
	{`requires the registry-owned "codex" harness`, "the sweep's, not the plugin's nor plaios's: openclaw lets only a bundled plugin or the official codex install claim the codex harness's native compaction and its reserved commands (dist/loader-runtime-load-*.mjs, canClaimReservedCommandOwnership), and the sweep loads every plugin from a load path; guard treats an @openclaw/* plugin as an official install", true},
	{"only bundled plugins can claim reserved command ownership", "the sweep's, not the plugin's nor plaios's: as for the codex harness above, reserved commands are a bundled or officially installed plugin's (dist/loader-runtime-load-*.mjs, canClaimReservedCommandOwnership), and the sweep loads every plugin from a load path", true},
}

// differenceVerdict is the verdict on a difference ("UNJUDGED: …" when none is known).
func differenceVerdict(d string) string {
	for _, j := range differences {
		if strings.Contains(d, j.differs) {
			return j.verdict
		}
	}
	return "UNJUDGED: " + d
}

// itselfAgreement says how plaios's verdicts on a pack compare with its runtime's own: "" when
// they agree, else what differs. For a Pi package, mcp serve loaded the installed copy exactly
// when Pi did, with the same tool names, and guard, when it loaded the package, saw the same
// tools. For an OpenClaw plugin, guard's verdict and the tools it saw registered are openclaw's
// (mcp serve serves the tools a plugin makes, openclaw lists the names its factories give too).
func itselfAgreement(e *entry) string {
	if e.Itself == "" {
		return ""
	}
	name := map[string]string{"pi": "Pi", "openclaw": "openclaw"}[e.Runtime]
	loaded := !strings.HasPrefix(e.Itself, "FAIL")
	var diffs []string
	if e.Runtime == "pi" {
		serveLoaded := !strings.HasPrefix(e.Serve, "FAIL")
		switch {
		case loaded != serveLoaded:
			diffs = append(diffs, fmt.Sprintf("Pi: %s; mcp serve: %s", e.Itself, e.Serve))
		case loaded && strings.Join(e.ItselfTools, ",") != strings.Join(e.ServedTools, ","):
			diffs = append(diffs, fmt.Sprintf("Pi offers %v; mcp serve serves %v", e.ItselfTools, e.ServedTools))
		}
	}
	if e.Guard != nil {
		var seen []string
		for _, d := range e.Guard.Descriptors {
			seen = append(seen, d.ID)
		}
		sort.Strings(seen)
		guardLoaded := e.Guard.OK || len(e.Guard.Descriptors) > 0
		switch {
		case guardLoaded && !loaded:
			diffs = append(diffs, fmt.Sprintf("guard loaded it (%v); %s: %s", seen, name, e.Itself))
		case !guardLoaded && loaded && e.Runtime == "openclaw":
			diffs = append(diffs, fmt.Sprintf("guard: %s; %s loaded it (%v)", e.Guard.Reason, name, e.ItselfTools))
		case guardLoaded && strings.Join(seen, ",") != strings.Join(e.ItselfTools, ","):
			diffs = append(diffs, fmt.Sprintf("guard saw %v; %s has %v", seen, name, e.ItselfTools))
		}
	}
	return strings.Join(diffs, "; ")
}
