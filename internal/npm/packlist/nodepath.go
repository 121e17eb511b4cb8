package packlist

import "strings"

// Node's path.posix functions, whose results npm feeds into rules and file lookups. They differ
// from Go's path package: normalize keeps a trailing slash, join of relative paths can climb
// above the start, and relative works from the process's working folder.

// normalizeString is Node's internal normalizeString for POSIX separators.
func normalizeString(p string, allowAboveRoot bool) string {
	res := ""
	lastSegmentLength := 0
	lastSlash := -1
	dots := 0
	var code byte
	for i := 0; i <= len(p); i++ {
		if i < len(p) {
			code = p[i]
		} else if code == '/' {
			break
		} else {
			code = '/'
		}
		if code == '/' {
			if lastSlash == i-1 || dots == 1 {
				// NOOP
			} else if dots == 2 {
				if len(res) < 2 || lastSegmentLength != 2 || !strings.HasSuffix(res, "..") {
					if len(res) > 2 {
						idx := strings.LastIndexByte(res, '/')
						if idx == -1 {
							res = ""
							lastSegmentLength = 0
						} else {
							res = res[:idx]
							lastSegmentLength = len(res) - 1 - strings.LastIndexByte(res, '/')
						}
						lastSlash = i
						dots = 0
						continue
					} else if len(res) != 0 {
						res = ""
						lastSegmentLength = 0
						lastSlash = i
						dots = 0
						continue
					}
				}
				if allowAboveRoot {
					if len(res) > 0 {
						res += "/.."
					} else {
						res = ".."
					}
					lastSegmentLength = 2
				}
			} else {
				if len(res) > 0 {
					res += "/" + p[lastSlash+1:i]
				} else {
					res = p[lastSlash+1 : i]
				}
				lastSegmentLength = i - lastSlash - 1
			}
			lastSlash = i
			dots = 0
		} else if code == '.' && dots != -1 {
			dots++
		} else {
			dots = -1
		}
	}
	return res
}

// nodeNormalize is path.posix.normalize.
func nodeNormalize(p string) string {
	if p == "" {
		return "."
	}
	abs := p[0] == '/'
	trailing := p[len(p)-1] == '/'
	p = normalizeString(p, !abs)
	if p == "" {
		if abs {
			return "/"
		}
		if trailing {
			return "./"
		}
		return "."
	}
	if trailing {
		p += "/"
	}
	if abs {
		return "/" + p
	}
	return p
}

// nodeJoin is path.posix.join.
func nodeJoin(parts ...string) string {
	var nonEmpty []string
	for _, s := range parts {
		if s != "" {
			nonEmpty = append(nonEmpty, s)
		}
	}
	if len(nonEmpty) == 0 {
		return "."
	}
	return nodeNormalize(strings.Join(nonEmpty, "/"))
}

// nodeBasename is path.posix.basename.
func nodeBasename(p string) string {
	p = strings.TrimRight(p, "/")
	if p == "" {
		return ""
	}
	return p[strings.LastIndexByte(p, '/')+1:]
}

// fakeCwd stands for the process's working folder in relative(): deep enough that paths npm
// relativizes never climb above it.
const fakeCwd = "/cwd0/cwd1/cwd2/cwd3/cwd4/cwd5/cwd6/cwd7/cwd8/cwd9/cwd10/cwd11/cwd12/cwd13/cwd14/cwd15"

// nodeResolve is path.posix.resolve(fakeCwd, p).
func nodeResolve(p string) string {
	if strings.HasPrefix(p, "/") {
		return resolveAbs(p)
	}
	return resolveAbs(fakeCwd + "/" + p)
}

func resolveAbs(p string) string {
	n := normalizeString(p, false)
	return "/" + n
}

// nodeRelative is path.posix.relative(from, to) with relative paths taken from fakeCwd.
func nodeRelative(from, to string) string {
	if from == to {
		return ""
	}
	from, to = nodeResolve(from), nodeResolve(to)
	if from == to {
		return ""
	}
	fromParts := splitAbs(from)
	toParts := splitAbs(to)
	i := 0
	for i < len(fromParts) && i < len(toParts) && fromParts[i] == toParts[i] {
		i++
	}
	var out []string
	for range fromParts[i:] {
		out = append(out, "..")
	}
	out = append(out, toParts[i:]...)
	return strings.Join(out, "/")
}

func splitAbs(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
