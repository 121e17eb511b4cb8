package guard

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/sandbox"
	"github.com/plaios/plaios/internal/scaffold/scaffoldtest"
	"github.com/plaios/plaios/internal/testenv"
)

// TestGeneratedPacksPass: what `plaios create` writes passes guard once built, for every
// runtime (the PLAIOS package holds all eleven kinds, so every kind's contract is checked).
// The packages are the golden cases as scaffoldtest builds them (installed from the npm
// registry, as a user's would be, and built with tsc); guard installs the candidates'
// dependencies from the npm registry too.
func TestGeneratedPacksPass(t *testing.T) {
	repo := scaffoldtest.Built(t)
	var only []string
	for _, name := range []string{"plaios-every-kind", "agentos-tool", "agentos-multi-tool", "agentos-guardrail", "openclaw-tool", "pi-tool"} {
		s := repo.Packages[name]
		if s == nil {
			t.Fatalf("scaffoldtest built no %s", name)
		}
		rel, _ := filepath.Rel(repo.Dir, s.Dir)
		only = append(only, filepath.ToSlash(rel))
	}
	testenv.SetTempDir(t)

	env := map[string]string{}
	for _, kv := range testenv.CleanEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	rep, err := Run(context.Background(), Options{
		Dir: repo.Dir, Only: only, Jobs: 2, Timeout: time.Minute, Sandbox: sandbox.Auto,
		Getenv: func(k string) string { return env[k] },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != len(only) {
		t.Fatalf("guarded %d packages, want %d", len(rep.Packages), len(only))
	}
	for _, r := range rep.Packages {
		if !r.OK {
			t.Errorf("%s (%s): %s", r.Name, r.Dir, r.Reason)
			continue
		}
		if len(r.Descriptors) == 0 {
			t.Errorf("%s: nothing was loaded", r.Name)
		}
		for _, d := range r.Diagnostics {
			t.Errorf("%s: %s %s: %s", r.Name, d.Severity, d.Rule, d.Message)
		}
		t.Logf("ok %s@%s (%s)", r.Name, r.Version, r.Noun())
	}
	if r := byDir(rep)["packages/every-kind"]; r != nil && len(r.Descriptors) != 11 {
		t.Errorf("every-kind loaded %d interfaces, want 11", len(r.Descriptors))
	}
}
