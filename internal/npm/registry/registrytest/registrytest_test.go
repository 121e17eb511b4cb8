package registrytest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/npm/npmrc"
	"github.com/plaios/plaios/internal/npm/registry"
	"github.com/plaios/plaios/internal/npm/registry/registrytest"
	"github.com/plaios/plaios/internal/testenv"
)

// TestPublishToVerdaccio publishes through the HTTP API and reads the versions back with the
// registry client, with the credentials of the npmrc testenv writes; a package it never
// published is not found.
func TestPublishToVerdaccio(t *testing.T) {
	testenv.SkipShort(t, "starts Verdaccio")
	reg := testenv.Verdaccio(t)
	ctx := context.Background()
	err := registrytest.PublishAll(ctx, reg.URL, "dummy-test-token", []registrytest.Release{
		{Name: "@bench/a", Versions: []string{"0.1.0", "0.2.0", "1.0.0-beta.1"}},
		{Name: "plain-b", Versions: []string{"1.0.0"}},
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	c := &registry.Client{NPMRC: npmrc.Parse("npmrc", nil, nil), Registry: reg.URL}
	p, err := c.Packument(ctx, "@bench/a")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.VersionList(); len(got) != 3 || got[0] != "0.1.0" {
		t.Errorf("versions = %v", got)
	}
	if p.Versions["0.2.0"].Integrity == "" {
		t.Error("the full packument must carry dist.integrity")
	}
	// A name the registry never saw is ErrNotFound, as Verdaccio answers 404 for it.
	if _, err := c.Packument(ctx, "@bench/never-published"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("an unknown package: %v, want ErrNotFound", err)
	}
	// npm sees the same versions.
	out := testenv.Run(t, t.TempDir(), reg.NPMEnv(), "npm", "view", "plain-b", "versions", "--json")
	if !strings.Contains(out, `"1.0.0"`) {
		t.Errorf("npm view plain-b versions = %q, want 1.0.0", out)
	}
}
