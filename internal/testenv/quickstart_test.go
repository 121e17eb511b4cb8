package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestQuickStartIsTheREADMEs holds the README's quick start block, command by command, to
// QuickStart, which the root package's TestFirstRun follows in a fresh workspace.
func TestQuickStartIsTheREADMEs(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	said, err := quickStartOf(readme)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(said, "\n") != strings.Join(QuickStart, "\n") {
		t.Fatalf("the README's quick start says\n%s\nand TestFirstRun follows (testenv.QuickStart)\n%s", strings.Join(said, "\n"), strings.Join(QuickStart, "\n"))
	}
}

// TestQuickStartOf: the commands are the block's lines without their comments, and a README
// without the block, or whose block says something else, is told apart.
func TestQuickStartOf(t *testing.T) {
	doc := "# x\n\n## Quick start\n\nIn a workspace:\n\n```sh\nplaios create action weather   # a pack\n\ncd packages/weather\n# a comment line\nnpm test\n```\n\n## Next\n\n```sh\nmake test\n```\n"
	got, err := quickStartOf([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if want := "plaios create action weather|cd packages/weather|npm test"; strings.Join(got, "|") != want {
		t.Errorf("quickStartOf = %q, want %s", got, want)
	}
	if _, err := quickStartOf([]byte("# x\n\n## Install\n\n```sh\nmake\n```\n")); err == nil || !strings.Contains(err.Error(), "no quick start block") {
		t.Errorf("a README without the block: %v", err)
	}
}

// quickStartOf is the commands of the first sh block under "## Quick start", comments left out.
func quickStartOf(readme []byte) ([]string, error) {
	block := regexp.MustCompile("(?s)## Quick start\n.*?```sh\n(.*?)```").FindSubmatch(readme)
	if block == nil {
		return nil, errors.New("the README has no quick start block (\"## Quick start\" and a ```sh block under it)")
	}
	var said []string
	for _, line := range strings.Split(string(block[1]), "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line != "" {
			said = append(said, line)
		}
	}
	return said, nil
}
