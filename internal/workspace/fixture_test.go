package workspace

import (
	"encoding/json"
	"testing"
	"testing/fstest"
)

// TestFixtureOf: a package's fixture is the role map's, with the configuration's laid over it
// key by key (secrets and options replaced one key at a time, installScripts added once each);
// a configuration key written with "./" or a trailing slash names the same folder; without a
// role map, or without a workspace, the configuration's fixture is the whole of it; the maps
// given are never changed.
func TestFixtureOf(t *testing.T) {
	ws, err := Discover(fstest.MapFS{
		"package.json":                {Data: []byte(`{"name":"r","private":true,"workspaces":["packages/*"]}`)},
		"packages/relay/package.json": {Data: []byte(`{"name":"relay"}`)},
		"packages/other/package.json": {Data: []byte(`{"name":"other"}`)},
		"packages/local/package.json": {Data: []byte(`{"name":"local"}`)},
		"scripts/package-roles.json":  {Data: []byte(`{"roles":{"packages/relay":"pack","packages/other":"pack","packages/local":"pack"},"fixtures":{"./packages/relay":{"secrets":{"relay.token":"from-roles","relay.id":"7"},"options":{"endpoint":"http://roles","retries":2},"installScripts":["sharp"]},"packages/local":{"loopback":true}}}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	overlay := map[string]Fixture{
		"./packages/relay/": {Secrets: map[string]string{"relay.token": "from-config"}, Options: map[string]any{"endpoint": "http://config"}, InstallScripts: []string{"sharp", "bcrypt"}},
		"packages/solo":     {Options: map[string]any{"only": true}},
	}
	before, _ := json.Marshal(overlay)
	rolesBefore, _ := json.Marshal(ws.Roles.Fixtures)

	got := FixtureOf(ws, "packages/relay", overlay)
	want := Fixture{
		Secrets:        map[string]string{"relay.token": "from-config", "relay.id": "7"},
		Options:        map[string]any{"endpoint": "http://config", "retries": float64(2)},
		InstallScripts: []string{"sharp", "bcrypt"},
	}
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Errorf("relay: got %s, want %s", g, w)
	}
	if g := mustJSON(t, FixtureOf(ws, "packages/other", overlay)); g != "{}" {
		t.Errorf("a package named by neither: got %s, want {}", g)
	}
	if g := mustJSON(t, FixtureOf(nil, "packages/solo", overlay)); g != `{"options":{"only":true}}` {
		t.Errorf("without a workspace: got %s", g)
	}
	if g := mustJSON(t, FixtureOf(ws, "packages/relay", nil)); g != `{"secrets":{"relay.id":"7","relay.token":"from-roles"},"options":{"endpoint":"http://roles","retries":2},"installScripts":["sharp"]}` {
		t.Errorf("the role map alone: got %s", g)
	}
	// loopback: the role map's true stays true whatever the configuration says of the folder.
	if g := mustJSON(t, FixtureOf(ws, "packages/local", map[string]Fixture{"packages/local": {Options: map[string]any{"port": 8000}}})); g != `{"options":{"port":8000},"loopback":true}` {
		t.Errorf("loopback from the role map: got %s", g)
	}
	if g := mustJSON(t, FixtureOf(ws, "packages/relay", map[string]Fixture{"packages/relay": {Loopback: true}})); g != `{"secrets":{"relay.id":"7","relay.token":"from-roles"},"options":{"endpoint":"http://roles","retries":2},"installScripts":["sharp"],"loopback":true}` {
		t.Errorf("loopback from the configuration: got %s", g)
	}
	after, _ := json.Marshal(overlay)
	rolesAfter, _ := json.Marshal(ws.Roles.Fixtures)
	if string(before) != string(after) || string(rolesBefore) != string(rolesAfter) {
		t.Error("FixtureOf changed a map it was given")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
