// Package semver reads versions and ranges exactly as npm does (node-semver 7, strict mode):
// the versions npm publishes, the precedence it sorts them by, and the ranges package.json
// writes in dependencies and peerDependencies (`^`, `~`, x-ranges, hyphen ranges, `||`, and the
// prerelease rule that `^1.2.3` does not admit `1.3.0-beta`).
//
// It is written by hand rather than taken from Masterminds/semver because that library reads
// ranges by its own rules, not npm's (`^0.0.3`, `1.2 - 1.4`, prereleases and `||` all differ),
// and because it compiles six regular expressions when the program starts, which every plaios
// command paid for; here ranges compile their expressions on first use. Tests compare every
// answer with the real node-semver.
package semver

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxLength is the longest version string npm accepts.
const MaxLength = 256

// maxSafe is JavaScript's Number.MAX_SAFE_INTEGER, the largest version number npm accepts.
const maxSafe = 1<<53 - 1

// Version is a semantic version.
type Version struct {
	Major, Minor, Patch uint64
	Pre                 []string // prerelease identifiers, in order
	Build               []string // build metadata identifiers; ignored by comparisons
}

// New returns the release version major.minor.patch.
func New(major, minor, patch uint64) *Version {
	return &Version{Major: major, Minor: minor, Patch: patch}
}

// Parse reads a strict semantic version as npm publishes it: MAJOR.MINOR.PATCH with optional
// -prerelease and +build parts, no leading "v" or "=", no leading zeros, nothing around it.
func Parse(s string) (*Version, error) {
	return parse(s, false)
}

// MustParse is Parse for versions known to be valid; it panics otherwise.
func MustParse(s string) *Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// ParseLoose reads what a person may have meant by a version: a leading "v" or "=", one or
// two numbers ("1", "1.2": the rest are 0), leading zeros. It is for hints ("write 1.2.0"),
// not for deciding what npm accepts.
func ParseLoose(s string) (*Version, error) {
	s = strings.TrimLeft(jsTrim(s), "v=")
	core, rest := s, ""
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		core, rest = s[:i], s[i:]
	}
	parts := strings.Split(core, ".")
	if len(parts) > 3 {
		return nil, fmt.Errorf("invalid version %q", s)
	}
	var nums [3]uint64
	for i, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return nil, fmt.Errorf("invalid version %q", s)
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || n > maxSafe {
			return nil, fmt.Errorf("invalid version %q", s)
		}
		nums[i] = n
	}
	v, err := Parse(fmt.Sprintf("%d.%d.%d%s", nums[0], nums[1], nums[2], rest))
	if err != nil {
		return nil, fmt.Errorf("invalid version %q", s)
	}
	return v, nil
}

// parse reads MAJOR.MINOR.PATCH[-pre][+build]; allowV admits the one leading "v" node-semver's
// own parser admits (in ranges and comparators).
func parse(s string, allowV bool) (*Version, error) {
	if len(s) > MaxLength {
		return nil, fmt.Errorf("version is longer than %d characters", MaxLength)
	}
	in := s
	if allowV {
		s = jsTrim(s)
		s = strings.TrimPrefix(s, "v")
	}
	bad := func(why string) error { return fmt.Errorf("invalid version %q: %s", in, why) }
	var v Version
	for i, dst := range []*uint64{&v.Major, &v.Minor, &v.Patch} {
		j := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == 0 {
			return nil, bad("it needs three numbers, MAJOR.MINOR.PATCH")
		}
		if j > 1 && s[0] == '0' {
			return nil, bad("a number has a leading zero")
		}
		n, err := strconv.ParseUint(s[:j], 10, 64)
		if err != nil || n > maxSafe {
			return nil, bad("a number is larger than 2^53-1")
		}
		*dst = n
		s = s[j:]
		if i < 2 {
			if s == "" || s[0] != '.' {
				return nil, bad("it needs three numbers, MAJOR.MINOR.PATCH")
			}
			s = s[1:]
		}
	}
	if strings.HasPrefix(s, "-") {
		end := strings.IndexByte(s, '+')
		if end < 0 {
			end = len(s)
		}
		for id := range strings.SplitSeq(s[1:end], ".") {
			if !isIdent(id) {
				return nil, bad(fmt.Sprintf("prerelease identifier %q is empty or not [0-9A-Za-z-]", id))
			}
			if numeric(id) && len(id) > 1 && id[0] == '0' {
				return nil, bad(fmt.Sprintf("numeric prerelease identifier %q has a leading zero", id))
			}
			v.Pre = append(v.Pre, id)
		}
		s = s[end:]
	}
	if strings.HasPrefix(s, "+") {
		for id := range strings.SplitSeq(s[1:], ".") {
			if !isIdent(id) {
				return nil, bad(fmt.Sprintf("build identifier %q is empty or not [0-9A-Za-z-]", id))
			}
			v.Build = append(v.Build, id)
		}
		s = ""
	}
	if s != "" {
		return nil, bad(fmt.Sprintf("unexpected %q after the version", s))
	}
	return &v, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return false
		}
	}
	return true
}

func numeric(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String formats the version as npm does: without build metadata.
func (v *Version) String() string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(v.Major, 10))
	b.WriteByte('.')
	b.WriteString(strconv.FormatUint(v.Minor, 10))
	b.WriteByte('.')
	b.WriteString(strconv.FormatUint(v.Patch, 10))
	if len(v.Pre) > 0 {
		b.WriteByte('-')
		b.WriteString(strings.Join(v.Pre, "."))
	}
	return b.String()
}

// Prerelease returns the prerelease part ("rc.1"), or "".
func (v *Version) Prerelease() string { return strings.Join(v.Pre, ".") }

// Release returns the version without its prerelease and build parts.
func (v *Version) Release() *Version { return New(v.Major, v.Minor, v.Patch) }

// Compare returns -1, 0 or 1 as v sorts before, with or after o by semver precedence.
func (v *Version) Compare(o *Version) int {
	for _, p := range [][2]uint64{{v.Major, o.Major}, {v.Minor, o.Minor}, {v.Patch, o.Patch}} {
		if p[0] != p[1] {
			if p[0] < p[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(v.Pre) == 0 && len(o.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1
	case len(o.Pre) == 0:
		return -1
	}
	for i := 0; ; i++ {
		switch {
		case i == len(v.Pre) && i == len(o.Pre):
			return 0
		case i == len(o.Pre):
			return 1
		case i == len(v.Pre):
			return -1
		}
		if c := compareIdent(v.Pre[i], o.Pre[i]); c != 0 {
			return c
		}
	}
}

// compareIdent orders prerelease identifiers: numbers numerically and before words, words
// by their characters.
func compareIdent(a, b string) int {
	an, bn := numeric(a), numeric(b)
	switch {
	case an && bn:
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(a) != len(b) {
			if len(a) < len(b) {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	case an:
		return -1
	case bn:
		return 1
	}
	return strings.Compare(a, b)
}

// GreaterThan reports whether v sorts after o.
func (v *Version) GreaterThan(o *Version) bool { return v.Compare(o) > 0 }

// LessThan reports whether v sorts before o.
func (v *Version) LessThan(o *Version) bool { return v.Compare(o) < 0 }

// jsTrim trims what JavaScript's String.prototype.trim trims.
func jsTrim(s string) string { return strings.TrimFunc(s, jsSpace) }

// jsSpace reports whether r is white space or a line terminator to JavaScript (\s).
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}
