package testenv

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// MirroredPackage is one real npm package version a lockfile names.
type MirroredPackage struct {
	Name      string
	Version   string
	Integrity string // sha512-…, as the lockfile pins it
	Tarball   string // the cached file; "" for an optional package that installs only on other platforms (npm and pnpm read its version document here, never its tarball)
}

type lockEntry struct {
	MirroredPackage
	resolved string
	// elsewhere: an optional dependency whose os or cpu leaves this machine out. npm and pnpm
	// read its version document (to see that) but never fetch its tarball here.
	elsewhere bool
}

// readLockfile lists the registry packages of an npm lockfile (v2 or v3 "packages").
func readLockfile(file string) ([]lockEntry, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var lock struct {
		LockfileVersion int `json:"lockfileVersion"`
		Packages        map[string]struct {
			Name      string `json:"name"`
			Version   string `json:"version"`
			Resolved  string `json:"resolved"`
			Integrity string `json:"integrity"`
			Link      bool   `json:"link"`
			InBundle  bool   `json:"inBundle"`
			Optional  bool   `json:"optional"`
			// DevOptional: optional in the development tree (lockfile v2/v3).
			DevOptional bool     `json:"devOptional"`
			OS          []string `json:"os"`
			CPU         []string `json:"cpu"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		return nil, fmt.Errorf("%s is not an npm lockfile: %v", file, err)
	}
	if lock.LockfileVersion < 2 {
		return nil, fmt.Errorf("%s is a lockfile v%d; regenerate it with npm 7 or newer", file, lock.LockfileVersion)
	}
	seen := map[string]int{} // id → index in out
	var out []lockEntry
	for key, p := range lock.Packages {
		if key == "" || p.Link || p.InBundle || !strings.Contains(key, "node_modules/") {
			continue // the project itself, workspace links, and what ships inside its parent's tarball
		}
		name := p.Name
		if name == "" {
			i := strings.LastIndex(key, "node_modules/")
			name = key[i+len("node_modules/"):]
		}
		if p.Resolved == "" {
			// npm leaves out "resolved" for the default registry.
			p.Resolved = "https://registry.npmjs.org/" + name + "/-/" + name[strings.LastIndexByte(name, '/')+1:] + "-" + p.Version + ".tgz"
		}
		id := name + "@" + p.Version
		elsewhere := (p.Optional || p.DevOptional) && !(platformAllows(npmOS(), p.OS) && platformAllows(npmCPU(), p.CPU))
		if i, ok := seen[id]; ok {
			// The same version in two places: its tarball is needed if either needs it.
			out[i].elsewhere = out[i].elsewhere && elsewhere
			continue
		}
		seen[id] = len(out)
		if !strings.HasPrefix(p.Integrity, "sha512-") {
			return nil, fmt.Errorf("%s: %s has no sha512 integrity", file, id)
		}
		out = append(out, lockEntry{MirroredPackage: MirroredPackage{Name: name, Version: p.Version, Integrity: p.Integrity}, resolved: p.Resolved, elsewhere: elsewhere})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Version < out[j].Version
	})
	return out, nil
}

// fetchTarball returns the cached tarball of p and its document, downloading what the cache
// lacks: the document from the registry (fetchVersionDoc), the tarball from where the lockfile
// resolved it. The tarball goes to its file as a stream, hashed on the way, and is never held
// whole: a race-built test binary (make test) pays for every byte its code touches, and reading
// each tarball into memory and then gunzipping it as far as its package.json took the first
// run's mirror 92 s and 161 s of CPU, against 9 s without -race; this way, 12 s and 9 s.
func fetchTarball(ctx context.Context, client *http.Client, cache, resolved string, p MirroredPackage) (MirroredPackage, cachedDoc, error) {
	sum, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(p.Integrity, "sha512-"))
	if err != nil {
		return p, cachedDoc{}, fmt.Errorf("%s@%s: bad integrity %q", p.Name, p.Version, p.Integrity)
	}
	doc, err := fetchVersionDoc(ctx, client, cache, resolved, p)
	if err != nil {
		return p, doc, err
	}
	file := filepath.Join(cache, hex.EncodeToString(sum)[:40]+".tgz")
	p.Tarball = file
	if f, err := os.Open(file); err == nil {
		h, err := hashes(f, nil)
		f.Close()
		if err == nil && bytes.Equal(h.sha512, sum) {
			return p, doc, nil
		}
	}
	u, err := url.Parse(resolved)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return p, doc, fmt.Errorf("%s@%s: cannot download %q", p.Name, p.Version, resolved)
	}
	tmp, err := tempBeside(file)
	if err != nil {
		return p, doc, err
	}
	defer os.Remove(tmp)
	var h tarballHashes
	err = withRetries(func() error {
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		defer f.Close()
		body, err := get(ctx, client, resolved)
		if err != nil {
			return err
		}
		defer body.Close()
		w := bufio.NewWriterSize(f, 256<<10)
		if h, err = hashes(body, w); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		return f.Close()
	})
	switch {
	case err != nil:
		return p, doc, fmt.Errorf("download %s@%s from %s: %v", p.Name, p.Version, resolved, err)
	case !bytes.Equal(h.sha512, sum):
		return p, doc, fmt.Errorf("%s@%s from %s does not match the lockfile's integrity", p.Name, p.Version, resolved)
	case hex.EncodeToString(h.sha1) != doc.Shasum:
		return p, doc, fmt.Errorf("%s@%s from %s does not match the shasum of its registry document", p.Name, p.Version, resolved)
	}
	return p, doc, os.Rename(tmp, file)
}

// tarballHashes are a tarball's sha512 (its integrity) and sha1 (its shasum).
type tarballHashes struct{ sha512, sha1 []byte }

// hashes reads r to its end (at most 256 MiB), copying it to w when w is not nil.
func hashes(r io.Reader, w io.Writer) (tarballHashes, error) {
	h512, h1 := sha512.New(), sha1.New()
	sinks := []io.Writer{h512, h1}
	if w != nil {
		sinks = append(sinks, w)
	}
	if _, err := io.CopyBuffer(io.MultiWriter(sinks...), io.LimitReader(r, 256<<20), make([]byte, 64<<10)); err != nil {
		return tarballHashes{}, err
	}
	return tarballHashes{h512.Sum(nil), h1.Sum(nil)}, nil
}

// platformAllows is npm-install-checks' checkList: value is allowed by list when no "!value"
// excludes it and it is named, or the list names nothing but exclusions. An unknown value
// ("") is allowed, so that a tarball is left out only when npm surely leaves it out.
func platformAllows(value string, list []string) bool {
	if value == "" || len(list) == 0 || (len(list) == 1 && list[0] == "any") {
		return true
	}
	negated, match := 0, false
	for _, e := range list {
		if name, ok := strings.CutPrefix(e, "!"); ok {
			negated++
			if name == value {
				return false
			}
		} else if e == value {
			match = true
		}
	}
	return match || negated == len(list)
}

// npmOS is node's process.platform for this machine; "" when Go's name has no known match.
func npmOS() string {
	switch runtime.GOOS {
	case "windows":
		return "win32"
	case "solaris", "illumos":
		return "sunos"
	case "linux", "darwin", "freebsd", "openbsd", "netbsd", "aix", "android":
		return runtime.GOOS
	}
	return ""
}

// npmCPU is node's process.arch for this machine; "" when Go's name has no known match.
func npmCPU() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x64"
	case "386":
		return "ia32"
	case "ppc64le":
		return "ppc64"
	case "arm64", "arm", "s390x", "riscv64", "loong64", "mips", "mipsel", "ppc64":
		return runtime.GOARCH
	}
	return ""
}

// fetchVersionDoc returns what a packument needs of a package version: its version document
// from the registry the lockfile resolved it from (<registry>/<name>/<version>), checked
// against the lockfile's integrity and kept in the cache, named after that integrity. For a
// package that installs only elsewhere it is all Mirror serves.
func fetchVersionDoc(ctx context.Context, client *http.Client, cache, resolved string, p MirroredPackage) (cachedDoc, error) {
	sum, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(p.Integrity, "sha512-"))
	if err != nil {
		return cachedDoc{}, fmt.Errorf("%s@%s: bad integrity %q", p.Name, p.Version, p.Integrity)
	}
	file := filepath.Join(cache, hex.EncodeToString(sum)[:40]+".doc.json")
	var d cachedDoc
	if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &d) == nil && d.Integrity == p.Integrity && d.Shasum != "" && d.Manifest != nil {
		return d, nil
	}
	base, _, ok := strings.Cut(resolved, "/-/")
	if u, err := url.Parse(base); !ok || err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return d, fmt.Errorf("%s@%s: no registry to ask in %q", p.Name, p.Version, resolved)
	}
	u := base + "/" + url.PathEscape(p.Version)
	data, err := download(ctx, client, u)
	if err != nil {
		return d, fmt.Errorf("download %s@%s's document from %s: %v", p.Name, p.Version, u, err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return d, fmt.Errorf("%s@%s's document from %s: %v", p.Name, p.Version, u, err)
	}
	dist, _ := m["dist"].(map[string]any)
	integrity, _ := dist["integrity"].(string)
	shasum, _ := dist["shasum"].(string)
	if integrity != p.Integrity || shasum == "" {
		return d, fmt.Errorf("%s@%s's document from %s does not match the lockfile's integrity", p.Name, p.Version, u)
	}
	// What the registry added on publish goes; the package's own fields stay, as in a tarball's
	// package.json.
	for k := range m {
		if strings.HasPrefix(k, "_") || k == "dist" || k == "readme" || k == "readmeFilename" {
			delete(m, k)
		}
	}
	return writeDoc(file, cachedDoc{Integrity: p.Integrity, Shasum: shasum, Manifest: m})
}

// download fetches u, trying three times (a second, then two, between tries).
func download(ctx context.Context, client *http.Client, u string) ([]byte, error) {
	var data []byte
	err := withRetries(func() error {
		body, err := get(ctx, client, u)
		if err != nil {
			return err
		}
		defer body.Close()
		data, err = io.ReadAll(io.LimitReader(body, 256<<20))
		return err
	})
	return data, err
}

// withRetries calls try up to three times, a second and then two apart, until it succeeds.
func withRetries(try func() error) error {
	for attempt := 0; ; attempt++ {
		err := try()
		if err == nil || attempt == 2 {
			return err
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
}

// get returns the body of a 200 answer to a GET of u.
func get(ctx context.Context, client *http.Client, u string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return resp.Body, nil
}

// fourAtOnce calls fn for 0…n-1, four at a time, and returns the first error.
func fourAtOnce(n int, fn func(i int) error) error {
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	return first
}
