package release

import (
	"strings"
	"testing"
)

func TestParsePR(t *testing.T) {
	cases := []struct {
		title, body string
		breaking    bool
		reason      string
	}{
		{"feat!: drop v1 api", "", true, "(feat!:)"},
		{"feat(api)!: rename", "", true, "(feat(api)!:)"},
		{"Feat(Core)!: x", "", true, "Feat(Core)!:"},
		{"  refactor!:no space", "", true, "refactor!:"},
		{"fix: handle a!: b", "", false, ""},
		{"fix: retry on 429", "", false, ""},
		{"feat(a!): x", "", false, ""},
		{"feat !: x", "", false, ""},
		{"!: x", "", false, ""},
		{"Revert \"feat!: x\"", "", false, ""},
		{"feat: x", "BREAKING CHANGE: y", true, "BREAKING CHANGE:"},
		{"feat: x", "intro\r\nBREAKING-CHANGE: y\r\n", true, "BREAKING-CHANGE:"},
		{"feat: x", "intro\n  BREAKING CHANGE: indented", true, "BREAKING CHANGE:"},
		{"feat: x", "mentions BREAKING CHANGE: in the middle", false, ""},
		{"feat: x", "breaking change: lower case", false, ""},
		{"feat: x", "BREAKING CHANGE without colon", false, ""},
		{"feat: x", "<!-- BREAKING CHANGE: describe -->", false, ""},
		{"feat: x", "<!--\nBREAKING CHANGE: describe it here\n-->\nNothing breaks.", false, ""},
		{"feat: x", "<!-- never closed\nBREAKING CHANGE: y", false, ""},
		{"feat: x", "<!-- a --> text\nBREAKING CHANGE: after a comment", true, "BREAKING CHANGE:"},
		{"feat: x", "<!-- a -->BREAKING CHANGE: right after a comment", true, "BREAKING CHANGE:"},
		{"feat: x", "<!---->\nBREAKING CHANGE: empty comment first", true, "BREAKING CHANGE:"},
		{"feat: x", "<!-->BREAKING CHANGE: abruptly closed comment", true, "BREAKING CHANGE:"},
		{"feat: x", "`BREAKING CHANGE:` quoted", false, ""},
	}
	for _, tc := range cases {
		pr := ParsePR(tc.title, tc.body)
		if pr.Breaking != tc.breaking {
			t.Errorf("ParsePR(%q, %q).Breaking = %v, want %v", tc.title, tc.body, pr.Breaking, tc.breaking)
		}
		if !strings.Contains(pr.BreakingReason, tc.reason) || (tc.reason == "") != (pr.BreakingReason == "") {
			t.Errorf("ParsePR(%q, %q).BreakingReason = %q, want it to name %q", tc.title, tc.body, pr.BreakingReason, tc.reason)
		}
		if pr.Title != tc.title || pr.Body != tc.body {
			t.Errorf("ParsePR must keep the title and body")
		}
	}
}

func TestStripHTMLComments(t *testing.T) {
	cases := map[string]string{
		"a<!-- x -->b":            "ab",
		"a<!--\nx\n-->b\nc":       "ab\nc",
		"<!-- x --><!-- y -->z":   "z",
		"a<!-- open":              "a",
		"a<!-->b":                 "ab",
		"a<!--->b":                "ab",
		"no comment -->":          "no comment -->",
		"a <!-- x --> b <!--y-->": "a  b ",
	}
	for in, want := range cases {
		if got := StripHTMLComments(in); got != want {
			t.Errorf("StripHTMLComments(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParsePR(f *testing.F) {
	seeds := [][2]string{
		{"feat!: x", ""}, {"fix: a!: b", "BREAKING CHANGE: y"}, {"feat(api)!: rename", "<!-- BREAKING CHANGE: -->"},
		{"", "<!--"}, {"(!):", "<!-->\n<!--->"}, {"feat(", "BREAKING-CHANGE:\r\n"}, {"\xff!:", "\x00<!--\xff-->"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, title, body string) {
		pr := ParsePR(title, body)
		if pr.Breaking != (pr.BreakingReason != "") {
			t.Fatalf("Breaking %v with reason %q", pr.Breaking, pr.BreakingReason)
		}
		// Text inside a comment never decides: wrapping the whole body in one changes the
		// answer only through the title.
		if !strings.Contains(body, "-->") {
			wrapped := ParsePR(title, "<!--"+body+"-->")
			if wrapped.Breaking && !ParsePR(title, "").Breaking {
				t.Fatalf("a commented-out body made %q breaking", body)
			}
		}
		if len(StripHTMLComments(body)) > len(body) {
			t.Fatal("stripping comments made the text longer")
		}
	})
}
