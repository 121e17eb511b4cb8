package release

import (
	"strings"
	"testing"
	"testing/iotest"
)

func ptr(s string) *string { return &s }

func TestChangelogEntry(t *testing.T) {
	for _, c := range []struct {
		name string
		r    Release
		pr   PR
		want string
	}{
		{"patch with a number", Release{Last: ptr("0.3.1"), Next: "0.3.2"}, PR{Title: "fix: retry on 429", Number: 12},
			"## 0.3.2\n\n### Patch Changes\n\n- fix: retry on 429 (#12)\n"},
		{"a squash subject keeps its own number", Release{Last: ptr("1.4.2"), Next: "1.4.3"}, PR{Title: "chore: tidy (#7)", Number: 7},
			"## 1.4.3\n\n### Patch Changes\n\n- chore: tidy (#7)\n"},
		{"breaking below 1.0 is a minor, its lines indented", Release{Last: ptr("0.3.1"), Next: "0.4.0"},
			PR{Title: "feat: x", Body: "Words.\n\n  BREAKING CHANGE: y\r\n<!-- BREAKING CHANGE: describe -->\nBREAKING-CHANGE: z", Number: 3},
			"## 0.4.0\n\n### Minor Changes\n\n- feat: x (#3)\n\n  BREAKING CHANGE: y\n  BREAKING-CHANGE: z\n"},
		{"a major", Release{Last: ptr("1.4.2"), Next: "2.0.0"}, PR{Title: "feat!: x"}, "## 2.0.0\n\n### Major Changes\n\n- feat!: x\n"},
		{"a new 1.0.0", Release{Next: "1.0.0"}, PR{Title: "feat: new\npack"}, "## 1.0.0\n\n### Major Changes\n\n- feat: new pack\n"},
		{"a new 0.0.1", Release{Next: "0.0.1"}, PR{}, "## 0.0.1\n\n### Patch Changes\n\n- Release 0.0.1\n"},
		{"a prerelease of the next major", Release{Last: ptr("1.4.2"), Next: "2.0.0-beta.1"}, PR{Title: "feat!: x"}, "## 2.0.0-beta.1\n\n### Major Changes\n\n- feat!: x\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ChangelogEntry(c.r, c.pr); got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestHasChangelogVersion(t *testing.T) {
	file := "# @a/b\n\n## 1.1.0\n\n### Minor Changes\n\n- x\n\n## 1.0.10 \r\n" + strings.Repeat("y", 10000) + "\n## 1.0.0"
	for v, want := range map[string]bool{"1.1.0": true, "1.0.10": true, "1.0.0": true, "1.0.1": false, "1.1": false} {
		got, err := HasChangelogVersion(iotest.OneByteReader(strings.NewReader(file)), v)
		if err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", v, got, err, want)
		}
	}
	if _, err := HasChangelogVersion(iotest.ErrReader(iotest.ErrTimeout), "1.0.0"); err == nil {
		t.Error("a read error must be returned")
	}
}

func TestNumberFromTitle(t *testing.T) {
	for title, want := range map[string]int{"fix: x (#12)": 12, "fix: x (#12) ": 12, "fix: (#12) x": 0, "fix: x(#12)": 0, "fix: x": 0} {
		if got := NumberFromTitle(title); got != want {
			t.Errorf("%q: %d, want %d", title, got, want)
		}
	}
}
