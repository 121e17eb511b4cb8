package cmd

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/setup"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/release"
)

// The plaios version the workflows of these tests pin; the fake download serves it.
const pinned = "9.9.9"

// fakeReleases serves what a plaios release on GitHub holds, as goreleaser writes it (the
// archive plaios_<version>_linux_amd64.tar.gz holding the plaios binary and README.md, and
// checksums.txt with "<sha256>  <file>" lines), at /v<version>/<file>. GitHub's release
// downloads cannot be reached here; this is the only stand-in of the workflow test. The binary
// is this test binary, which runs plaios when PLAIOS_CMD_TEST_AS_PLAIOS=1. Version 9.9.8's
// checksums.txt names another archive's hash: the install step must refuse it.
func fakeReleases(t *testing.T) *httptest.Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	var archive bytes.Buffer
	// Stored, not compressed: still the gzip that tar xzf reads, without the race-built test
	// binary spending 15 s of CPU deflating 30 MB of itself.
	zw, err := gzip.NewWriterLevel(&archive, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"README.md", 0o644, []byte("# plaios\n")}, {"plaios", 0o755, bin}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(archive.Bytes())
	files := map[string][]byte{}
	for _, v := range []string{pinned, "9.9.8"} {
		name := "plaios_" + v + "_linux_amd64.tar.gz"
		files["/v"+v+"/"+name] = archive.Bytes()
		h := hex.EncodeToString(sum[:])
		if v == "9.9.8" {
			h = strings.Repeat("0", 64)
		}
		files["/v"+v+"/checksums.txt"] = []byte(strings.Repeat("a", 64) + "  plaios_" + v + "_darwin_arm64.tar.gz\n" + h + "  " + name + "\n")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// workflow is the part of a GitHub Actions workflow the runner below reads.
type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Env      map[string]string `yaml:"env"`
		Strategy struct {
			Matrix map[string][]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			If   string            `yaml:"if"`
			Env  map[string]string `yaml:"env"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// runner runs a workflow's jobs locally, as GitHub's runner would on ubuntu-latest: each run:
// step with bash -eo pipefail in the checkout, with the runner's variables (GITHUB_EVENT_PATH,
// GITHUB_PATH, GITHUB_OUTPUT, GITHUB_ENV, RUNNER_TEMP…), the workflow's, job's and step's env,
// GITHUB_PATH's folders put first on PATH for the next steps, and the steps after a failure
// skipped unless their if: says otherwise. The three actions the workflows use are done by the
// runner itself: checkout (a full clone of the remote at the commit), setup-node (node and npm
// are on PATH already) and upload-sarif (the file must be SARIF 2.1.0). Any other action, and
// any expression it does not know, fails the test: the files are run as written.
type runner struct {
	t         *testing.T
	remote    string
	commit    string
	event     string // "pull_request" or "push"
	eventJSON string
	env       []string          // the machine: npm to Verdaccio, GitHub's API, the fake download
	secrets   map[string]string // secrets.NAME
	sarif     []string          // the SARIF files uploaded
}

// job runs one job (one matrix cell when matrix is set) and returns whether every step passed,
// with the steps' combined output.
func (r *runner) job(wf *workflow, name string, matrix map[string]string) (bool, string) {
	t := r.t
	t.Helper()
	job, ok := wf.Jobs[name]
	if !ok {
		t.Fatalf("the workflow has no job %s", name)
	}
	tmp := t.TempDir()
	work := filepath.Join(tmp, "workspace")
	runnerTemp := filepath.Join(tmp, "runner-temp")
	files := map[string]string{}
	for _, f := range []string{"event.json", "github_path", "github_output", "github_env", "github_step_summary"} {
		files[f] = filepath.Join(tmp, f)
		if err := os.WriteFile(files[f], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(files["event.json"], []byte(r.eventJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(runnerTemp, 0o755); err != nil {
		t.Fatal(err)
	}
	expr := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
	eval := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			switch {
			case strings.HasPrefix(e, "matrix."):
				if v, ok := matrix[strings.TrimPrefix(e, "matrix.")]; ok {
					return v
				}
			case strings.HasPrefix(e, "secrets."):
				if v, ok := r.secrets[strings.TrimPrefix(e, "secrets.")]; ok {
					return v
				}
			}
			t.Fatalf("the runner does not know the expression %q", m)
			return ""
		})
	}
	var paths []string
	var out strings.Builder
	failed := false
	for i, st := range job.Steps {
		if st.If != "" {
			cond := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(st.If), "${{"), "}}"))
			run := true
			for _, part := range strings.Split(cond, "&&") {
				part = strings.TrimSpace(part)
				switch {
				case part == "!cancelled()" || part == "always()":
				case regexp.MustCompile(`^hashFiles\('([^']+)'\) != ''$`).MatchString(part):
					f := regexp.MustCompile(`'([^']+)'`).FindStringSubmatch(part)[1]
					if _, err := os.Stat(filepath.Join(work, f)); err != nil {
						run = false
					}
				default:
					t.Fatalf("the runner does not know the condition %q", st.If)
				}
			}
			if !run {
				continue
			}
		} else if failed {
			continue
		}
		switch {
		case strings.HasPrefix(st.Uses, "actions/checkout@"):
			testenv.Git(t, tmp, "clone", "-q", r.remote, work)
			testenv.Git(t, work, "checkout", "-q", r.commit)
			continue
		case strings.HasPrefix(st.Uses, "actions/setup-node@"):
			testenv.LookPath(t, "node")
			continue
		case strings.HasPrefix(st.Uses, "github/codeql-action/upload-sarif@"):
			data, err := os.ReadFile(filepath.Join(work, st.With["sarif_file"]))
			var doc struct {
				Version string `json:"version"`
				Runs    []any  `json:"runs"`
			}
			if err != nil || json.Unmarshal(data, &doc) != nil || doc.Version != "2.1.0" || len(doc.Runs) != 1 {
				t.Fatalf("upload-sarif: %s is not SARIF 2.1.0 (%v):\n%s", st.With["sarif_file"], err, data)
			}
			r.sarif = append(r.sarif, string(data))
			continue
		case st.Uses != "":
			t.Fatalf("the runner cannot do the action %s", st.Uses)
		}
		env := append([]string{}, r.env...)
		env = append(env, "GITHUB_ACTIONS=true", "CI=true", "RUNNER_OS=Linux", "RUNNER_TEMP="+runnerTemp,
			"GITHUB_WORKSPACE="+work, "GITHUB_EVENT_NAME="+r.event, "GITHUB_EVENT_PATH="+files["event.json"],
			"GITHUB_PATH="+files["github_path"], "GITHUB_OUTPUT="+files["github_output"], "GITHUB_ENV="+files["github_env"],
			"GITHUB_STEP_SUMMARY="+files["github_step_summary"], "GITHUB_SHA="+r.commit, "GITHUB_REPOSITORY=acme/packs")
		for _, m := range []map[string]string{wf.Env, job.Env, st.Env} {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				env = append(env, k+"="+eval(m[k]))
			}
		}
		env = append(env, r.overrides()...)
		env = append(env, "PATH="+strings.Join(append(append([]string{}, paths...), os.Getenv("PATH")), string(os.PathListSeparator)))
		if strings.Contains(st.Run, "${{") {
			t.Fatalf("step %d (%s) has an expression in its script; put it in env:", i, st.Name)
		}
		script := filepath.Join(runnerTemp, fmt.Sprintf("step%d.sh", i))
		if err := os.WriteFile(script, []byte(st.Run), 0o755); err != nil {
			t.Fatal(err)
		}
		c := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		c.Dir, c.Env = work, env
		res, err := c.CombinedOutput()
		fmt.Fprintf(&out, "--- %s (exit %v)\n%s", st.Name, err, res)
		if err != nil {
			failed = true
		}
		data, _ := os.ReadFile(files["github_path"])
		paths = nil
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if l != "" {
				paths = append([]string{l}, paths...)
			}
		}
	}
	return !failed, out.String()
}

// overrides are the machine's settings that win over the workflow's env: where the release
// download is served (the fake), and the switch that makes the downloaded test binary plaios.
func (r *runner) overrides() []string {
	var out []string
	for _, kv := range r.env {
		if strings.HasPrefix(kv, "PLAIOS_DOWNLOAD=") || strings.HasPrefix(kv, asPlaios+"=") {
			out = append(out, kv)
		}
	}
	return out
}

func readWorkflow(t *testing.T, file string) *workflow {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	return &wf
}

// TestInitWorkflowsRun runs `plaios init` in a repository, commits what it wrote, merges a pull
// request, and then runs the two workflows' steps as written: the pull request check (validate
// to SARIF, guard in each of the three shards) on a pull_request event, and the release job on
// the push event of the merge — twice, the second run adding nothing. The plaios they install
// comes from the fake release download, checked against its checksums.txt; an archive whose
// checksum does not match is refused.
func TestInitWorkflowsRun(t *testing.T) {
	testenv.SkipShort(t, "runs the workflows against Verdaccio")
	dl := fakeReleases(t)
	var initOut string
	j := newReleaseJob(t, func(j *releaseJob, work string) {
		c := startPlaios(t, work, append(testenv.CleanEnv(), "npm_config_registry="+j.reg.URL, "TMPDIR="+t.TempDir()),
			"init", "--plaios-version", pinned)
		if code := c.wait(t); code != 0 {
			t.Fatalf("plaios init: exit %d\n%s%s", code, c.stdout.String(), c.stderr.String())
		}
		initOut = c.stdout.String()
	})
	if initOut != "wrote .plaios.yaml\nwrote .github/workflows/plaios-check.yml\nwrote .github/workflows/plaios-release.yml\nwrote .gitignore\n" {
		t.Errorf("plaios init printed:\n%s", initOut)
	}
	// The release job reads the registry from .plaios.yaml: point it at this test's Verdaccio.
	clone := filepath.Join(t.TempDir(), "clone")
	testenv.Git(t, filepath.Dir(clone), "clone", "-q", j.remote, clone)
	cfg, err := os.ReadFile(filepath.Join(clone, setup.ConfigFile))
	if err != nil || !strings.Contains(string(cfg), "runtime: agentos\nregistry: "+j.reg.URL+"\nscope: \"@demo\"\n") {
		t.Fatalf(".plaios.yaml (%v):\n%s", err, cfg)
	}

	r := &runner{t: t, remote: j.remote, commit: j.head,
		env:     append(append([]string{}, j.env...), "PLAIOS_DOWNLOAD="+dl.URL, asPlaios+"=1"),
		secrets: map[string]string{"GITHUB_TOKEN": j.gh.Token, "NPM_TOKEN": "dummy-test-token"}}

	// The pull request check.
	r.event = "pull_request"
	r.eventJSON = fmt.Sprintf(`{"action":"opened","number":7,"pull_request":{"number":7,"title":%q,"body":"Says good day instead.","head":{"sha":%q}}}`, jobTitle, j.head)
	check := readWorkflow(t, filepath.Join(clone, setup.CheckWorkflow))
	if ok, out := r.job(check, "validate", nil); !ok || len(r.sarif) != 1 || !strings.Contains(out, "plaios_"+pinned+"_linux_amd64.tar.gz: OK") {
		t.Fatalf("validate job failed:\n%s", out)
	}
	guarded := 0
	for _, shard := range check.Jobs["guard"].Strategy.Matrix["shard"] {
		ok, out := r.job(check, "guard", map[string]string{"shard": fmt.Sprint(shard)})
		if !ok {
			t.Fatalf("guard shard %v failed:\n%s", shard, out)
		}
		if strings.Contains(out, "ok "+jobPack+"@0.1.0") {
			guarded++
		}
	}
	if guarded != 1 {
		t.Errorf("the pack must be guarded in exactly one shard, was in %d", guarded)
	}

	// The release job on the merge's push event, twice.
	r.event = "push"
	r.eventJSON = fmt.Sprintf(`{"ref":"refs/heads/main","after":%q,"head_commit":{"id":%q,"message":%q}}`, j.head, j.head, jobTitle+"\n\nSays good day instead.")
	rel := readWorkflow(t, filepath.Join(clone, setup.ReleaseFlow))
	ok, out := r.job(rel, "release", nil)
	if !ok || !strings.Contains(out, "published "+jobPack+"@0.1.1") {
		t.Fatalf("release job failed:\n%s", out)
	}
	j.checkReleasedOnce(t)
	t.Logf("release job:\n%s", out)
	ok, out = r.job(rel, "release", nil)
	if !ok || !strings.Contains(out, "released from this commit already") || !strings.Contains(out, "published 0, skipped 1, failed 0") {
		t.Fatalf("the release job run again:\n%s", out)
	}
	j.checkReleasedOnce(t)
	if got := j.remoteTags(t); len(got) != 2 || got[release.Tag(jobPack, "0.1.1")] != j.head {
		t.Errorf("tags %v", got)
	}

	// An archive that does not match checksums.txt is never unpacked.
	bad := *rel
	bad.Env = map[string]string{"PLAIOS_VERSION": "9.9.8", "PLAIOS_DOWNLOAD": rel.Env["PLAIOS_DOWNLOAD"]}
	ok, out = r.job(&bad, "release", nil)
	if ok || !strings.Contains(out, "FAILED") || strings.Contains(out, "--- Plan the release") {
		t.Errorf("a wrong checksum must stop the job at the install step:\n%s", out)
	}
}

// TestInitCommand: --dry-run lists and writes nothing; an existing file is refused with exit 2
// unless --force; --no-github writes the configuration only.
func TestInitCommand(t *testing.T) {
	dir := t.TempDir()
	testenv.GitInit(t, dir)
	testenv.WriteFiles(t, dir, map[string]string{"package.json": `{"name": "x", "private": true}`, ".gitignore": "node_modules\n"})
	run := func(args ...string) (int, string, string) {
		c := startPlaios(t, dir, append(testenv.CleanEnv(), "TMPDIR="+t.TempDir()), append([]string{"init"}, args...)...)
		return c.wait(t), c.stdout.String(), c.stderr.String()
	}
	code, out, _ := run("--dry-run", "--plaios-version", "1.2.3")
	if code != 0 || out != "would write .plaios.yaml\nwould write .github/workflows/plaios-check.yml\nwould write .github/workflows/plaios-release.yml\nwould append .plaios/ .env* to .gitignore\ndry run: runtime plaios, registry https://registry.npmjs.org/, release branch main; nothing was written\n" {
		t.Errorf("dry run: %d\n%s", code, out)
	}
	if gi, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(gi) != "node_modules\n" || fileExists(filepath.Join(dir, ".plaios.yaml")) || fileExists(filepath.Join(dir, ".github")) {
		t.Errorf("--dry-run wrote something")
	}
	if code, _, errOut := run("--plaios-version", "1.2.3"); code != 0 || errOut != "" {
		t.Fatalf("init: %d %s", code, errOut)
	}
	code, _, errOut := run("--plaios-version", "1.2.3")
	if code != exit.Usage || !strings.Contains(errOut, "already exist") || !strings.Contains(errOut, "--force") {
		t.Errorf("a second init must be refused with exit 2: %d %s", code, errOut)
	}
	if code, out, _ := run("--plaios-version", "1.2.4", "--force"); code != 0 || !strings.Contains(out, "wrote .github/workflows/plaios-release.yml") || strings.Contains(out, ".gitignore") {
		t.Errorf("--force: %d %s", code, out)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, setup.ReleaseFlow)); !strings.Contains(string(data), `PLAIOS_VERSION: "1.2.4"`) {
		t.Errorf("--force did not replace the workflow")
	}
	if code, _, errOut := run("--runtime", "elixir"); code != exit.Usage || !strings.Contains(errOut, "--runtime \"elixir\" is not valid") {
		t.Errorf("bad runtime: %d %s", code, errOut)
	}
	other := t.TempDir()
	testenv.WriteFiles(t, other, map[string]string{"package.json": `{"name": "y"}`})
	c := startPlaios(t, other, append(testenv.CleanEnv(), "TMPDIR="+t.TempDir()), "init", "--no-github", "--registry", "http://127.0.0.1:4873/")
	if code := c.wait(t); code != 0 || c.stdout.String() != "wrote .plaios.yaml\nwrote .gitignore\n" {
		t.Errorf("--no-github: %d\n%s%s", code, c.stdout.String(), c.stderr.String())
	}
	if data, _ := os.ReadFile(filepath.Join(other, ".plaios.yaml")); !strings.Contains(string(data), "registry: http://127.0.0.1:4873/\ngithub:\n  releases: false") {
		t.Errorf(".plaios.yaml:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(other, ".github")); err == nil {
		t.Error("--no-github wrote workflows")
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
