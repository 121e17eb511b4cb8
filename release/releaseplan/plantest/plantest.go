// Package plantest builds the real git repositories the release-plan tests and benchmarks run
// against: packages written to a temporary folder, commits on main, a pull request branch
// merged with a real `--no-ff` merge commit, tags. Nothing is simulated; every step runs git.
package plantest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// Repo is a git repository in a temporary folder, on branch main.
type Repo struct {
	T   testing.TB
	Dir string
}

// NewRepo makes an empty repository.
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	dir := t.TempDir()
	testenv.GitInit(t, dir)
	testenv.Git(t, dir, "config", "core.autocrlf", "false")
	return &Repo{T: t, Dir: dir}
}

// Git runs git in the repository and returns its trimmed output.
func (r *Repo) Git(args ...string) string {
	r.T.Helper()
	return testenv.Git(r.T, r.Dir, args...)
}

// Write writes files (slash path → content).
func (r *Repo) Write(files map[string]string) {
	r.T.Helper()
	testenv.WriteFiles(r.T, r.Dir, files)
}

// Read returns a file's content.
func (r *Repo) Read(name string) string {
	r.T.Helper()
	data, err := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(name)))
	if err != nil {
		r.T.Fatal(err)
	}
	return string(data)
}

// Remove deletes files or folders.
func (r *Repo) Remove(names ...string) {
	r.T.Helper()
	for _, n := range names {
		if err := os.RemoveAll(filepath.Join(r.Dir, filepath.FromSlash(n))); err != nil {
			r.T.Fatal(err)
		}
	}
}

// Commit stages everything and commits it, returning the commit id.
func (r *Repo) Commit(message string) string {
	r.T.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", message)
	return r.Git("rev-parse", "HEAD")
}

// Branch creates and checks out a branch from the current commit.
func (r *Repo) Branch(name string) {
	r.T.Helper()
	r.Git("checkout", "-q", "-b", name)
}

// Checkout switches branch.
func (r *Repo) Checkout(name string) {
	r.T.Helper()
	r.Git("checkout", "-q", name)
}

// Merge merges branch into the current branch with a merge commit (--no-ff) carrying message,
// and returns the merge commit.
func (r *Repo) Merge(branch, message string) string {
	r.T.Helper()
	r.Git("merge", "-q", "--no-ff", "-m", message, branch)
	return r.Git("rev-parse", "HEAD")
}

// PullRequest commits change on a new branch from main and merges it back into main with a
// merge commit whose message is title and body (as GitHub's squash message carries them). It
// returns the base (main before) and the merge commit.
func (r *Repo) PullRequest(branch, title, body string, change func()) (base, head string) {
	r.T.Helper()
	base = r.Git("rev-parse", "HEAD")
	r.Branch(branch)
	change()
	r.Commit("work on " + branch)
	r.Checkout("main")
	msg := title
	if body != "" {
		msg += "\n\n" + body
	}
	return base, r.Merge(branch, msg)
}

// Tag creates a lightweight tag at rev.
func (r *Repo) Tag(name, rev string) {
	r.T.Helper()
	r.Git("tag", name, rev)
}

// PackageJSON renders a package.json with two-space indentation and a final newline, as npm
// writes it: name and version first, then the other fields in sorted order.
func PackageJSON(name, version string, fields map[string]any) string {
	var b strings.Builder
	b.WriteString("{\n")
	write := func(k string, v any, last bool) {
		kj, _ := json.Marshal(k)
		vj, _ := json.MarshalIndent(v, "  ", "  ")
		b.WriteString("  " + string(kj) + ": " + string(vj))
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	write("name", name, false)
	write("version", version, len(keys) == 0)
	for i, k := range keys {
		write(k, fields[k], i == len(keys)-1)
	}
	b.WriteString("}\n")
	return b.String()
}

// AgentOSRepo lays out an agentos-extensions repository: the root package shipping the
// catalog, the role map, and one pack per "category/name" → version.
func AgentOSRepo(packs map[string]string, rootVersion string) map[string]string {
	files := map[string]string{
		"package.json": PackageJSON("@framers/agentos-extensions", rootVersion, map[string]any{
			"files":      []string{"index.mjs", "registry.json"},
			"repository": map[string]string{"type": "git", "url": "https://github.com/framerslab/agentos-extensions.git"},
		}),
		"index.mjs":           "export default {};\n",
		"pnpm-workspace.yaml": "packages:\n  - \".\"\n  - \"registry/curated/*/*\"\n",
	}
	roles := []string{`    ".": "root"`}
	dirs := make([]string, 0, len(packs))
	for dir := range packs {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		version := packs[dir]
		cat, name, _ := strings.Cut(dir, "/")
		p := "registry/curated/" + dir
		pkg := "@framers/agentos-ext-" + name
		files[p+"/package.json"] = PackageJSON(pkg, version, map[string]any{
			"files":   []string{"dist", "manifest.json"},
			"scripts": map[string]string{"build": "tsc"},
		})
		files[p+"/manifest.json"] = fmt.Sprintf("{\n  \"id\": \"com.framers.%s.%s\",\n  \"name\": \"%s\",\n  \"version\": \"%s\",\n  \"extensions\": [\n    {\"kind\": \"tool\", \"id\": \"%sTool\", \"entry\": \"./dist/index.js\"}\n  ]\n}\n", cat, name, name, version, name)
		files[p+"/tsconfig.json"] = `{"compilerOptions": {"outDir": "./dist", "rootDir": "./src"}, "include": ["src"]}`
		files[p+"/src/index.ts"] = "export const name = " + fmt.Sprintf("%q", name) + ";\n"
		files[p+"/test/index.test.ts"] = "// tests\n"
		roles = append(roles, fmt.Sprintf("    %q: \"pack\"", p))
	}
	files["scripts/package-roles.json"] = "{\n  \"roles\": {\n" + strings.Join(roles, ",\n") + "\n  }\n}\n"
	return files
}
