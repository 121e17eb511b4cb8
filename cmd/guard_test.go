package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/exit"
)

func guardTestFactory(t *testing.T) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	f := NewFactory(&IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut})
	dir := t.TempDir()
	f.Getenv = func(string) string { return "" }
	f.Dir = func() (string, error) { return dir, nil }
	return f, out, errOut
}

func TestGuardFlags(t *testing.T) {
	cases := []struct {
		args  []string
		check func(*testing.T, *GuardOptions)
	}{
		{[]string{}, func(t *testing.T, o *GuardOptions) {
			if o.All || o.Only != nil || o.Plan != "" || o.Out != "" || o.Timeout != 60*time.Second || o.StepTimeout != 10*time.Minute || o.Memory != "2GiB" || o.Sandbox != "auto" || o.Format != "text" || len(o.Paths) != 0 {
				t.Errorf("defaults: %+v", o)
			}
		}},
		{[]string{"--all", "--out", "packs", "--timeout", "2m", "--step-timeout", "30m", "--memory", "4GiB", "--sandbox", "off", "--format", "github", "--shard", "2/4", "a", "b"}, func(t *testing.T, o *GuardOptions) {
			if !o.All || o.Out != "packs" || o.Timeout != 2*time.Minute || o.StepTimeout != 30*time.Minute || o.Memory != "4GiB" || o.Sandbox != "off" || o.Format != "github" || o.Shard != "2/4" || strings.Join(o.Paths, " ") != "a b" {
				t.Errorf("flags: %+v", o)
			}
		}},
		{[]string{"--only", "x,y", "--only", "z"}, func(t *testing.T, o *GuardOptions) {
			if strings.Join(o.Only, " ") != "x y z" {
				t.Errorf("--only: %v", o.Only)
			}
		}},
		{[]string{"--plan", "plan.json", "--registry", "http://127.0.0.1:4873/", "--jobs", "3"}, func(t *testing.T, o *GuardOptions) {
			cfg, err := o.Config()
			if err != nil {
				t.Fatal(err)
			}
			if o.Plan != "plan.json" || cfg.Registry != "http://127.0.0.1:4873/" || cfg.Jobs != 3 {
				t.Errorf("plan %q, registry %q, jobs %d", o.Plan, cfg.Registry, cfg.Jobs)
			}
		}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, _, _ := guardTestFactory(t)
			var got *GuardOptions
			cmd := NewCmdGuard(f, func(o *GuardOptions) error { got = o; return nil })
			cmd.SetArgs(c.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("run was not called")
			}
			c.check(t, got)
		})
	}
}

func TestGuardFlagMistakes(t *testing.T) {
	for args, want := range map[string]string{
		"--format xml":      `--format "xml" is not valid; use one of text, json, github`,
		"--sandbox none":    `--sandbox "none" is not valid; use one of auto, netns, off`,
		"--shard 0/3":       `--shard "0/3" is not valid`,
		"--shard 2":         `--shard "2" is not valid`,
		"--timeout -1s":     `--timeout -1s is not valid`,
		"--step-timeout 0s": `--step-timeout 0s is not valid`,
		"--memory 2GB":      `--memory "2GB" is not a memory size; give a whole number and a unit, such as 512MiB or 4GiB`,
		"--memory 16MiB":    `--memory "16MiB" is less than node needs to start; give at least 64MiB`,
	} {
		t.Run(args, func(t *testing.T) {
			f, _, _ := guardTestFactory(t)
			cmd := NewCmdGuard(f, func(*GuardOptions) error { t.Fatal("run must not be called"); return nil })
			cmd.SetArgs(strings.Fields(args))
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v (exit %d), want exit 2 with %q", err, exit.Code(err), want)
			}
		})
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string][2]int{"1/1": {1, 1}, "2/4": {2, 4}, " 3 / 3 ": {3, 3}} {
		i, n, err := parseShard(in)
		if err != nil || i != want[0] || n != want[1] {
			t.Errorf("parseShard(%q) = %d, %d, %v", in, i, n, err)
		}
	}
	for _, in := range []string{"", "0/1", "2/1", "a/b", "1/0", "1-2"} {
		if _, _, err := parseShard(in); exit.Code(err) != exit.Usage {
			t.Errorf("parseShard(%q): want a usage error, got %v", in, err)
		}
	}
}
