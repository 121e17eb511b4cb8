package testenv

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Mirror serves from the test registry every package version the npm lockfile names (a
// package-lock.json v2/v3, committed under testdata), so that the registry serves real
// published packages with no uplink. Each version's document is downloaded once from the
// registry the lockfile resolved it from (npmjs.org when it names none), and its tarball from
// the URL the lockfile gives; both are checked against the lockfile's integrity (the tarball
// against the document's shasum too) and kept in the test cache (CacheDir "npm-tarballs");
// later runs do not touch the network.
//
// Nothing goes through the registry's HTTP API (about seven publishes a second on a busy
// machine, because every tarball travels base64-encoded in JSON): Mirror writes into the
// running Verdaccio's storage the files Verdaccio itself writes on a publish — per package a
// package.json holding every mirrored version (the registry's version documents, without what
// the registry adds on publish, with a `dist` of the mirror's own) and the tarballs, linked from
// the test cache. Verdaccio reads its storage on every request and rewrites tarball URLs to its
// own address, so npm and pnpm then install from it exactly as from published packages
// (TestMirror). A later run reads no tarball at all: the documents carry what it needs.
// An optional package that installs only on other platforms (its os or cpu leaves this machine
// out, as npm-install-checks decides; the lockfile of a package with prebuilt binaries names
// one per platform) is served by its version document alone: npm and pnpm read it to learn the
// package is not for them and never fetch its tarball here, so a fresh machine does not
// download it (177 MB of the templates' 511).
// The packages are real ones, so their names never meet the scopes tests publish under, and a
// shared registry (SharedMirror) can hold them next to what its tests publish.
func Mirror(t testing.TB, r *Registry, lockfile string) []MirroredPackage {
	t.Helper()
	pkgs, err := readLockfile(lockfile)
	if err != nil {
		t.Fatalf("mirror: %v", err)
	}
	cache := CacheDir(t, "npm-tarballs")
	client := &http.Client{Timeout: 2 * time.Minute}
	ctx := context.Background()

	manifests := make([]cachedDoc, len(pkgs))
	err = fourAtOnce(len(pkgs), func(i int) error {
		if pkgs[i].elsewhere {
			var err error
			manifests[i], err = fetchVersionDoc(ctx, client, cache, pkgs[i].resolved, pkgs[i].MirroredPackage)
			return err
		}
		// A tarball whose document is cached was checked against its integrity when it was
		// downloaded: it is not read again.
		if d, file, ok := cachedDocFor(cache, pkgs[i].MirroredPackage); ok {
			pkgs[i].Tarball, manifests[i] = file, d
			return nil
		}
		var err error
		pkgs[i].MirroredPackage, manifests[i], err = fetchTarball(ctx, client, cache, pkgs[i].resolved, pkgs[i].MirroredPackage)
		return err
	})
	if err != nil {
		t.Fatalf("mirror: %v", err)
	}

	type version struct {
		p   MirroredPackage
		doc cachedDoc
	}
	byName := map[string][]version{}
	for i, p := range pkgs {
		byName[p.Name] = append(byName[p.Name], version{p.MirroredPackage, manifests[i]})
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	for name, versions := range byName {
		dir := filepath.Join(r.Storage, filepath.FromSlash(name))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		short := name[strings.LastIndexByte(name, '/')+1:]
		docs := map[string]any{}
		times := map[string]string{"created": now, "modified": now}
		attachments := map[string]any{}
		latest := ""
		for _, v := range versions {
			file := short + "-" + v.p.Version + ".tgz"
			doc := map[string]any{}
			for k, val := range v.doc.Manifest {
				doc[k] = val
			}
			doc["name"], doc["version"], doc["_id"] = name, v.p.Version, name+"@"+v.p.Version
			doc["dist"] = map[string]any{
				"integrity": v.p.Integrity,
				"shasum":    v.doc.Shasum,
				"tarball":   strings.TrimRight(r.URL, "/") + "/" + name + "/-/" + file,
			}
			docs[v.p.Version] = doc
			times[v.p.Version] = now
			if v.p.Tarball != "" {
				attachments[file] = map[string]any{"shasum": v.doc.Shasum, "version": v.p.Version}
				if err := os.Symlink(v.p.Tarball, filepath.Join(dir, file)); err != nil {
					t.Fatalf("mirror: %v", err)
				}
			}
			if release(v.p.Version) != nil && (latest == "" || releaseLess(latest, v.p.Version)) {
				latest = v.p.Version
			}
		}
		tag := latest
		if tag == "" {
			tag = versions[len(versions)-1].p.Version
		}
		packument := map[string]any{
			"name": name, "_id": name, "versions": docs, "time": times, "users": map[string]any{},
			"dist-tags": map[string]string{"latest": tag}, "_uplinks": map[string]any{}, "_distfiles": map[string]any{},
			"_attachments": attachments, "_rev": "1-" + hex.EncodeToString(s1Of(name))[:16], "readme": "",
		}
		data, err := json.Marshal(packument)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "package.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]MirroredPackage, 0, len(pkgs))
	for _, p := range pkgs {
		out = append(out, p.MirroredPackage)
	}
	return out
}

func s1Of(s string) []byte {
	sum := sha1.Sum([]byte(s))
	return sum[:]
}

// cachedDoc is what a packument needs of a package version: its document and its tarball's sha1.
type cachedDoc struct {
	Integrity string         `json:"integrity"`
	Shasum    string         `json:"shasum"`
	Manifest  map[string]any `json:"manifest"`
}

// writeDoc keeps d in the cache file, whole or not at all.
func writeDoc(file string, d cachedDoc) (cachedDoc, error) {
	data, err := json.Marshal(d)
	if err != nil {
		return d, err
	}
	tmp, err := tempBeside(file)
	if err != nil {
		return d, err
	}
	defer os.Remove(tmp)
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return d, err
	}
	return d, os.Rename(tmp, file)
}

// tempBeside makes an empty temporary file next to file, to be renamed onto it, and returns
// its name. The name is new for every call: two tests of one test binary fill the same cache
// at once (bridge's openclaw and Pi mirrors share packages), and a name made of the process
// id alone let one rename, or remove, the other's file (a fresh machine's make test failed
// with "rename …tgz.30034.tmp …tgz: no such file or directory").
func tempBeside(file string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".*.tmp")
	if err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}

// cachedDocFor finds the cached tarball of p and its document, when both are there.
func cachedDocFor(cache string, p MirroredPackage) (cachedDoc, string, bool) {
	sum, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(p.Integrity, "sha512-"))
	if err != nil {
		return cachedDoc{}, "", false
	}
	file := filepath.Join(cache, hex.EncodeToString(sum)[:40]+".tgz")
	if _, err := os.Stat(file); err != nil {
		return cachedDoc{}, "", false
	}
	var d cachedDoc
	data, err := os.ReadFile(strings.TrimSuffix(file, ".tgz") + ".doc.json")
	if err != nil || json.Unmarshal(data, &d) != nil || d.Integrity != p.Integrity || d.Shasum == "" || d.Manifest == nil {
		return cachedDoc{}, "", false
	}
	return d, file, true
}

// release splits a release version (no prerelease, no build) into its three numbers; nil for
// anything else. (internal/semver would do, but its tests use this package.)
func release(v string) []int {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return nil
	}
	out := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil
		}
		out[i] = n
	}
	return out
}

// releaseLess orders two release versions.
func releaseLess(a, b string) bool {
	x, y := release(a), release(b)
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return false
}
