package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/exit"
)

func TestMCPServeFlags(t *testing.T) {
	cases := []struct {
		args  []string
		check func(*testing.T, *MCPServeOptions)
	}{
		{[]string{}, func(t *testing.T, o *MCPServeOptions) {
			if o.Path != "." || o.Offline || o.List || o.Timeout != 60*time.Second || o.CallTimeout != 60*time.Second || o.Sandbox != "auto" || len(o.Secrets) != 0 || o.Memory != "2GiB" || o.memory != 2<<30 {
				t.Errorf("defaults: %+v", o)
			}
		}},
		{[]string{"packs/weather", "--offline", "--list", "--timeout", "90s", "--secret", "serper.apiKey=SERPER_KEY", "--secret", "b=B_2", "--memory", "512MiB"}, func(t *testing.T, o *MCPServeOptions) {
			if o.Path != "packs/weather" || !o.Offline || !o.List || o.Timeout != 90*time.Second || strings.Join(o.Secrets, " ") != "serper.apiKey=SERPER_KEY b=B_2" || o.memory != 512<<20 {
				t.Errorf("flags: %+v", o)
			}
		}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, _, _ := guardTestFactory(t)
			var got *MCPServeOptions
			cmd := NewCmdMCPServe(f, func(o *MCPServeOptions) error { got = o; return nil })
			cmd.SetArgs(c.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			c.check(t, got)
		})
	}
}

// TestMCPServeRefusals: usage mistakes exit 2 in one sentence, and a secret given by mistake
// in place of a variable's name is never repeated.
func TestMCPServeRefusals(t *testing.T) {
	const leaked = "sk-live-0123456789abcdef"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--secret", "serper.apiKey=" + leaked}, "--secret serper.apiKey=…: after = give the name of the environment variable that holds the secret"},
		{[]string{"--secret", "noequals"}, "--secret takes ID=ENV_VAR"},
		{[]string{"--timeout", "0s"}, "--timeout 0s is not valid"},
		{[]string{"--call-timeout", "-1s"}, "--call-timeout -1s is not valid"},
		{[]string{"--sandbox", "netns"}, "--sandbox"},
		{[]string{"--memory", "2GB"}, `--memory "2GB" is not a memory size; give a whole number and a unit, such as 512MiB or 4GiB`},
		{[]string{"--memory", "16MiB"}, `--memory "16MiB" is less than node needs to start; give at least 64MiB`},
		{[]string{"a", "b"}, "accepts at most 1 arg"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, out, errOut := guardTestFactory(t)
			cmd := NewCmdMCPServe(f, func(*MCPServeOptions) error { t.Fatal("ran"); return nil })
			cmd.SetArgs(c.args)
			cmd.SetOut(out)
			cmd.SetErr(errOut)
			err := cmd.Execute()
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v (exit %d), want exit 2 with %q", err, exit.Code(err), c.want)
			}
			if strings.Contains(err.Error()+out.String()+errOut.String(), leaked) {
				t.Errorf("the secret was repeated")
			}
		})
	}
}

// TestMCPServeRunRefusesBadSecrets: the run itself (not only flag parsing) gives a bad
// --secret's error to the user, never a silently empty mapping.
func TestMCPServeRunRefusesBadSecrets(t *testing.T) {
	const leaked = "sk-live-0123456789abcdef"
	f, _, _ := guardTestFactory(t)
	dir := t.TempDir()
	opts := &MCPServeOptions{IO: f.IO, Dir: func() (string, error) { return dir, nil }, Getenv: func(string) string { return "" },
		Path: ".", Secrets: []string{"serper.apiKey=" + leaked}, Timeout: time.Second, CallTimeout: time.Second, Sandbox: "auto"}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"p","version":"1.0.0","pi":{"extensions":["./index.js"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := mcpServeRun(context.Background(), opts)
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--secret serper.apiKey=…") || strings.Contains(err.Error(), leaked) {
		t.Fatalf("got %v (exit %d), want exit 2 naming --secret without the value", err, exit.Code(err))
	}
}
