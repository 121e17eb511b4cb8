package schema

import "strings"

// Ajv resolves $id and $ref with fast-uri (RFC 3986). This is the part of it that schema
// identifiers use: parse, resolve a reference against a base, serialize with the scheme and
// host in lower case and dot segments removed.

type uriParts struct {
	scheme, authority, path, query, fragment       string
	hasScheme, hasAuthority, hasQuery, hasFragment bool
}

func parseURI(s string) uriParts {
	var u uriParts
	if i := strings.IndexByte(s, '#'); i >= 0 {
		u.fragment, u.hasFragment = s[i+1:], true
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		u.query, u.hasQuery = s[i+1:], true
		s = s[:i]
	}
	if i := strings.IndexByte(s, ':'); i > 0 && isSchemeName(s[:i]) {
		u.scheme, u.hasScheme = strings.ToLower(s[:i]), true
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexByte(s, '/')
		if i < 0 {
			i = len(s)
		}
		u.authority, u.hasAuthority = lowerHost(s[:i]), true
		s = s[i:]
	}
	u.path = s
	return u
}

func isSchemeName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')
		if !ok {
			return false
		}
	}
	return s != ""
}

func lowerHost(a string) string {
	at := strings.LastIndexByte(a, '@')
	return a[:at+1] + strings.ToLower(a[at+1:])
}

func (u uriParts) String() string {
	var b strings.Builder
	if u.hasScheme {
		b.WriteString(u.scheme)
		b.WriteByte(':')
	}
	if u.hasAuthority {
		b.WriteString("//")
		b.WriteString(u.authority)
	}
	b.WriteString(u.path)
	if u.hasQuery {
		b.WriteByte('?')
		b.WriteString(u.query)
	}
	if u.hasFragment {
		b.WriteByte('#')
		b.WriteString(u.fragment)
	}
	return b.String()
}

func removeDotSegments(p string) string {
	if p == "" {
		return ""
	}
	var out []string
	segs := strings.Split(p, "/")
	for i, s := range segs {
		switch s {
		case ".":
			if i == len(segs)-1 {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 || len(out) == 1 && out[0] != "" {
				out = out[:len(out)-1]
			}
			if i == len(segs)-1 {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

// resolveURI resolves ref against base (RFC 3986, section 5.2).
func resolveURI(base, ref string) string {
	b, r := parseURI(base), parseURI(ref)
	var t uriParts
	switch {
	case r.hasScheme:
		t = r
		t.path = removeDotSegments(r.path)
	case r.hasAuthority:
		t = r
		t.scheme, t.hasScheme = b.scheme, b.hasScheme
		t.path = removeDotSegments(r.path)
	default:
		t.scheme, t.hasScheme = b.scheme, b.hasScheme
		t.authority, t.hasAuthority = b.authority, b.hasAuthority
		if r.path == "" {
			t.path = b.path
			if r.hasQuery {
				t.query, t.hasQuery = r.query, true
			} else {
				t.query, t.hasQuery = b.query, b.hasQuery
			}
		} else {
			if strings.HasPrefix(r.path, "/") {
				t.path = removeDotSegments(r.path)
			} else {
				var merged string
				if b.hasAuthority && b.path == "" {
					merged = "/" + r.path
				} else if i := strings.LastIndexByte(b.path, '/'); i >= 0 {
					merged = b.path[:i+1] + r.path
				} else {
					merged = r.path
				}
				t.path = removeDotSegments(merged)
			}
			t.query, t.hasQuery = r.query, r.hasQuery
		}
	}
	t.fragment, t.hasFragment = r.fragment, r.hasFragment
	return t.String()
}

// normalizeID is Ajv's normalizeId: the id without a trailing "#" or "#/".
func normalizeID(id string) string {
	if strings.HasSuffix(id, "#/") {
		return id[:len(id)-2]
	}
	if strings.HasSuffix(id, "#") {
		return id[:len(id)-1]
	}
	return id
}

// resolveURL is Ajv's resolveUrl.
func resolveURL(base, id string) string { return resolveURI(base, normalizeID(id)) }

// fullPath is Ajv's getFullPath: the URI without its fragment, then "#".
func fullPath(id string) string {
	u := parseURI(normalizeID(id))
	u.fragment, u.hasFragment = "", false
	return u.String() + "#"
}

// uriFullPath is _getFullPath for an already parsed reference.
func uriFullPath(u uriParts) string {
	u.fragment, u.hasFragment = "", false
	return u.String() + "#"
}

// unescapeFragment is Ajv's unescapeFragment: decodeURIComponent, then JSON Pointer escapes.
func unescapeFragment(s string) (string, bool) {
	d, ok := decodeURIComponent(s)
	if !ok {
		return "", false
	}
	return unescapePointer(d), true
}

func decodeURIComponent(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || hexVal(rune(s[i+1])) < 0 || hexVal(rune(s[i+2])) < 0 {
			return "", false
		}
		b = append(b, byte(hexVal(rune(s[i+1]))*16+hexVal(rune(s[i+2]))))
		i += 2
	}
	return string(b), true
}

// hexVal is the value of a hexadecimal digit, or -1.
func hexVal(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return -1
}
