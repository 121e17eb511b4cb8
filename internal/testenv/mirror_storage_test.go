package testenv

import (
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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

// TestTarballMustMatchTheLockfileAndItsDocument: a downloaded tarball is kept only when its
// sha512 is the lockfile's integrity and its sha1 the shasum of its registry document; a
// registry that fails once is asked again; a refused or broken download leaves no tarball (nor
// a temporary file) in the cache, and a kept one is then read from the cache alone. The
// registry is a fake (httptest): npmjs answers correctly.
func TestTarballMustMatchTheLockfileAndItsDocument(t *testing.T) {
	tgz := []byte("\x1f\x8b not really a tarball, but bytes with a known hash")
	s512, s1 := sha512.Sum512(tgz), sha1.Sum(tgz)
	p := MirroredPackage{Name: "@x/y", Version: "1.0.0", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(s512[:])}
	var (
		mu       sync.Mutex
		body     []byte // the tarball served
		shasum   string // the document's
		failures int    // the tarball GETs to answer 500 first
		gets     int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch req.URL.Path {
		case "/@x/y/1.0.0":
			fmt.Fprintf(w, `{"name":"@x/y","version":"1.0.0","dist":{"integrity":%q,"shasum":%q}}`, p.Integrity, shasum)
		case "/@x/y/-/y-1.0.0.tgz":
			gets++
			if failures > 0 {
				failures--
				http.Error(w, "busy", http.StatusInternalServerError)
				return
			}
			w.Write(body)
		default:
			http.NotFound(w, req)
		}
	}))
	defer srv.Close()
	resolved := srv.URL + "/@x/y/-/y-1.0.0.tgz"
	cacheFiles := func(cache string) []string {
		entries, err := os.ReadDir(cache)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".doc.json") {
				names = append(names, ".doc.json")
			} else {
				names = append(names, filepath.Ext(e.Name()))
			}
		}
		return names
	}
	for _, c := range []struct {
		name     string
		body     []byte
		shasum   string
		failures int
		err      string
	}{
		{"another tarball", []byte("something else"), hex.EncodeToString(s1[:]), 0, "@x/y@1.0.0 from " + resolved + " does not match the lockfile's integrity"},
		{"another shasum", tgz, "0123", 0, "@x/y@1.0.0 from " + resolved + " does not match the shasum of its registry document"},
		{"always failing", tgz, hex.EncodeToString(s1[:]), 3, "download @x/y@1.0.0 from " + resolved + ": HTTP 500"},
	} {
		mu.Lock()
		body, shasum, failures, gets = c.body, c.shasum, c.failures, 0
		mu.Unlock()
		cache := t.TempDir()
		_, _, err := fetchTarball(context.Background(), srv.Client(), cache, resolved, p)
		if err == nil || err.Error() != c.err {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.err)
		}
		// The document is kept (it matched the lockfile); the tarball, and its temporary file, are not.
		if got := strings.Join(cacheFiles(cache), " "); got != ".doc.json" {
			t.Errorf("%s: the cache holds %q", c.name, got)
		}
		if c.failures == 3 && gets != 3 {
			t.Errorf("%s: asked %d times, want 3", c.name, gets)
		}
	}

	mu.Lock()
	body, shasum, failures, gets = tgz, hex.EncodeToString(s1[:]), 1, 0
	mu.Unlock()
	cache := t.TempDir()
	got, d, err := fetchTarball(context.Background(), srv.Client(), cache, resolved, p)
	if err != nil || gets != 2 {
		t.Fatalf("after one failure: %v (%d GETs)", err, gets)
	}
	if data, err := os.ReadFile(got.Tarball); err != nil || string(data) != string(tgz) || d.Shasum != shasum {
		t.Errorf("kept %q (%v), shasum %q", data, err, d.Shasum)
	}
	if names := strings.Join(cacheFiles(cache), " "); names != ".doc.json .tgz" {
		t.Errorf("the cache holds %q", names)
	}
	srv.Close() // now the cache alone answers
	if again, _, err := fetchTarball(context.Background(), http.DefaultClient, cache, resolved, p); err != nil || again.Tarball != got.Tarball {
		t.Errorf("from the cache: %+v, %v", again, err)
	}
}

// TestTarballFetchedTwiceAtOnce: two tests of one test binary fill the same cache at once
// (bridge's openclaw and Pi mirrors share packages). Eight fetches of one tarball into an
// empty cache, side by side, each get it, and the cache then holds it and its document only.
// The registry is a fake (httptest) that answers each download slowly, so that they overlap.
func TestTarballFetchedTwiceAtOnce(t *testing.T) {
	tgz := []byte("\x1f\x8b the same tarball, fetched by eight at once")
	s512, s1 := sha512.Sum512(tgz), sha1.Sum(tgz)
	p := MirroredPackage{Name: "@x/y", Version: "1.0.0", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(s512[:])}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/@x/y/1.0.0":
			fmt.Fprintf(w, `{"name":"@x/y","version":"1.0.0","dist":{"integrity":%q,"shasum":%q}}`, p.Integrity, hex.EncodeToString(s1[:]))
		case "/@x/y/-/y-1.0.0.tgz":
			w.Write(tgz[:4])
			w.(http.Flusher).Flush()
			time.Sleep(200 * time.Millisecond)
			w.Write(tgz[4:])
		default:
			http.NotFound(w, req)
		}
	}))
	defer srv.Close()
	resolved := srv.URL + "/@x/y/-/y-1.0.0.tgz"
	cache := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, _, err := fetchTarball(context.Background(), srv.Client(), cache, resolved, p)
			if err == nil {
				if data, rerr := os.ReadFile(got.Tarball); rerr != nil || string(data) != string(tgz) {
					err = fmt.Errorf("kept %q (%v)", data, rerr)
				}
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("fetch %d: %v", i, err)
		}
	}
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || !strings.HasSuffix(names[0], ".doc.json") || !strings.HasSuffix(names[1], ".tgz") {
		t.Errorf("the cache holds %q, want the document and the tarball", names)
	}
}
