package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/scaffold"
	"github.com/plaios/plaios/internal/testenv"
)

// newCreateTest builds `plaios create` under a root command (for the global flags and the
// configuration) in dir, returning the options runF received.
func newCreateTest(t *testing.T, dir string, env map[string]string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	f := NewFactory(&IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut})
	f.Getenv = func(k string) string { return env[k] }
	return f, out, errOut
}

func parseCreate(t *testing.T, args ...string) (*CreateOptions, error) {
	t.Helper()
	f, _, _ := newCreateTest(t, t.TempDir(), nil)
	var got *CreateOptions
	root := NewRootCmd(f)
	for _, c := range root.Commands() {
		if c.Name() == "create" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(NewCmdCreate(f, func(o *CreateOptions) error { got = o; return nil }))
	root.SetArgs(append([]string{"-C", t.TempDir(), "create"}, args...))
	_, err := root.ExecuteC()
	return got, err
}

func TestNewCmdCreateFlags(t *testing.T) {
	for _, c := range []struct {
		args  []string
		check func(*CreateOptions) bool
	}{
		{[]string{"action", "weather"}, func(o *CreateOptions) bool {
			return o.Name == "weather" && strings.Join(o.Kinds, ",") == "action" && !o.DryRun && !o.NoInstall
		}},
		{[]string{"weather"}, func(o *CreateOptions) bool { return o.Name == "weather" && o.Kinds == nil }},
		{[]string{"--kind", "input,output", "telegram-clone"}, func(o *CreateOptions) bool {
			return o.Name == "telegram-clone" && strings.Join(o.Kinds, "|") == "input|output"
		}},
		{[]string{"input,output", "x"}, func(o *CreateOptions) bool { return strings.Join(o.Kinds, "|") == "input|output" }},
		{[]string{"--runtime", "agentos", "tool", "web-search", "--category", "research"}, func(o *CreateOptions) bool {
			return o.Runtime == "agentos" && o.Category == "research" && o.Name == "web-search"
		}},
		{[]string{"--dir", "x/y", "--scope", "@acme", "--description", "D", "--dry-run", "--force", "--template", "t", "--no-install", "w"}, func(o *CreateOptions) bool {
			return o.PackageDir == "x/y" && o.Scope == "@acme" && o.Description == "D" && o.DryRun && o.Force && o.Template == "t" && o.NoInstall
		}},
		{[]string{"--json", "w"}, func(o *CreateOptions) bool { return o.JSON }},
	} {
		o, err := parseCreate(t, c.args...)
		if err != nil || o == nil || !c.check(o) {
			t.Errorf("%v: got %+v, %v", c.args, o, err)
		}
	}
}

func TestNewCmdCreateUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "accepts between 1 and 2 arg(s), received 0"},
		{[]string{"a", "b", "c"}, "accepts between 1 and 2 arg(s), received 3"},
		{[]string{"--kind", "input", "output", "x"}, "give the kind either as the first argument or with --kind, not both"},
		{[]string{"--runtime", "hermes", "x"}, `unknown runtime "hermes"; use one of plaios, agentos, openclaw, pi`},
		{[]string{"--bogus", "x"}, "unknown flag: --bogus"},
	} {
		_, err := parseCreate(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || exit.Code(err) != exit.Usage {
			t.Errorf("%v: got %v (exit %d), want exit 2 with %q", c.args, err, exit.Code(err), c.want)
		}
	}
}

// runCreate runs the real command in dir with a stand-in package manager, and Node 24 as the
// node whose version create checks (which every runtime's install accepts).
func runCreate(t *testing.T, dir string, env map[string]string, install func(scaffold.Install) error, args ...string) (string, string, error) {
	t.Helper()
	return runCreateWith(t, dir, env, filepath.Join(testenv.Node24(t), "node"), install, args...)
}

// runCreateWith is runCreate with the node create asks for its version.
func runCreateWith(t *testing.T, dir string, env map[string]string, node string, install func(scaffold.Install) error, args ...string) (string, string, error) {
	t.Helper()
	f, out, errOut := newCreateTest(t, dir, env)
	root := NewRootCmd(f)
	for _, c := range root.Commands() {
		if c.Name() == "create" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(NewCmdCreate(f, func(o *CreateOptions) error {
		o.Node = node
		o.Install = func(_ context.Context, in scaffold.Install, w io.Writer, where string) error {
			io.WriteString(w, "npm ERR! code E404\n")
			return install(in)
		}
		return createRun(context.Background(), o)
	}))
	root.SetArgs(append([]string{"-C", dir, "create"}, args...))
	_, err := root.ExecuteC()
	return out.String(), errOut.String(), err
}

func TestCreateRunsInstallAndKeepsFilesWhenItFails(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"r","private":true,"workspaces":["packages/*"]}`), 0o644)
	var ran []scaffold.Install
	out, _, err := runCreate(t, dir, nil, func(in scaffold.Install) error { ran = append(ran, in); return nil }, "action", "weather")
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1 || ran[0].String() != "npm install --no-audit --no-fund" || ran[0].Dir != dir {
		t.Errorf("install: %+v", ran)
	}
	for _, want := range []string{"Created @plaios/weather (plaios action) in packages/weather:", "  packages/weather/src/action.ts", "cd packages/weather", "npm run build", "plaios validate"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	failing := func(in scaffold.Install) error {
		return exit.Envf("the package was written to packages/sun, but `%s` failed (it exited with status 1); fix the cause and run it by hand in %s", in, in.Dir)
	}
	_, errOut, err := runCreate(t, dir, map[string]string{}, failing, "--runtime", "pi", "sun")
	if exit.Code(err) != exit.Env || !strings.Contains(err.Error(), "the package was written to packages/sun") {
		t.Fatalf("a failing install: %v", err)
	}
	if !strings.Contains(errOut, "npm ERR! code E404") {
		t.Errorf("the install's output is not shown on failure: %q", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "packages", "sun", "package.json")); err != nil {
		t.Errorf("the package was removed after a failed install: %v", err)
	}
}

func TestCreateConfigAndPnpm(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pnpm-workspace.yaml"), []byte("packages:\n  - packages/*\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".plaios.yaml"), []byte("runtime: openclaw\nscope: '@acme'\n"), 0o644)
	var ran []scaffold.Install
	out, _, err := runCreate(t, dir, nil, func(in scaffold.Install) error { ran = append(ran, in); return nil }, "--json", "weather")
	if err != nil {
		t.Fatal(err)
	}
	var res createJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output is not one JSON document: %v\n%s", err, out)
	}
	if res.SchemaVersion != 1 || res.Runtime != "openclaw" || res.Name != "@acme/weather" || res.Dir != "packages/weather" || len(res.Files) == 0 {
		t.Errorf("json %+v", res)
	}
	if len(ran) != 1 || ran[0].Tool != "pnpm" || ran[0].Dir != dir {
		t.Errorf("install %+v", ran)
	}
	// A flag beats the configuration.
	out, _, err = runCreate(t, dir, nil, func(scaffold.Install) error { return errors.New("not called") }, "--runtime", "pi", "--no-install", "--json", "sun")
	if err != nil || !strings.Contains(out, `"runtime": "pi"`) || !strings.Contains(out, `"name": "@acme/sun"`) {
		t.Errorf("flag over configuration: %v\n%s", err, out)
	}
}

// TestCreateChecksNodeForOpenClaw: on a Node older than the openclaw peer needs, creating an
// OpenClaw plugin stops before writing or installing anything, in one sentence with the ways
// out; with Node 24, or with --no-install, it goes ahead. The other runtimes install on the
// machine's Node.
func TestCreateChecksNodeForOpenClaw(t *testing.T) {
	node := testenv.LookPath(t, "node")
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	have := strings.TrimSpace(string(out))
	old, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(have, "v"), ".", 2)[0])
	if old >= 24 {
		t.Fatalf("the tests run on the Node of a fresh CI machine (20 or 22), and node on PATH is %s", have)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"r","private":true,"workspaces":["packages/*"]}`), 0o644)
	never := func(in scaffold.Install) error { t.Errorf("the install ran: %s", in); return nil }
	_, _, err = runCreateWith(t, dir, nil, node, never, "--runtime", "openclaw", "tool", "weather")
	want := "the `openclaw` peer of an OpenClaw plugin needs Node 24.16 or later (its engines: >=24.16.0 <25 || >=26.1.0) and node here is " + have + ", so its install would fail; switch to Node 24 (for example `nvm install 24`) and run create again, or add --no-install to write the pack now and install it with Node 24 later"
	if exit.Code(err) != exit.Env || err.Error() != want {
		t.Fatalf("openclaw on %s: exit %d, %v\nwant: %s", have, exit.Code(err), err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "packages")); err == nil {
		t.Errorf("the refusal wrote packages/")
	}

	var ran []string
	record := func(in scaffold.Install) error { ran = append(ran, in.String()); return nil }
	if _, _, err := runCreateWith(t, dir, nil, node, record, "--runtime", "openclaw", "--no-install", "tool", "later"); err != nil {
		t.Errorf("--no-install on %s: %v", have, err)
	}
	if _, _, err := runCreateWith(t, dir, nil, filepath.Join(testenv.Node24(t), "node"), record, "--runtime", "openclaw", "tool", "weather"); err != nil {
		t.Errorf("Node 24: %v", err)
	}
	for _, rt := range []string{"plaios", "agentos", "pi"} {
		if _, _, err := runCreateWith(t, dir, nil, node, record, "--runtime", rt, "--dir", "packages/"+rt, "w-"+rt); err != nil {
			t.Errorf("%s on %s: %v", rt, have, err)
		}
	}
	if len(ran) != 4 {
		t.Errorf("installs: %v", ran)
	}
}
