package testenv

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMirror: a package written into Verdaccio's storage is served as a published one:
// npm sees its version and integrity, and installs the very tarball the lockfile pins.
func TestMirror(t *testing.T) {
	SkipShort(t, "starts Verdaccio and installs from it")
	r := Verdaccio(t)
	lock := filepath.Join(RepoRoot(t), "testdata", "node", "pnpm", "package-lock.json")
	pkgs := Mirror(t, r, lock)
	if len(pkgs) != 1 || pkgs[0].Name != "pnpm" || pkgs[0].Version != "10.34.9" {
		t.Fatalf("mirrored %+v", pkgs)
	}
	dir := t.TempDir()
	env := append(r.NPMEnv(), "npm_config_cache="+filepath.Join(t.TempDir(), "cache"))
	if got := strings.TrimSpace(Run(t, dir, env, "npm", "view", "pnpm", "dist-tags.latest")); got != "10.34.9" {
		t.Errorf("latest: %q", got)
	}
	if got := strings.TrimSpace(Run(t, dir, env, "npm", "view", "pnpm@10.34.9", "dist.integrity")); got != pkgs[0].Integrity {
		t.Errorf("integrity %q, the lockfile pins %q", got, pkgs[0].Integrity)
	}
	if got := strings.TrimSpace(Run(t, dir, env, "npm", "view", "pnpm@10.34.9", "dist.tarball")); !strings.HasPrefix(got, r.URL+"pnpm/-/pnpm-10.34.9.tgz") {
		t.Errorf("the tarball is not served by the registry: %q", got)
	}
	Run(t, dir, env, "npm", "pack", "pnpm@10.34.9", "--silent")
	data, err := os.ReadFile(filepath.Join(dir, "pnpm-10.34.9.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha512.Sum512(data); "sha512-"+base64.StdEncoding.EncodeToString(sum[:]) != pkgs[0].Integrity {
		t.Errorf("the registry served another tarball")
	}
}

// TestMirrorLeavesOutOtherPlatforms: an optional dependency that installs only on another
// platform (@esbuild/aix-ppc64, for AIX on POWER, which no machine that runs these tests is:
// no skip anywhere) is mirrored by its version document alone. npm installs the project from
// the registry exactly as from npmjs on this machine — the dependency in, the optional one
// left out without its tarball being asked for — and the registry holds no tarball for it,
// so the mirror never downloaded one.
func TestMirrorLeavesOutOtherPlatforms(t *testing.T) {
	SkipShort(t, "starts Verdaccio and installs from it")
	const other = "@esbuild/aix-ppc64@0.25.0"
	if platformAllows(npmOS(), []string{"aix"}) && platformAllows(npmCPU(), []string{"ppc64"}) {
		t.Fatalf("this machine (%s/%s) is the platform the fixture's optional package is for: pick another", npmOS(), npmCPU())
	}
	r := Verdaccio(t)
	project := filepath.Join("testdata", "platforms")
	pkgs := Mirror(t, r, filepath.Join(project, "package-lock.json"))
	got := map[string]MirroredPackage{}
	for _, p := range pkgs {
		got[p.Name+"@"+p.Version] = p
	}
	if len(got) != 2 || got["is-number@7.0.0"].Tarball == "" || got[other].Integrity == "" {
		t.Fatalf("mirrored %+v", pkgs)
	}
	if tgz := got[other].Tarball; tgz != "" {
		t.Errorf("the tarball of %s, for AIX only, was mirrored: %s", other, tgz)
	}
	if files, _ := filepath.Glob(filepath.Join(r.Storage, "@esbuild", "aix-ppc64", "*.tgz")); len(files) != 0 {
		t.Errorf("the registry's storage holds %v", files)
	}

	dir := t.TempDir()
	CopyTree(t, project, dir)
	env := append(r.NPMEnv(), "npm_config_cache="+filepath.Join(t.TempDir(), "cache"))
	if v := strings.TrimSpace(Run(t, dir, env, "npm", "view", other, "os", "dist.integrity", "--json")); !strings.Contains(v, `"aix"`) || !strings.Contains(v, got[other].Integrity) {
		t.Errorf("the registry's document of %s lacks its os or the lockfile's integrity:\n%s", other, v)
	}
	if err := os.Remove(filepath.Join(dir, "package-lock.json")); err != nil {
		t.Fatal(err)
	}
	out := Run(t, dir, env, "npm", "install", "--no-audit", "--no-fund", "--loglevel=http")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "is-number", "package.json")); err != nil {
		t.Errorf("is-number was not installed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@esbuild", "aix-ppc64")); !os.IsNotExist(err) {
		t.Errorf("%s was installed on %s/%s (%v)", other, npmOS(), npmCPU(), err)
	}
	// npm logs each request at the http level: the tarball it fetched, and none of the other.
	if !strings.Contains(out, "/is-number/-/is-number-7.0.0.tgz") || strings.Contains(out, "aix-ppc64-0.25.0.tgz") {
		t.Errorf("npm did not fetch exactly is-number's tarball:\n%s", out)
	}
}

// TestPlatformAllows is npm-install-checks' checkList on the lists npm packages use.
func TestPlatformAllows(t *testing.T) {
	for _, c := range []struct {
		value string
		list  []string
		want  bool
	}{
		{"linux", nil, true},
		{"linux", []string{"any"}, true},
		{"linux", []string{"linux"}, true},
		{"linux", []string{"darwin"}, false},
		{"linux", []string{"darwin", "linux"}, true},
		{"linux", []string{"!win32"}, true},
		{"linux", []string{"!linux"}, false},
		{"linux", []string{"!win32", "darwin"}, false},
		{"linux", []string{"!win32", "linux"}, true},
		{"", []string{"darwin"}, true}, // a machine npm has no name for: keep the tarball
	} {
		if got := platformAllows(c.value, c.list); got != c.want {
			t.Errorf("platformAllows(%q, %q) = %v, want %v", c.value, c.list, got, c.want)
		}
	}
}

// TestVersionDocMustMatchTheLockfile: a version document whose integrity is not the one the
// lockfile pins is refused, in one sentence naming the package, and nothing is cached. The
// registry is a fake (httptest): npmjs answers correctly, and Verdaccio serves what it holds.
func TestVersionDocMustMatchTheLockfile(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/fsevents/2.3.3" {
			http.NotFound(w, req)
			return
		}
		fmt.Fprint(w, `{"name":"fsevents","version":"2.3.3","os":["darwin"],"_npmUser":{"name":"x"},"dist":{"integrity":"sha512-AAAA","shasum":"0123"}}`)
	}))
	defer srv.Close()
	cache := t.TempDir()
	p := MirroredPackage{Name: "fsevents", Version: "2.3.3", Integrity: "sha512-5xoDfX+fL7faATnagmWPpbFtwh/R77WmMMqqHGS65C3vvB0YHrgF+B1YmZ3441tMj5n63k0212XNoJwzlhffQw=="}
	_, err := fetchVersionDoc(context.Background(), srv.Client(), cache, srv.URL+"/fsevents/-/fsevents-2.3.3.tgz", p)
	if err == nil || !strings.Contains(err.Error(), "fsevents@2.3.3's document from "+srv.URL+"/fsevents/2.3.3 does not match the lockfile's integrity") {
		t.Fatalf("err = %v", err)
	}
	if files, _ := os.ReadDir(cache); len(files) != 0 {
		t.Errorf("the cache holds %d files after a refused document", len(files))
	}

	// The same document with the lockfile's integrity is kept, without what the registry added.
	good := strings.Replace(`{"name":"fsevents","version":"2.3.3","os":["darwin"],"_npmUser":{"name":"x"},"readme":"r","dist":{"integrity":"INTEGRITY","shasum":"0123"}}`, "INTEGRITY", p.Integrity, 1)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { fmt.Fprint(w, good) })
	d, err := fetchVersionDoc(context.Background(), srv.Client(), cache, srv.URL+"/fsevents/-/fsevents-2.3.3.tgz", p)
	if err != nil {
		t.Fatal(err)
	}
	if d.Shasum != "0123" || d.Integrity != p.Integrity || d.Manifest["os"] == nil || d.Manifest["_npmUser"] != nil || d.Manifest["dist"] != nil || d.Manifest["readme"] != nil {
		t.Errorf("kept %+v", d)
	}
	srv.Close() // a second call reads the cache
	if again, err := fetchVersionDoc(context.Background(), http.DefaultClient, cache, srv.URL+"/fsevents/-/fsevents-2.3.3.tgz", p); err != nil || again.Shasum != "0123" {
		t.Errorf("the cached document: %+v, %v", again, err)
	}
}
