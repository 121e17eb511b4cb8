package release

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// ChangelogFile is the changelog of a package, in its folder.
const ChangelogFile = "CHANGELOG.md"

// The sections of a changelog entry, as changesets names them.
const (
	MajorChanges = "Major Changes"
	MinorChanges = "Minor Changes"
	PatchChanges = "Patch Changes"
)

// section is the changelog section of a release: the part of the version that moved from
// last (the highest version before this release). A new package's first version counts by its
// own shape: 1.0.0 is a major, 0.1.0 a minor, 0.0.1 a patch.
func section(last *string, next string) string {
	n, ok := parseVersion(next)
	if !ok {
		return PatchChanges
	}
	if last == nil {
		switch {
		case n.Major > 0 && n.Minor == 0 && n.Patch == 0:
			return MajorChanges
		case n.Patch == 0:
			return MinorChanges
		}
		return PatchChanges
	}
	l, ok := parseVersion(*last)
	if !ok {
		return PatchChanges
	}
	switch {
	case n.Major != l.Major:
		return MajorChanges
	case n.Minor != l.Minor:
		return MinorChanges
	}
	return PatchChanges
}

// prNumberSuffix is the " (#12)" GitHub appends to a squash merge's subject.
var prNumberSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s\(#([0-9]+)\)\s*$`) })

// NumberFromTitle reads the pull request number a squash merge's subject ends with
// ("fix: x (#12)" → 12); 0 when there is none.
func NumberFromTitle(title string) int {
	m := prNumberSuffix().FindStringSubmatch(title)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return n
}

// ChangelogEntry is a release's entry in CHANGELOG.md, in the layout changesets writes (and
// real AgentOS packs keep):
//
//	## 0.4.0
//
//	### Minor Changes
//
//	- feat!: drop the v1 API (#12)
//
//	  BREAKING CHANGE: the v1 endpoints are gone.
//
// The line is the pull request's title with its number (unless the title already ends with
// it, as a squash merge's subject does); the description's `BREAKING CHANGE:` lines (outside
// HTML comments) follow, indented under it. The GitHub release's notes are the same entry.
func ChangelogEntry(r Release, pr PR) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n### %s\n\n", r.Next, section(r.Last, r.Next))
	title := strings.Join(strings.Fields(pr.Title), " ")
	if title == "" {
		title = "Release " + r.Next
	}
	if pr.Number > 0 && NumberFromTitle(title) == 0 {
		title += fmt.Sprintf(" (#%d)", pr.Number)
	}
	b.WriteString("- " + title + "\n")
	if lines := breakingLines(pr.Body); len(lines) > 0 {
		b.WriteString("\n")
		for _, l := range lines {
			b.WriteString("  " + l + "\n")
		}
	}
	return b.String()
}

// breakingLines returns the description's `BREAKING CHANGE:` and `BREAKING-CHANGE:` lines,
// trimmed, outside HTML comments.
func breakingLines(body string) []string {
	var out []string
	for _, line := range strings.Split(StripHTMLComments(body), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if strings.HasPrefix(line, "BREAKING CHANGE:") || strings.HasPrefix(line, "BREAKING-CHANGE:") {
			out = append(out, line)
		}
	}
	return out
}

// HasChangelogVersion reports whether a CHANGELOG.md read from r already has a `## <version>`
// heading. It reads line by line, holding one line at a time.
func HasChangelogVersion(r io.Reader, version string) (bool, error) {
	br := bufio.NewReader(r)
	want := []byte("## " + version)
	for {
		line, err := readLine(br)
		if t := bytes.TrimRight(line, " \t\r"); bytes.Equal(t, want) {
			return true, nil
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// readLine reads one line without its "\n"; a line longer than 4 KiB is cut there (the rest
// is skipped): a version heading is never that long.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(line) < 4096 {
			line = append(line, chunk...)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}
