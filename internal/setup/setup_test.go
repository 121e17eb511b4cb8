package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/testenv"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	testenv.WriteFiles(t, dir, files)
}

func agentosRepo(t *testing.T, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"package.json": `{"name": "agentos-extensions", "private": true, "workspaces": ["registry/curated/*/*"]}`,
		"registry/curated/research/search/package.json":   `{"name": "@acme/agentos-ext-search", "version": "1.0.0"}`,
		"registry/curated/research/search/manifest.json":  `{"id": "com.acme.search", "extensions": [{"kind": "tool", "id": "search"}]}`,
		"registry/curated/research/weather/package.json":  `{"name": "@acme/agentos-ext-weather", "version": "1.0.0"}`,
		"registry/curated/research/weather/manifest.json": `{"id": "com.acme.weather", "extensions": [{"kind": "tool", "id": "weather"}]}`,
		".gitignore": "dist\n/node_modules\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	write(t, dir, files)
	testenv.GitInit(t, dir)
	return dir
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// lint runs actionlint v1.7.12 (the library) over a workflow, as `actionlint` would.
func lint(t *testing.T, dir, path string, content []byte) {
	t.Helper()
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{WorkingDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(path, content, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("actionlint: %s:%d:%d: %s [%s]", path, e.Line, e.Column, e.Message, e.Kind)
	}
}

func TestInitAgentOSRepo(t *testing.T) {
	dir := agentosRepo(t, map[string]string{".npmrc": "@acme:registry=http://127.0.0.1:4873/\n"})
	p, err := Make(Options{Dir: dir, Version: "1.4.0", Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Runtime != "agentos" || p.Scope != "@acme" || p.Registry != "http://127.0.0.1:4873/" || p.Branch != "main" {
		t.Errorf("detected %+v", p)
	}
	var paths []string
	for _, f := range p.Files {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, ",") != ".plaios.yaml,.github/workflows/plaios-check.yml,.github/workflows/plaios-release.yml,.gitignore" {
		t.Fatalf("files = %v", paths)
	}
	written, err := p.Write()
	if err != nil || len(written) != 4 {
		t.Fatal(written, err)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, ".plaios.yaml"))
	if string(cfg) != "# plaios configuration (plaios init). Every key: the README's \"Configuration\".\nruntime: agentos\nregistry: http://127.0.0.1:4873/\nscope: \"@acme\"\n" {
		t.Errorf(".plaios.yaml:\n%s", cfg)
	}
	gi, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if string(gi) != "dist\n/node_modules\n.plaios/\n.env*\n" {
		t.Errorf(".gitignore (only the missing lines appended):\n%s", gi)
	}
	for _, name := range []string{CheckWorkflow, ReleaseFlow} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lint(t, dir, name, data)
		s := string(data)
		for _, want := range []string{`PLAIOS_VERSION: "1.4.0"`, "permissions: {}", "sha256sum --check --strict archive.sha256", "checksums.txt", "npm install --no-audit --no-fund", "registry-url: http://127.0.0.1:4873/"} {
			if !strings.Contains(s, want) && !(name == CheckWorkflow && strings.HasPrefix(want, "registry-url")) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	check, _ := os.ReadFile(filepath.Join(dir, CheckWorkflow))
	for _, want := range []string{"plaios validate --format sarif > plaios.sarif", "github/codeql-action/upload-sarif@v3", "security-events: write", "shard: [1, 2, 3]", `plaios guard --all --shard "$SHARD"`, "SHARD: ${{ matrix.shard }}/3", "pull_request:"} {
		if !strings.Contains(string(check), want) {
			t.Errorf("the check workflow lacks %q", want)
		}
	}
	rel, _ := os.ReadFile(filepath.Join(dir, ReleaseFlow))
	for _, want := range []string{"branches: [main]", "concurrency:", "cancel-in-progress: false", "contents: write", "id-token: write", "fetch-depth: 0",
		"plaios release-plan --out plan.json --write", "plaios guard --plan plan.json --out .plaios/packs", "plaios publish --plan plan.json --packs .plaios/packs", "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}"} {
		if !strings.Contains(string(rel), want) {
			t.Errorf("the release workflow lacks %q", want)
		}
	}

	// Again: every file exists now — refused with exit 2, naming them; --force replaces them,
	// and the .gitignore has every line, so it is left alone.
	_, err = Make(Options{Dir: dir, Version: "1.4.0", Getenv: env(nil)})
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), ".plaios.yaml and .github/workflows/plaios-check.yml and .github/workflows/plaios-release.yml already exist") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("err = %v", err)
	}
	p, err = Make(Options{Dir: dir, Version: "1.5.0", Force: true, Getenv: env(nil)})
	if err != nil || len(p.Files) != 3 || !p.Files[0].Exists {
		t.Fatalf("force: %+v %v", p, err)
	}
}

func TestInitPNPMAndBranchAndNoGitHub(t *testing.T) {
	dir := agentosRepo(t, map[string]string{"pnpm-lock.yaml": "lockfileVersion: '9.0'\n", "pnpm-workspace.yaml": "packages: ['registry/curated/*/*']\n"})
	testenv.Git(t, dir, "checkout", "-q", "-b", "trunk")
	p, err := Make(Options{Dir: dir, Version: "2.0.0", Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Branch != "trunk" || p.Registry != "https://registry.npmjs.org/" {
		t.Errorf("plan %+v", p)
	}
	for _, f := range p.Files[1:3] {
		lint(t, dir, f.Path, f.Content)
		for _, want := range []string{"pnpm/action-setup@v4", "version: 10", "pnpm install --frozen-lockfile"} {
			if f.Path == CheckWorkflow || f.Path == ReleaseFlow {
				if !strings.Contains(string(f.Content), want) {
					t.Errorf("%s lacks %q", f.Path, want)
				}
			}
		}
	}
	if !strings.Contains(string(p.Files[2].Content), "branches: [trunk]") {
		t.Errorf("release branch:\n%s", p.Files[2].Content)
	}

	// --no-github: the configuration only, with GitHub releases off; no version needed.
	p, err = Make(Options{Dir: dir, NoGitHub: true, Runtime: "plaios", Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 2 || p.Files[0].Path != ConfigFile || p.Files[1].Path != GitIgnoreFile {
		t.Fatalf("files %+v", p.Files)
	}
	if !strings.Contains(string(p.Files[0].Content), "runtime: plaios\n") || !strings.Contains(string(p.Files[0].Content), "github:\n  releases: false") {
		t.Errorf(".plaios.yaml:\n%s", p.Files[0].Content)
	}

	// A development build pins nothing: refused, saying which flag gives the version.
	if _, err := Make(Options{Dir: dir, Version: "dev", Getenv: env(nil)}); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--plaios-version") {
		t.Errorf("err = %v", err)
	}
}
