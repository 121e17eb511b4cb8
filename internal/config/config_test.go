package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFindWalksUp(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Find(deep); strings.HasPrefix(got, root) {
		t.Fatalf("found %s before any file was written", got)
	}
	p := write(t, filepath.Join(root, "a"), "jobs: 2\n")
	if got := Find(deep); got != p {
		t.Fatalf("Find = %q, want %q", got, p)
	}
}

// TestLocate: --config (or PLAIOS_CONFIG) names the file, relative to the working directory,
// and it must exist; without one the nearest .plaios.yaml counts, and none is "".
func TestLocate(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Locate(deep, ""); err != nil || strings.HasPrefix(got, root) {
		t.Fatalf("no file: Locate = %q, %v", got, err)
	}
	found := write(t, filepath.Join(root, "a"), "jobs: 2\n")
	other := filepath.Join(deep, "other.yaml")
	if err := os.WriteFile(other, []byte("jobs: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ given, want string }{{"", found}, {"other.yaml", other}, {other, other}} {
		if got, err := Locate(deep, c.given); err != nil || got != c.want {
			t.Errorf("Locate(%q) = %q, %v; want %q", c.given, got, err, c.want)
		}
	}
	_, err := Locate(deep, "missing.yaml")
	if want := "the configuration file " + filepath.Join(deep, "missing.yaml") + " does not exist; check --config"; err == nil || err.Error() != want {
		t.Errorf("a missing --config: %v, want %q", err, want)
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name, yaml string
		warnings   []string
		err        string
	}{
		{"every key", "runtime: agentos\nscope: \"@acme\"\nregistry: http://localhost:4873/\npackManager: pnpm\njobs: 4\ngithub:\n  repo: a/b\n  apiURL: http://x\n  releases: false\nrules:\n  readme-missing: off\n  agentos-name: error\n", nil, ""},
		{"empty", "", nil, ""},
		{"unknown key", "colour: blue\njobs: 1\n", []string{`:1: unknown key "colour" is ignored`}, ""},
		{"unknown nested key", "github:\n  token: x\n", []string{`:2: unknown key "github.token" is ignored`}, ""},
		{"jobs not an integer", "runtime: plaios\njobs: many\n", nil, `:2: "jobs" must be an integer, not the string "many"`},
		{"runtime a list", "runtime: [a]\n", nil, `:1: "runtime" must be a string, not a list`},
		{"github.releases not a boolean", "github:\n  releases: \"no\"\n", nil, `:2: "github.releases" must be a boolean, not the string "no"`},
		{"github not a mapping", "github: x\n", nil, `:1: "github" must be a mapping, not the string "x"`},
		{"bad severity", "rules:\n  readme-missing: loud\n", nil, `:2: "rules.readme-missing" is "loud"; it must be off, warning or error`},
		{"duplicate key", "jobs: 1\njobs: 2\n", nil, `:2: the key "jobs" is given twice`},
		{"not a mapping", "- a\n", nil, `:1: the configuration must be a mapping`},
		{"not YAML", "jobs: [1\n", nil, "not valid YAML"},
		{"fixtures", "fixtures:\n  packages/telegram:\n    secrets: {telegram.botToken: \"000:x\"}\n    options: {webhookUrl: http://127.0.0.1/, retries: 2}\n    installScripts: [sharp]\n", nil, ""},
		{"fixtures not a mapping", "fixtures: [a]\n", nil, `:1: "fixtures" must be a mapping, not a list`},
		{"fixture not a mapping", "fixtures:\n  packages/a: true\n", nil, `:2: "fixtures.packages/a" must be a mapping with secrets, options, installScripts and loopback, not the boolean true`},
		{"fixture unknown key", "fixtures:\n  packages/a:\n    secret: {a: b}\n", nil, `:3: "fixtures.packages/a.secret" is not a fixture key; a fixture has secrets, options, installScripts and loopback`},
		{"fixture loopback not a boolean", "fixtures:\n  packages/a:\n    loopback: yes please\n", nil, `:3: "fixtures.packages/a.loopback" must be true or false, not the string "yes please"`},
		{"fixture secret not a string", "fixtures:\n  packages/a:\n    secrets:\n      acme.key: 12\n", nil, `:4: the secret "acme.key" of "fixtures.packages/a" must be a string, not the integer 12`},
		{"fixture options a list", "fixtures:\n  packages/a:\n    options: [1]\n", nil, `:3: "fixtures.packages/a.options" must be a mapping, not a list`},
		{"fixture installScripts a string", "fixtures:\n  packages/a:\n    installScripts: sharp\n", nil, `:3: "fixtures.packages/a.installScripts" must be a list of package names, not the string "sharp"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, t.TempDir(), c.yaml)
			warnings, err := Check(p)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), p) {
					t.Fatalf("err = %v, want one naming %s and containing %q", err, p, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if len(warnings) != len(c.warnings) {
				t.Fatalf("warnings = %q, want %q", warnings, c.warnings)
			}
			for i, w := range c.warnings {
				if !strings.Contains(warnings[i], w) {
					t.Errorf("warning %q does not contain %q", warnings[i], w)
				}
			}
		})
	}
	if _, err := Check(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadFixtures: fixtures keep their keys exactly as written (secret ids with dots and
// capitals, which viper would split and lower-case) and their values' types.
func TestReadFixtures(t *testing.T) {
	p := write(t, t.TempDir(), "jobs: 2\nfixtures:\n  registry/curated/channels/telegram:\n    secrets:\n      telegram.botToken: \"000000:inert\"\n    options:\n      webhookUrl: http://127.0.0.1/hook\n      retries: 2\n      nested: {Deep: true}\n    installScripts: [sharp, better-sqlite3]\n  packages/b:\n    options: {x: 1}\n    loopback: true\n")
	if _, err := Check(p); err != nil {
		t.Fatal(err)
	}
	fx, err := ReadFixtures(p)
	if err != nil {
		t.Fatal(err)
	}
	tg := fx["registry/curated/channels/telegram"]
	if len(fx) != 2 || tg.Secrets["telegram.botToken"] != "000000:inert" || tg.Options["webhookUrl"] != "http://127.0.0.1/hook" || tg.Options["retries"] != 2 ||
		strings.Join(tg.InstallScripts, ",") != "sharp,better-sqlite3" || tg.Options["nested"].(map[string]any)["Deep"] != true || fx["packages/b"].Options["x"] != 1 || tg.Loopback || !fx["packages/b"].Loopback {
		t.Fatalf("fixtures: %#v", fx)
	}
	none, err := ReadFixtures(write(t, t.TempDir(), "jobs: 2\n"))
	if err != nil || none != nil {
		t.Fatalf("a file without fixtures: %v %v", none, err)
	}
}
