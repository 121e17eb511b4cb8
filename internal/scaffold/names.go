package scaffold

import (
	"regexp"
	"strings"
	"sync"

	"github.com/plaios/plaios/internal/exit"
)

// kebab is the shape `create` accepts for a package name: lowercase letters and digits in
// words joined by single hyphens, starting with a letter (the name also becomes a class name,
// a tool name and an environment variable prefix, none of which may start with a digit).
// Compiled on first use, so that commands other than create do not pay for it at start-up.
var kebab = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`) })

// scopeName is an npm scope without its @.
var scopeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._~-]*$`) })

// maxNameLength keeps the longest npm name plaios derives (`@scope/agentos-ext-<name>`) within
// npm's 214 characters.
const maxNameLength = 64

// CheckName refuses a name that is not a valid npm package name in kebab case.
func CheckName(name string) error {
	if name == "" {
		return exit.Usagef("the package name is empty; give one in kebab case, e.g. weather or web-search")
	}
	if len(name) > maxNameLength {
		return exit.Usagef("the package name %q is %d characters long; use at most %d", name, len(name), maxNameLength)
	}
	if !kebab().MatchString(name) {
		return exit.Usagef("%q is not a valid package name; use kebab case: lowercase letters, digits and single hyphens, starting with a letter (no /, .., spaces or capitals), e.g. weather or web-search", name)
	}
	return nil
}

// checkScope normalises an npm scope to "@scope", refusing one npm would not accept.
func checkScope(scope string) (string, error) {
	s := strings.TrimPrefix(scope, "@")
	if !scopeName().MatchString(s) || len(s) > 100 {
		return "", exit.Usagef("%q is not a valid npm scope; use lowercase letters, digits, '-', '.', '_' or '~', e.g. @acme", scope)
	}
	return "@" + s, nil
}

// words splits a kebab-case name.
func words(name string) []string { return strings.Split(name, "-") }

// Pascal is WebSearch for web-search.
func Pascal(name string) string {
	var b strings.Builder
	for _, w := range words(name) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// Camel is webSearch for web-search.
func Camel(name string) string {
	p := Pascal(name)
	return strings.ToLower(p[:1]) + p[1:]
}

// Snake is web_search for web-search.
func Snake(name string) string { return strings.ReplaceAll(name, "-", "_") }

// Upper is WEB_SEARCH for web-search.
func Upper(name string) string { return strings.ToUpper(Snake(name)) }

// Title is "Web Search" for web-search.
func Title(name string) string {
	ws := words(name)
	for i, w := range ws {
		ws[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(ws, " ")
}
