// Package publishtest builds what `plaios publish` reads, for its tests and benchmark: a git
// repository with a bare remote, npm package tarballs as `npm pack` writes them (gzip, every
// entry under package/), guard-report.json with their sha512 integrity, and plan.json — and
// reads back the end state: the tags on the remote and the versions on a registry. Every
// repository operation runs the real git; the tarballs are real npm tarballs that the real npm
// publishes.
package publishtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/npm/tarball"
	"github.com/plaios/plaios/internal/testenv"
	"github.com/plaios/plaios/release"
)

// Title and Body are the pull request the fixtures' head commit squash-merges.
const (
	Title = "feat: new packs"
	Body  = "The packs the agents asked for.\n\nCloses #42."
)

// Package is one package of a fixture.
type Package struct {
	Name    string
	Version string
	Dir     string   // relative to the repository
	Deps    []string // names it depends on
	Tarball string   // absolute path
	Extra   map[string]any
}

// Fixture is a repository ready to publish.
type Fixture struct {
	T        testing.TB
	Dir      string // the working tree
	Remote   string // the bare remote ("origin")
	Packs    string // guard's --out folder
	PlanFile string // plan.json (in Dir)
	Head     string // the head commit
	Initial  string // the commit before it
	Packages []Package
}

// Options shape a fixture.
type Options struct {
	Scope   string         // npm scope without @ (default "fixture")
	Count   int            // packages (default 5)
	Chain   bool           // package i depends on package i-1
	Version string         // default "1.0.0"
	Extra   map[string]any // more package.json fields for every package (publishConfig…)
}

// New makes a repository whose head adds Count packages, pushed to a bare remote, with their
// tarballs, guard-report.json and plan.json.
func New(t testing.TB, o Options) *Fixture {
	t.Helper()
	if o.Scope == "" {
		o.Scope = "fixture"
	}
	if o.Count == 0 {
		o.Count = 5
	}
	if o.Version == "" {
		o.Version = "1.0.0"
	}
	base := t.TempDir()
	f := &Fixture{T: t, Dir: filepath.Join(base, "work"), Remote: filepath.Join(base, "remote.git"), Packs: filepath.Join(base, "packs")}
	for _, d := range []string{f.Dir, f.Remote, f.Packs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Git(t, f.Remote, "init", "-q", "--bare", "-b", "main")
	testenv.GitInit(t, f.Dir)
	testenv.WriteFiles(t, f.Dir, map[string]string{
		"package.json": `{"name": "fixture-root", "private": true, "workspaces": ["packages/*"]}` + "\n",
	})
	testenv.Git(t, f.Dir, "add", "-A")
	testenv.Git(t, f.Dir, "commit", "-q", "-m", "initial")
	f.Initial = testenv.Git(t, f.Dir, "rev-parse", "HEAD")

	files := map[string]string{}
	for i := range o.Count {
		p := Package{Name: fmt.Sprintf("@%s/pack-%d", o.Scope, i+1), Version: o.Version, Dir: fmt.Sprintf("packages/pack-%d", i+1), Extra: o.Extra}
		if o.Chain && i > 0 {
			p.Deps = []string{f.Packages[i-1].Name}
		}
		files[p.Dir+"/package.json"] = string(p.manifest())
		files[p.Dir+"/index.js"] = p.index("")
		f.Packages = append(f.Packages, p)
	}
	testenv.WriteFiles(t, f.Dir, files)
	testenv.Git(t, f.Dir, "add", "-A")
	testenv.Git(t, f.Dir, "commit", "-q", "-m", Title, "-m", Body)
	f.Head = testenv.Git(t, f.Dir, "rev-parse", "HEAD")
	testenv.Git(t, f.Dir, "remote", "add", "origin", f.Remote)
	testenv.Git(t, f.Dir, "push", "-q", "origin", "main")

	report := guard.Report{SchemaVersion: 1}
	plan := release.Plan{SchemaVersion: release.SchemaVersion, Base: f.Initial, Head: f.Head, Title: Title,
		Releases: []release.Release{}, Refusals: []release.Refusal{}, Warnings: []release.Warning{}}
	for i := range f.Packages {
		p := &f.Packages[i]
		file := fmt.Sprintf("%s-%s.tgz", strings.ReplaceAll(strings.TrimPrefix(p.Name, "@"), "/", "-"), p.Version)
		p.Tarball = filepath.Join(f.Packs, file)
		WriteTarball(t, p.Tarball, map[string]string{"package.json": string(p.manifest()), "index.js": p.index("")})
		integrity, _, _, err := tarball.Hash(p.Tarball)
		if err != nil {
			t.Fatal(err)
		}
		report.Packages = append(report.Packages, &guard.Result{Name: p.Name, Version: p.Version, Dir: p.Dir, Tarball: file,
			Integrity: integrity, Files: 2, Descriptors: []guard.Descriptor{}, OK: true})
		plan.Releases = append(plan.Releases, release.Release{Name: p.Name, Dir: p.Dir, Role: release.RolePack, Next: p.Version,
			Reason: "new package", ChangedFiles: []string{p.Dir + "/index.js", p.Dir + "/package.json"}, Tag: release.Tag(p.Name, p.Version)})
	}
	writeJSON(t, filepath.Join(f.Packs, guard.ReportFile), report)
	f.PlanFile = filepath.Join(f.Dir, "plan.json")
	writeJSON(t, f.PlanFile, plan)
	return f
}

func (p Package) manifest() []byte {
	m := map[string]any{"name": p.Name, "version": p.Version, "main": "index.js", "license": "MIT"}
	for k, v := range p.Extra {
		m[k] = v
	}
	if len(p.Deps) > 0 {
		deps := map[string]string{}
		for _, d := range p.Deps {
			deps[d] = "^" + p.Version
		}
		m["dependencies"] = deps
	}
	data, _ := json.MarshalIndent(m, "", "  ")
	return append(data, '\n')
}

func (p Package) index(extra string) string {
	return fmt.Sprintf("export const name = %q;\n%s", p.Name, extra)
}

// Tags returns the fixture's release tags.
func (f *Fixture) Tags() []string {
	var out []string
	for _, p := range f.Packages {
		out = append(out, release.Tag(p.Name, p.Version))
	}
	return out
}

// ChangeTarball rewrites package i's tarball with other content, as if it changed after guard.
func (f *Fixture) ChangeTarball(i int) {
	p := f.Packages[i]
	WriteTarball(f.T, p.Tarball, map[string]string{"package.json": string(p.manifest()), "index.js": p.index("export const changed = true;\n")})
}

// OtherContent writes a package folder with package i's name and version but other content,
// for publishing it to a registry before plaios does.
func (f *Fixture) OtherContent(i int) string {
	p := f.Packages[i]
	dir := filepath.Join(f.T.TempDir(), "other")
	testenv.WriteFiles(f.T, dir, map[string]string{"package.json": string(p.manifest()), "index.js": p.index("export const other = true;\n")})
	return dir
}

// RemoteTags returns the tags on the remote with the commits they point at.
func (f *Fixture) RemoteTags() map[string]string {
	out := testenv.Git(f.T, f.Dir, "ls-remote", "--tags", "origin")
	tags := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		id, ref, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok && strings.HasPrefix(ref, "refs/tags/") && !strings.HasSuffix(ref, "^{}") {
			tags[strings.TrimPrefix(ref, "refs/tags/")] = id
		}
	}
	return tags
}

// LocalTags lists the tags of the working repository.
func (f *Fixture) LocalTags() []string {
	out := testenv.Git(f.T, f.Dir, "tag", "--list")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// RejectPushesOnce installs a pre-receive hook in the remote that rejects the next push (of
// anything) and lets later pushes through.
func (f *Fixture) RejectPushesOnce() {
	hook := filepath.Join(f.Remote, "hooks", "pre-receive")
	marker := filepath.Join(f.Remote, "rejected-once")
	script := fmt.Sprintf("#!/bin/sh\nif [ ! -e %q ]; then\n  touch %q\n  echo 'tags are frozen for a moment, try again' >&2\n  exit 1\nfi\nexit 0\n", marker, marker)
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		f.T.Fatal(err)
	}
}

// WriteTarball writes an npm package tarball: gzip, entries under package/ with npm's fixed
// date, in name order.
func WriteTarball(t testing.TB, file string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	date := time.Date(1985, 10, 26, 8, 15, 0, 0, time.UTC)
	for _, n := range names {
		body := files[n]
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + n, Mode: 0o644, Size: int64(len(body)), ModTime: date, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t testing.TB, file string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Versions returns the versions a registry lists for a package, with their integrity; an
// empty map when it does not know the package.
func Versions(t testing.TB, registryURL, name string) map[string]string {
	t.Helper()
	esc := url.PathEscape(name)
	if strings.HasPrefix(name, "@") {
		scope, rest, _ := strings.Cut(name, "/")
		esc = scope + "%2f" + url.PathEscape(rest)
	}
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(registryURL, "/")+"/"+esc, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("read %s from %s: %v", name, registryURL, err)
	}
	defer resp.Body.Close()
	out := map[string]string{}
	if resp.StatusCode == http.StatusNotFound {
		return out
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("read %s from %s: HTTP %d", name, registryURL, resp.StatusCode)
	}
	var doc struct {
		Versions map[string]struct {
			Dist struct {
				Integrity string `json:"integrity"`
			} `json:"dist"`
		} `json:"versions"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for v, d := range doc.Versions {
		out[v] = d.Dist.Integrity
	}
	return out
}

// Integrity returns the sha512 integrity of a file.
func Integrity(t testing.TB, file string) string {
	t.Helper()
	i, _, _, err := tarball.Hash(file)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// RestartVerdaccio starts a registry again on the port and storage of one that was stopped
// (testenv.Registry.Stop), as a registry that died and came back; it is stopped when the test
// ends.
func RestartVerdaccio(t testing.TB, reg *testenv.Registry) {
	t.Helper()
	u, err := url.Parse(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(filepath.Dir(reg.Storage), "config.yaml")
	cmd := exec.Command(testenv.LookPath(t, "node"), testenv.Bin(t, "verdaccio"), "--config", cfg, "--listen", u.Host)
	cmd.Env = append(os.Environ(), "NODE_ENV=production")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("restart verdaccio: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := client.Get(reg.URL + "-/ping")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	t.Fatalf("verdaccio did not come back on %s:\n%s", reg.URL, log.String())
}

// Rehash writes guard-report.json again with each tarball's integrity as it is now, as guard
// does after building the tarballs again (for tests that rebuild or stamp them).
func (f *Fixture) Rehash() {
	f.T.Helper()
	file := filepath.Join(f.Packs, guard.ReportFile)
	data, err := os.ReadFile(file)
	if err != nil {
		f.T.Fatal(err)
	}
	var report guard.Report
	if err := json.Unmarshal(data, &report); err != nil {
		f.T.Fatal(err)
	}
	for _, r := range report.Packages {
		integrity, _, _, err := tarball.Hash(filepath.Join(f.Packs, r.Tarball))
		if err != nil {
			f.T.Fatal(err)
		}
		r.Integrity = integrity
	}
	writeJSON(f.T, file, report)
}
