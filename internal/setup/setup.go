// Package setup sets a repository up for the flow plaios exists for, as `plaios init` promises
// (CLI.md): `.plaios.yaml` with the detected runtime, registry and scope; the root `.gitignore`
// lines plaios needs; and two GitHub Actions workflows, embedded here as templates — the pull
// request check (validate as SARIF uploaded to code scanning, guard as a --shard matrix) and the
// release job on a push to the default branch (release-plan --write, guard --plan --out,
// publish; concurrency-guarded, `id-token: write` for provenance, `contents: write` for the
// tags and releases). Both install the pinned plaios release and verify its archive against the
// release's checksums.txt. Planning is separate from writing, so --dry-run shows exactly what a
// run writes.
package setup

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/npm/npmrc"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/scaffold"
	"github.com/plaios/plaios/internal/semver"
	"github.com/plaios/plaios/internal/workspace"
)

//go:embed workflows/*.tmpl
var workflowFS embed.FS

// The files init writes, relative to the repository root.
const (
	ConfigFile    = ".plaios.yaml"
	GitIgnoreFile = ".gitignore"
	CheckWorkflow = ".github/workflows/plaios-check.yml"
	ReleaseFlow   = ".github/workflows/plaios-release.yml"
)

// GitIgnoreLines are the lines the root .gitignore needs: installed dependencies, plaios's own
// output (guard's tarballs), and environment files that hold secrets.
var GitIgnoreLines = []string{"node_modules/", ".plaios/", ".env*"}

// Shards is the width of the check workflow's guard matrix.
const Shards = 3

// Options are the inputs of one init.
type Options struct {
	Dir      string // the repository (or workspace) root
	Version  string // the plaios release the workflows install (x.y.z)
	Runtime  string // "" to detect
	Registry string // "" to detect (.npmrc, else npmjs)
	Scope    string // "" to detect (the packages' most common scope)
	NoGitHub bool   // only the configuration: no workflows, github.releases: false
	Force    bool   // overwrite existing files
	Getenv   func(string) string
}

// File is one file init writes.
type File struct {
	Path    string // relative to the root, slash-separated
	Content []byte // the whole new content
	Exists  bool   // it exists already (replaced with Force; .gitignore is appended to)
	Append  []string
}

// Plan is what init writes.
type Plan struct {
	Root     string
	Runtime  string
	Registry string
	Scope    string
	Branch   string
	Files    []File
}

// Make decides what init writes, reading the repository; it writes nothing. An existing file
// other than .gitignore is refused (exit 2) unless Force.
func Make(o Options) (*Plan, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	root, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, exit.EnvErr(err)
	}
	if !o.NoGitHub {
		if _, err := semver.Parse(o.Version); err != nil {
			return nil, exit.Usagef("the workflows install a plaios release, and %q is not one; give --plaios-version X.Y.Z (a release of github.com/plaios/plaios)", o.Version)
		}
	}
	p := &Plan{Root: root, Runtime: o.Runtime, Registry: o.Registry, Scope: o.Scope, Branch: defaultBranch(root)}
	ws, wsErr := workspace.Discover(os.DirFS(root))
	if p.Runtime == "" {
		p.Runtime = detectRuntime(root, ws, wsErr)
	}
	if p.Scope == "" && wsErr == nil {
		p.Scope = commonScope(ws)
	}
	if p.Registry == "" {
		rc, err := npmrc.Load(root, o.Getenv)
		if err != nil {
			return nil, exit.Usagef("%v; fix the .npmrc", err)
		}
		name := "any-package"
		if p.Scope != "" {
			name = p.Scope + "/any-package"
		}
		p.Registry = rc.RegistryFor(name)
	}

	p.Files = append(p.Files, File{Path: ConfigFile, Content: p.config(o.NoGitHub)})
	if !o.NoGitHub {
		vars := p.workflowVars(o.Version)
		for _, w := range []struct{ path, tmpl string }{{CheckWorkflow, "check.yml.tmpl"}, {ReleaseFlow, "release.yml.tmpl"}} {
			content, err := render(w.tmpl, vars)
			if err != nil {
				return nil, err
			}
			p.Files = append(p.Files, File{Path: w.path, Content: content})
		}
	}
	var taken []string
	for i := range p.Files {
		f := &p.Files[i]
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f.Path))); err == nil {
			f.Exists = true
			taken = append(taken, f.Path)
		}
	}
	if len(taken) > 0 && !o.Force {
		return nil, exit.Usagef("%s already %s; plaios init writes nothing over an existing file — pass --force to replace %s", strings.Join(taken, " and "), plural(len(taken), "exists", "exist"), plural(len(taken), "it", "them"))
	}
	gi, err := p.gitignore()
	if err != nil {
		return nil, err
	}
	if gi != nil {
		p.Files = append(p.Files, *gi)
	}
	return p, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// config is .plaios.yaml.
func (p *Plan) config(noGitHub bool) []byte {
	var b strings.Builder
	b.WriteString("# plaios configuration (plaios init). Every key: the README's \"Configuration\".\n")
	fmt.Fprintf(&b, "runtime: %s\n", p.Runtime)
	fmt.Fprintf(&b, "registry: %s\n", p.Registry)
	if p.Scope != "" {
		fmt.Fprintf(&b, "scope: %s\n", strconv.Quote(p.Scope))
	}
	if noGitHub {
		b.WriteString("github:\n  releases: false # publish and tag only: no GitHub repository\n")
	}
	return []byte(b.String())
}

// gitignore is the .gitignore change: the lines it lacks appended, or nil when it has them.
func (p *Plan) gitignore() (*File, error) {
	file := filepath.Join(p.Root, GitIgnoreFile)
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, exit.Envf("cannot read %s: %v", GitIgnoreFile, err)
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		l := strings.TrimSpace(line)
		have[strings.TrimSuffix(strings.TrimPrefix(l, "/"), "/")] = true
	}
	var missing []string
	for _, l := range GitIgnoreLines {
		if !have[strings.TrimSuffix(l, "/")] {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	content := append([]byte{}, data...)
	if len(content) > 0 && content[len(content)-1] != '\n' {
		content = append(content, '\n')
	}
	content = append(content, []byte(strings.Join(missing, "\n")+"\n")...)
	return &File{Path: GitIgnoreFile, Content: content, Exists: err == nil, Append: missing}, nil
}

// workflowVars are the templates' values.
type workflowVars struct {
	Version           string
	Branch            string
	Shards            int
	ShardList         string
	Node              int
	RegistryURL       string
	PNPM              bool
	PNPMVersionPinned bool
	InstallCommand    string
	BuildCommand      string
}

func (p *Plan) workflowVars(version string) workflowVars {
	v := workflowVars{Version: version, Branch: p.Branch, Shards: Shards, Node: 22, RegistryURL: p.Registry,
		InstallCommand: "npm install --no-audit --no-fund", BuildCommand: "npm run build --if-present"}
	var shards []string
	for i := 1; i <= Shards; i++ {
		shards = append(shards, strconv.Itoa(i))
	}
	v.ShardList = strings.Join(shards, ", ")
	switch {
	case exists(filepath.Join(p.Root, "pnpm-lock.yaml")) || exists(filepath.Join(p.Root, "pnpm-workspace.yaml")):
		v.PNPM = true
		v.InstallCommand, v.BuildCommand = "pnpm install --frozen-lockfile", "pnpm run --if-present build"
		if data, err := os.ReadFile(filepath.Join(p.Root, "package.json")); err == nil && bytes.Contains(data, []byte(`"packageManager"`)) {
			v.PNPMVersionPinned = true
		}
	case exists(filepath.Join(p.Root, "package-lock.json")):
		v.InstallCommand = "npm ci --no-audit --no-fund"
	}
	return v
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func render(name string, vars workflowVars) ([]byte, error) {
	t, err := template.New(name).ParseFS(workflowFS, "workflows/install.tmpl", "workflows/"+name)
	if err != nil {
		return nil, fmt.Errorf("the embedded workflow %s: %w", name, err)
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, name, vars); err != nil {
		return nil, fmt.Errorf("the embedded workflow %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// detectRuntime is the runtime most of the workspace's packages have, else what create would
// choose for the repository.
func detectRuntime(root string, ws *workspace.Workspace, wsErr error) string {
	if wsErr == nil {
		count := map[pack.Runtime]int{}
		for _, pkg := range ws.Packages {
			if r := pack.Detect(ws, pkg, pack.None); r != pack.None {
				count[r]++
			}
		}
		best, n := pack.None, 0
		for _, r := range []pack.Runtime{pack.AgentOS, pack.PLAIOS, pack.OpenClaw, pack.Pi} {
			if count[r] > n {
				best, n = r, count[r]
			}
		}
		if best != pack.None {
			return string(best)
		}
	}
	return scaffold.DetectRuntime(root)
}

// commonScope is the npm scope most of the workspace's packages share, "" when none has one.
func commonScope(ws *workspace.Workspace) string {
	count := map[string]int{}
	for _, pkg := range ws.Packages {
		if pkg.JSON == nil {
			continue
		}
		if scope, _, ok := strings.Cut(pkg.JSON.Name, "/"); ok && strings.HasPrefix(scope, "@") && len(scope) > 1 {
			count[scope]++
		}
	}
	var scopes []string
	for s := range count {
		scopes = append(scopes, s)
	}
	sort.Slice(scopes, func(i, j int) bool {
		if count[scopes[i]] != count[scopes[j]] {
			return count[scopes[i]] > count[scopes[j]]
		}
		return scopes[i] < scopes[j]
	})
	if len(scopes) == 0 {
		return ""
	}
	return scopes[0]
}

// defaultBranch is the branch the release job runs on: the remote's default branch
// (origin/HEAD), else the branch checked out, else main.
func defaultBranch(root string) string {
	run := func(args ...string) string {
		c := exec.Command("git", args...)
		c.Dir = root
		c.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
		out, err := c.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	if ref := run("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); ref != "" {
		return strings.TrimPrefix(ref, "origin/")
	}
	if b := run("symbolic-ref", "--quiet", "--short", "HEAD"); b != "" {
		return b
	}
	return "main"
}

// Write writes the plan's files: each through a temporary file renamed into place, folders
// made as needed. It returns the paths written.
func (p *Plan) Write() ([]string, error) {
	var written []string
	for _, f := range p.Files {
		file := filepath.Join(p.Root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return written, exit.Envf("cannot make %s: %v", filepath.Dir(f.Path), errors.Unwrap(err))
		}
		tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".plaios-*")
		if err != nil {
			return written, exit.Envf("cannot write %s: %v", f.Path, errors.Unwrap(err))
		}
		_, werr := tmp.Write(f.Content)
		if cerr := tmp.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Chmod(tmp.Name(), 0o644)
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), file)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return written, exit.Envf("cannot write %s: %v", f.Path, werr)
		}
		written = append(written, f.Path)
	}
	return written, nil
}
