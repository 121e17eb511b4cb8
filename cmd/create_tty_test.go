//go:build linux || darwin

package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"

	"github.com/plaios/plaios/internal/testenv"
)

// ttyOverlay is a --template overlay that gives the Pi package a package.json without
// dependencies and a preinstall script that says whether npm handed it a terminal, so that
// the real npm installs in a moment without a registry.
var ttyOverlay = map[string]string{
	"pi/tool/package.json": `{
  "name": "{{.Package}}",
  "version": "{{.Version}}",
  "private": true,
  "scripts": {
    "preinstall": "node -e \"console.log(process.stdout.isTTY ? 'the install writes to a terminal' : 'the install writes to a pipe')\""
  }
}
`,
}

// TestCreateShowsTheInstallOnATerminal: on a terminal, create says which install it runs and
// hands the terminal to the package manager, whose own output (and progress) shows as it
// comes; off a terminal it adds nothing on stderr. Real npm, a real pseudo-terminal.
func TestCreateShowsTheInstallOnATerminal(t *testing.T) {
	testenv.LookPath(t, "npm")
	tmpl := t.TempDir()
	testenv.WriteFiles(t, tmpl, ttyOverlay)
	t.Setenv("npm_config_cache", filepath.Join(t.TempDir(), "npm-cache"))
	t.Setenv("npm_config_update_notifier", "false")

	run := func(io *IOStreams, dir string) error {
		f := NewFactory(io)
		f.Getenv = func(string) string { return "" }
		root := NewRootCmd(f)
		for _, c := range root.Commands() {
			if c.Name() == "create" {
				root.RemoveCommand(c)
			}
		}
		root.AddCommand(NewCmdCreate(f, func(o *CreateOptions) error { return createRun(context.Background(), o) }))
		root.SetArgs([]string{"-C", dir, "create", "--runtime", "pi", "--template", tmpl, "tool", "weather"})
		_, err := root.ExecuteC()
		return err
	}

	// On a terminal.
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	var screen bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(&screen, ptmx) // ends when the terminal's last writer closes
	}()
	var out bytes.Buffer
	dir := t.TempDir()
	err = run(&IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: tty, ErrTTY: true}, dir)
	tty.Close()
	wg.Wait()
	ptmx.Close()
	if err != nil {
		t.Fatalf("create on a terminal: %v\n%s", err, screen.String())
	}
	shown := strings.ReplaceAll(screen.String(), "\r\n", "\n")
	for _, want := range []string{
		"Installing: npm install --no-audit --no-fund in packages/weather (this takes a while the first time)\n",
		"the install writes to a terminal",
		"up to date",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("the terminal does not show %q:\n%s", want, shown)
		}
	}
	if !strings.Contains(out.String(), "Next steps:") {
		t.Errorf("stdout: %s", out.String())
	}

	// Not on a terminal: nothing on stderr.
	var out2, errOut bytes.Buffer
	dir = t.TempDir()
	if err := run(&IOStreams{In: strings.NewReader(""), Out: &out2, ErrOut: &errOut}, dir); err != nil {
		t.Fatalf("create off a terminal: %v\n%s", err, errOut.String())
	}
	if errOut.Len() != 0 {
		t.Errorf("off a terminal create wrote on stderr:\n%s", errOut.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "packages", "weather", "package-lock.json")); err != nil {
		t.Errorf("npm did not install off a terminal: %v", err)
	}
	if strings.Contains(out2.String(), "the install writes") {
		t.Errorf("the install's output reached stdout:\n%s", out2.String())
	}
}
