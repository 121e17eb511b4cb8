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
