// Package registrytest seeds real registries (Verdaccio) for tests and benchmarks through npm's
// publish API — the same PUT of a package document with the tarball attached that
// `npm publish` sends — so that thousands of versions can be published in seconds instead of
// one `npm publish` process each.
package registrytest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/plaios/plaios/internal/npm/registry"
)

// Tarball builds an npm tarball (gzip'd tar with every file under "package/") holding a
// package.json for name@version and the given extra files.
func Tarball(name, version string, files map[string]string) ([]byte, []byte, error) {
	manifest, err := json.MarshalIndent(map[string]any{"name": name, "version": version, "license": "MIT"}, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	all := map[string]string{"package.json": string(manifest)}
	for k, v := range files {
		all[k] = v
	}
	names := make([]string, 0, len(all))
	for k := range all {
		names = append(names, k)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	mtime := time.Date(1985, 10, 26, 8, 15, 0, 0, time.UTC)
	for _, n := range names {
		body := all[n]
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + n, Mode: 0o644, Size: int64(len(body)), ModTime: mtime, Typeflag: tar.TypeReg}); err != nil {
			return nil, nil, err
		}
		if _, err := io.WriteString(tw, body); err != nil {
			return nil, nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), manifest, nil
}

// Publish publishes name@version to the registry at registryURL, as `npm publish` does: a PUT
// of the package document with one version and its tarball attached. token may be "".
func Publish(ctx context.Context, client *http.Client, registryURL, token, name, version string, files map[string]string) error {
	tgz, _, err := Tarball(name, version, files)
	if err != nil {
		return err
	}
	manifest := map[string]any{
		"name":        name,
		"version":     version,
		"description": "test package " + name,
		"license":     "MIT",
	}
	return PublishTarball(ctx, client, registryURL, token, tgz, manifest)
}

// PublishTarball publishes a tarball with its version document (the package's package.json),
// as `npm publish <tarball>` does: a PUT of the package document holding that one version,
// its dist (sha512 integrity, sha1 shasum, tarball URL) and the tarball attached.
func PublishTarball(ctx context.Context, client *http.Client, registryURL, token string, tgz []byte, manifest map[string]any) error {
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	name, _ := manifest["name"].(string)
	version, _ := manifest["version"].(string)
	if name == "" || version == "" {
		return fmt.Errorf("publish: the package document needs a name and a version")
	}
	reg := strings.TrimRight(registryURL, "/") + "/"
	s512 := sha512.Sum512(tgz)
	s1 := sha1.Sum(tgz)
	short := name[strings.LastIndexByte(name, '/')+1:]
	file := short + "-" + version + ".tgz"
	v := make(map[string]any, len(manifest)+2)
	for k, val := range manifest {
		v[k] = val
	}
	v["_id"] = name + "@" + version
	v["dist"] = map[string]any{
		"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
		"shasum":    hex.EncodeToString(s1[:]),
		"tarball":   reg + name + "/-/" + file,
	}
	doc := map[string]any{
		"_id":       name,
		"name":      name,
		"dist-tags": map[string]string{"latest": version},
		"versions":  map[string]any{version: v},
		"access":    "public",
		"_attachments": map[string]any{file: map[string]any{
			"content_type": "application/octet-stream",
			"data":         base64.StdEncoding.EncodeToString(tgz),
			"length":       len(tgz),
		}},
	}
	if d, ok := manifest["description"]; ok {
		doc["description"] = d
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, reg+registry.EscapeName(name), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("npm-command", "publish")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("publish %s@%s: %w", name, version, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("publish %s@%s: HTTP %d: %s", name, version, resp.StatusCode, bytes.TrimSpace(msg))
	}
	return nil
}

// Release is one package and the versions to publish, in order.
type Release struct {
	Name     string
	Versions []string
}

// PublishAll publishes every version of every release, jobs packages at a time (the versions
// of one package go in order, one after the other, as the registry requires).
func PublishAll(ctx context.Context, registryURL, token string, releases []Release, jobs int) error {
	if jobs < 1 {
		jobs = 1
	}
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: jobs}}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan Release)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				for _, v := range r.Versions {
					if err := Publish(ctx, client, registryURL, token, r.Name, v, map[string]string{"index.js": "module.exports = " + fmt.Sprintf("%q", v) + ";\n"}); err != nil {
						mu.Lock()
						if first == nil {
							first = err
						}
						mu.Unlock()
						cancel()
						break
					}
				}
			}
		}()
	}
feed:
	for _, r := range releases {
		select {
		case next <- r:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return first
}
