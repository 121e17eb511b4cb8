package exports

import (
	"strings"
	"unicode/utf8"
)

// Node resolves export targets as file: URLs (new URL(target, packageJSONUrl)), substitutes
// patterns into the URL's text and turns the result back into a path with fileURLToPath. The
// parts of the WHATWG URL parser that matter for a relative target are reproduced here: tabs
// and newlines are dropped, "\" separates segments like "/", "?" and "#" end the path, "." and
// ".." segments (also as %2e) are resolved, and percent escapes are decoded at the end.

// urlRef is a parsed URL reduced to what resolution needs: the path segments below the file
// system root, and the query and fragment text (kept so that pattern substitution sees them).
type urlRef struct {
	segs     []string
	query    string
	hasQuery bool
	frag     string
	hasFrag  bool
}

// pkgBase is the path of the package folder that targets are resolved against. Its segments
// cannot collide with anything a target can produce below it.
var pkgBase = []string{"\x00root", "node_modules", "\x00pkg"}

func isC0OrSpace(r rune) bool { return r <= 0x20 }

// preprocessURL strips leading and trailing C0 controls and spaces and removes every tab and
// newline, as the URL parser does before anything else.
func preprocessURL(s string) string {
	s = strings.TrimFunc(s, isC0OrSpace)
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
}

func isSingleDot(s string) bool {
	return s == "." || strings.EqualFold(s, "%2e")
}

func isDoubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

// parsePath runs the URL parser's path state over input (already preprocessed), appending to
// segs, and returns the URL with the query and fragment that follow.
func parsePath(segs []string, input string) urlRef {
	u := urlRef{segs: segs}
	var buf strings.Builder
	i := 0
	for {
		var c byte
		atEnd := i >= len(input)
		if !atEnd {
			c = input[i]
		}
		if atEnd || c == '/' || c == '\\' || c == '?' || c == '#' {
			b := buf.String()
			sep := !atEnd && (c == '/' || c == '\\')
			switch {
			case isDoubleDot(b):
				if len(u.segs) > 0 {
					u.segs = u.segs[:len(u.segs)-1]
				}
				if !sep {
					u.segs = append(u.segs, "")
				}
			case isSingleDot(b):
				if !sep {
					u.segs = append(u.segs, "")
				}
			default:
				u.segs = append(u.segs, b)
			}
			buf.Reset()
			if atEnd {
				return u
			}
			if c == '?' {
				rest := input[i+1:]
				q, f, hasF := strings.Cut(rest, "#")
				u.query, u.hasQuery = q, true
				u.frag, u.hasFrag = f, hasF
				return u
			}
			if c == '#' {
				u.frag, u.hasFrag = input[i+1:], true
				return u
			}
			i++
			continue
		}
		buf.WriteByte(c)
		i++
	}
}

// resolveTarget is new URL(target, packageJSONUrl) for a target starting with "./".
func resolveTarget(target string) urlRef {
	base := append([]string{}, pkgBase...)
	return parsePath(base, preprocessURL(target))
}

// href is the URL's text below the root (the path, then ?query and #fragment).
func (u urlRef) href() string {
	s := "/" + strings.Join(u.segs, "/")
	if u.hasQuery {
		s += "?" + u.query
	}
	if u.hasFrag {
		s += "#" + u.frag
	}
	return s
}

// reparse is new URL(href) for an href produced by href() and edited.
func reparse(href string) urlRef {
	in := strings.TrimPrefix(preprocessURL("file://"+href), "file://")
	// "file://" is followed by an empty host; the path-start state consumes one separator.
	if in != "" && (in[0] == '/' || in[0] == '\\') {
		in = in[1:]
	}
	return parsePath(nil, in)
}

// inPackage reports whether the path is inside the package folder (Node's startsWith check of
// the pathname against the package folder's pathname, which ends with "/").
func (u urlRef) inPackage() bool {
	if len(u.segs) <= len(pkgBase) {
		return false
	}
	for i, s := range pkgBase {
		if u.segs[i] != s {
			return false
		}
	}
	return true
}

// relPath is the pathname below the package folder ("" for the folder itself).
func (u urlRef) relPath() string {
	return strings.Join(u.segs[len(pkgBase):], "/")
}

// hasEncodedSeparator is Node's encodedSepRegEx (/%2F|%5C/i) on the pathname.
func hasEncodedSeparator(p string) bool {
	l := strings.ToLower(p)
	return strings.Contains(l, "%2f") || strings.Contains(l, "%5c")
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeURIComponent decodes percent escapes; ok is false where JavaScript throws URIError (a
// "%" without two hex digits, or escapes that do not spell a UTF-8 character).
func decodeURIComponent(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	escape := func(i int) (byte, bool) { // the byte of the escape at s[i] ("%XY")
		if i+2 >= len(s) || s[i] != '%' {
			return 0, false
		}
		h, ok1 := unhex(s[i+1])
		l, ok2 := unhex(s[i+2])
		return h<<4 | l, ok1 && ok2
	}
	var out []byte
	for i := 0; i < len(s); {
		if s[i] != '%' {
			out = append(out, s[i])
			i++
			continue
		}
		b, ok := escape(i)
		if !ok {
			return "", false
		}
		i += 3
		if b < 0x80 {
			out = append(out, b)
			continue
		}
		n := 0
		switch {
		case b&0xE0 == 0xC0:
			n = 2
		case b&0xF0 == 0xE0:
			n = 3
		case b&0xF8 == 0xF0:
			n = 4
		default:
			return "", false
		}
		seq := []byte{b}
		for k := 1; k < n; k++ {
			c, ok := escape(i)
			if !ok {
				return "", false
			}
			seq = append(seq, c)
			i += 3
		}
		if r, size := utf8.DecodeRune(seq); (r == utf8.RuneError && size == 1) || size != n {
			return "", false
		}
		out = append(out, seq...)
	}
	return string(out), true
}
