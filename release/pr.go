package release

import (
	"regexp"
	"strings"
	"sync"
)

// PR is the merged pull request a plan is made for.
type PR struct {
	Title  string
	Body   string
	Number int // the pull request's number, 0 when unknown (for the changelog line)

	// Breaking is true when the title marks a breaking change (`feat!:`, `feat(api)!:`) or a
	// line of the description begins with `BREAKING CHANGE:` or `BREAKING-CHANGE:` outside
	// HTML comments. BreakingReason says which, for people.
	Breaking       bool
	BreakingReason string
}

// ccPrefix is a Conventional Commits prefix: a type, an optional (scope), an optional "!",
// then the colon. Types are matched in any case, as the specification allows.
var ccPrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t]*([A-Za-z][A-Za-z0-9_-]*)(\([^()\r\n]*\))?(!?):`)
})

// ParsePR reads a pull request's title and description as RELEASE.md defines "breaking":
//
//   - the title has "!" right before the colon of its Conventional Commits prefix
//     (`feat!: x`, `feat(api)!: x`, but not `fix: handle a!: b`, whose prefix is `fix:`);
//   - or a line of the description begins with `BREAKING CHANGE:` or `BREAKING-CHANGE:`
//     (upper case, as the specification requires; spaces and tabs before it are allowed),
//     not counting text inside HTML comments `<!-- … -->` — pull request templates write
//     their instructions there — even when a comment spans lines or is never closed.
func ParsePR(title, body string) PR {
	pr := PR{Title: title, Body: body}
	if m := ccPrefix().FindStringSubmatch(title); m != nil && m[3] == "!" {
		pr.Breaking = true
		pr.BreakingReason = "the title marks a breaking change (" + m[1] + m[2] + "!:)"
		return pr
	}
	for _, line := range strings.Split(StripHTMLComments(body), "\n") {
		line = strings.TrimLeft(strings.TrimSuffix(line, "\r"), " \t")
		for _, token := range []string{"BREAKING CHANGE:", "BREAKING-CHANGE:"} {
			if strings.HasPrefix(line, token) {
				pr.Breaking = true
				pr.BreakingReason = "the description has a line beginning " + token
				return pr
			}
		}
	}
	return pr
}

// StripHTMLComments removes every `<!-- … -->` from s, as a Markdown renderer hides them. A
// comment that is never closed runs to the end; `<!-->` and `<!--->` are empty comments, as
// HTML reads them.
func StripHTMLComments(s string) string {
	if !strings.Contains(s, "<!--") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+4:]
		switch {
		case strings.HasPrefix(rest, ">"):
			s = rest[1:]
			continue
		case strings.HasPrefix(rest, "->"):
			s = rest[2:]
			continue
		}
		j := strings.Index(rest, "-->")
		if j < 0 {
			return b.String()
		}
		s = rest[j+3:]
	}
}
