package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/exit"
)

func TestExportHermesFlags(t *testing.T) {
	cases := []struct {
		args  []string
		check func(*testing.T, *ExportOptions)
	}{
		{[]string{}, func(t *testing.T, o *ExportOptions) {
			if o.Target != "hermes" || o.Path != "." || o.Merge != "" || o.ServerName != "" || o.Command != "" || o.ArgsGiven || o.Timeout != 0 || o.ConnectTimeout != 0 || o.Parallel {
				t.Errorf("defaults: %+v", o)
			}
		}},
		{[]string{"pk", "--merge", "cfg.yaml", "--dry-run", "--server-name", "w", "--command", "node", "--args", "/a/b.js", "--args", "--flag", "--include-tag", "x", "--exclude-tag", "y", "--timeout", "2m", "--connect-timeout", "30", "--parallel", "--secret", "a.b=A_B"}, func(t *testing.T, o *ExportOptions) {
			if o.Path != "pk" || o.Merge != "cfg.yaml" || !o.DryRun || o.ServerName != "w" || o.Command != "node" || !o.ArgsGiven || strings.Join(o.Args, " ") != "/a/b.js --flag" ||
				strings.Join(o.IncludeTags, ",") != "x" || strings.Join(o.ExcludeTags, ",") != "y" || o.Timeout != 120 || o.ConnectTimeout != 30 || !o.Parallel || o.Secrets[0] != "a.b=A_B" {
				t.Errorf("flags: %+v", o)
			}
		}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, _, _ := guardTestFactory(t)
			var got *ExportOptions
			cmd := NewCmdExportHermes(f, func(o *ExportOptions) error { got = o; return nil })
			cmd.SetArgs(c.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			c.check(t, got)
		})
	}
}

func TestExportOpenClawAndPiFlags(t *testing.T) {
	for _, target := range []string{"openclaw", "pi"} {
		f, _, _ := guardTestFactory(t)
		var got *ExportOptions
		run := func(o *ExportOptions) error { got = o; return nil }
		cmd := NewCmdExportOpenClaw(f, run)
		if target == "pi" {
			cmd = NewCmdExportPi(f, run)
		}
		cmd.SetArgs([]string{"--check", "plugin"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if got.Target != target || !got.Check || got.DryRun || got.Path != "plugin" {
			t.Errorf("%s: %+v", target, got)
		}
	}
}

// TestExportRefusals: usage mistakes exit 2 in one sentence (through the root command, as a
// user meets them).
func TestExportRefusals(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"hermes", "--timeout", "soon"}, "give whole seconds"},
		{[]string{"hermes", "--timeout", "1500ms"}, "give whole seconds"},
		{[]string{"hermes", "--dry-run"}, "--dry-run goes with --merge"},
		{[]string{"hermes", "--server-name", " "}, "--server-name is empty"},
		{[]string{"hermes", "--secret", "x=not a name"}, "--secret x=…"},
		{[]string{"openclaw", "--check", "--dry-run"}, "--check and --dry-run do not go together"},
		{[]string{"pi", "a", "b"}, "accepts at most 1 arg"},
		{[]string{"claude"}, `unknown export "claude"; use one of hermes, openclaw, pi`},
		{nil, "give what to export: one of hermes, openclaw, pi"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, _, _ := guardTestFactory(t)
			root := NewRootCmd(f)
			root.SetArgs(append([]string{"export"}, c.args...))
			_, err := root.ExecuteC()
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v (exit %d), want exit 2 with %q", err, exit.Code(err), c.want)
			}
		})
	}
}

// TestExportRunRefusesBadSecrets: the run itself (as a caller that skips the command's flag
// checks reaches it) refuses a --secret that names no environment variable, with exit 2 and
// without repeating the value, before it reads the pack.
func TestExportRunRefusesBadSecrets(t *testing.T) {
	err := exportRun(context.Background(), &ExportOptions{Target: "hermes", Path: "does-not-exist", Secrets: []string{"serper.apiKey=sk-live-123"}})
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--secret serper.apiKey=…") || strings.Contains(err.Error(), "sk-live") {
		t.Fatalf("got %v (exit %d), want exit 2 naming the secret's id only", err, exit.Code(err))
	}
}
