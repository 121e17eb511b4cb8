package cmd

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// TestVersionOf: --version prints goreleaser's stamp, else what Go recorded in the binary,
// never a bare "dev".
func TestVersionOf(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, c := range []struct {
		name  string
		stamp string
		bi    *debug.BuildInfo
		want  string
	}{
		{"goreleaser", "1.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "1.2.0"},
		{"go install @v1.2.0", "", &debug.BuildInfo{Main: debug.Module{Path: "github.com/plaios/plaios", Version: "v1.2.0"}}, "v1.2.0"},
		{"checkout, Go 1.24+", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261203093100-4bf426a1c2d3+dirty"}, Settings: settings("vcs.revision", "4bf426a1c2d3e5f60718293a4b5c6d7e8f901234", "vcs.modified", "true")}, "v0.0.0-20261203093100-4bf426a1c2d3+dirty"},
		{"checkout, (devel)", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs", "git", "vcs.revision", "4bf426a1c2d3e5f60718293a4b5c6d7e8f901234", "vcs.modified", "false")}, "(devel) 4bf426a1c2d3"},
		{"checkout, (devel), modified", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs.revision", "4bf426a1c2d3e5f60718293a4b5c6d7e8f901234", "vcs.modified", "true")}, "(devel) 4bf426a1c2d3+dirty"},
		{"go run", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel), no commit recorded"},
		{"no build info", "", nil, "(devel), no build information recorded"},
	} {
		got := versionOf(c.stamp, c.bi)
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if got == "dev" || got == "" {
			t.Errorf("%s: a bare %q", c.name, got)
		}
	}
}

// TestSeeHelp: a usage error names the help of the command that was run, and the root's help
// as 'plaios --help' (not 'plaios plaios --help').
func TestSeeHelp(t *testing.T) {
	f := NewFactory(&IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	root := NewRootCmd(f)
	if got := seeHelp(root); got != "see 'plaios --help'" {
		t.Errorf("root: %s", got)
	}
	guard, _, err := root.Find([]string{"guard"})
	if err != nil {
		t.Fatal(err)
	}
	if got := seeHelp(guard); got != "see 'plaios guard --help'" {
		t.Errorf("guard: %s", got)
	}
	serve, _, err := root.Find([]string{"mcp", "serve"})
	if err != nil {
		t.Fatal(err)
	}
	if got := seeHelp(serve); got != "see 'plaios mcp serve --help'" {
		t.Errorf("mcp serve: %s", got)
	}
}

// TestHelpFlagsAligned: in every command's help, the flag descriptions start in one column as
// a terminal shows them (pflag pads by bytes, so a non-ASCII placeholder such as "DIR,…"
// would push its description out of line).
func TestHelpFlagsAligned(t *testing.T) {
	f := NewFactory(&IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	var walk func(c *cobra.Command)
	checked := 0
	walk = func(c *cobra.Command) {
		for _, set := range []string{c.LocalFlags().FlagUsages(), c.InheritedFlags().FlagUsages()} {
			col := -1
			for _, line := range strings.Split(strings.TrimRight(set, "\n"), "\n") {
				if !strings.HasPrefix(strings.TrimLeft(line, " "), "-") {
					continue // a continuation line
				}
				// The description starts after the first run of three or more spaces.
				i := strings.Index(line[6:], "   ")
				if i < 0 {
					t.Errorf("%s: cannot find the description in %q", c.CommandPath(), line)
					continue
				}
				rest := line[6+i:]
				at := utf8.RuneCountInString(line[:6+i]) + len(rest) - len(strings.TrimLeft(rest, " "))
				if col < 0 {
					col = at
				} else if at != col {
					t.Errorf("%s: the description of %q starts in column %d, the others in %d", c.CommandPath(), strings.TrimSpace(line[:6+i]), at, col)
				}
				checked++
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRootCmd(f))
	if checked < 50 {
		t.Fatalf("only %d flag lines checked", checked)
	}
}
