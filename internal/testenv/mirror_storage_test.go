package testenv

import (
	"crypto/sha512"
	"encoding/base64"
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
