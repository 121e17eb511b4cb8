package semver

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Range is an npm version range: sets of comparators joined by `||`; a version satisfies
// the range when it satisfies every comparator of one set.
type Range struct {
	sets [][]comparator
}

// comparator is one `op version` test; a nil version admits everything (node-semver's ANY).
type comparator struct {
	op  string // "", "<", "<=", ">", ">="; "" with a version means equal
	ver *Version
}

func (c comparator) value() string {
	if c.ver == nil {
		return ""
	}
	return c.op + c.ver.String()
}

func (c comparator) test(v *Version) bool {
	if c.ver == nil {
		return true
	}
	n := v.Compare(c.ver)
	switch c.op {
	case "":
		return n == 0
	case "<":
		return n < 0
	case "<=":
		return n <= 0
	case ">":
		return n > 0
	case ">=":
		return n >= 0
	}
	return false
}

// The expressions are node-semver's (internal/re.js, strict forms), built the same way.
type rangeREs struct {
	build, hyphen, comparatorTrim, tildeTrim, caretTrim *regexp.Regexp
	tilde, caret, xrange, star, gte0, comparator        *regexp.Regexp
}

var res = sync.OnceValue(func() *rangeREs {
	const (
		num       = `0|[1-9]\d*`
		numLoose  = `\d+`
		nonNum    = `\d*[a-zA-Z-][a-zA-Z0-9-]*`
		main      = `(` + num + `)\.(` + num + `)\.(` + num + `)`
		mainLoose = `(` + numLoose + `)\.(` + numLoose + `)\.(` + numLoose + `)`
		preID     = `(?:` + nonNum + `|` + num + `)`
		preIDL    = `(?:` + nonNum + `|` + numLoose + `)`
		pre       = `(?:-(` + preID + `(?:\.` + preID + `)*))`
		preLoose  = `(?:-?(` + preIDL + `(?:\.` + preIDL + `)*))`
		buildID   = `[a-zA-Z0-9-]+`
		build     = `(?:\+(` + buildID + `(?:\.` + buildID + `)*))`
		fullPlain = `v?` + main + pre + `?` + build + `?`
		loosePln  = `[v=\s]*` + mainLoose + preLoose + `?` + build + `?`
		gtlt      = `((?:<|>)?=?)`
		xid       = num + `|x|X|\*`
		xPlain    = `[v=\s]*(` + xid + `)(?:\.(` + xid + `)(?:\.(` + xid + `)(?:` + pre + `)?` + build + `?)?)?`
	)
	return &rangeREs{
		build:          regexp.MustCompile(build),
		hyphen:         regexp.MustCompile(`^\s*(` + xPlain + `)\s+-\s+(` + xPlain + `)\s*$`),
		comparatorTrim: regexp.MustCompile(`(\s*)` + gtlt + `\s*(` + loosePln + `|` + xPlain + `)`),
		tildeTrim:      regexp.MustCompile(`(\s*)(?:~>?)\s+`),
		caretTrim:      regexp.MustCompile(`(\s*)(?:\^)\s+`),
		tilde:          regexp.MustCompile(`^(?:~>?)` + xPlain + `$`),
		caret:          regexp.MustCompile(`^(?:\^)` + xPlain + `$`),
		xrange:         regexp.MustCompile(`^` + gtlt + `\s*` + xPlain + `$`),
		star:           regexp.MustCompile(`(<|>)?=?\s*\*`),
		comparator:     regexp.MustCompile(`^` + gtlt + `\s*(` + fullPlain + `)$|^$`),
	}
})

// ParseRange reads an npm range as `npm install` reads a dependency's range.
func ParseRange(s string) (*Range, error) {
	raw := strings.Join(splitSpace(jsTrim(s)), " ")
	r := &Range{}
	for _, part := range strings.Split(raw, "||") {
		set, err := parseSet(jsTrim(part))
		if err != nil {
			return nil, fmt.Errorf("invalid range %q: %v", s, err)
		}
		if len(set) > 0 {
			r.sets = append(r.sets, set)
		}
	}
	if len(r.sets) == 0 {
		return nil, fmt.Errorf("invalid range %q", s)
	}
	if len(r.sets) > 1 {
		first := r.sets[0]
		kept := r.sets[:0]
		for _, set := range r.sets {
			if !isNullSet(set[0]) {
				kept = append(kept, set)
			}
		}
		r.sets = kept
		if len(r.sets) == 0 {
			r.sets = [][]comparator{first}
		} else if len(r.sets) > 1 {
			for _, set := range r.sets {
				if len(set) == 1 && set[0].ver == nil {
					r.sets = [][]comparator{set}
					break
				}
			}
		}
	}
	return r, nil
}

// Desugared returns the range as comparators only (node-semver's Range#range): ^1.2.3 is
// ">=1.2.3 <2.0.0-0".
func (r *Range) Desugared() string {
	var b strings.Builder
	for i, set := range r.sets {
		if i > 0 {
			b.WriteString("||")
		}
		for j, c := range set {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(c.value())
		}
	}
	return b.String()
}

func isNullSet(c comparator) bool { return c.value() == "<0.0.0-0" }

// Contains reports whether v satisfies the range. As in npm, a prerelease satisfies a set only
// when a comparator of that set names a prerelease of the same MAJOR.MINOR.PATCH.
func (r *Range) Contains(v *Version) bool {
	for _, set := range r.sets {
		if testSet(set, v) {
			return true
		}
	}
	return false
}

func testSet(set []comparator, v *Version) bool {
	for _, c := range set {
		if !c.test(v) {
			return false
		}
	}
	if len(v.Pre) == 0 {
		return true
	}
	for _, c := range set {
		if c.ver != nil && len(c.ver.Pre) > 0 && c.ver.Major == v.Major && c.ver.Minor == v.Minor && c.ver.Patch == v.Patch {
			return true
		}
	}
	return false
}

// Bounded reports whether every set has a ceiling (a `<`, `<=` or exact comparator), so that
// some version above all of them satisfies none.
func (r *Range) Bounded() bool {
	for _, set := range r.sets {
		capped := false
		for _, c := range set {
			if c.ver != nil && (c.op == "<" || c.op == "<=" || c.op == "") {
				capped = true
			}
		}
		if !capped {
			return false
		}
	}
	return true
}

// MinVersion returns the lowest version that satisfies the range (node-semver's minVersion),
// or nil when none does.
func (r *Range) MinVersion() *Version {
	for _, v := range []*Version{New(0, 0, 0), {Pre: []string{"0"}}} {
		if r.Contains(v) {
			return v
		}
	}
	var min *Version
	for _, set := range r.sets {
		var setMin *Version
		for _, c := range set {
			if c.ver == nil {
				continue
			}
			v := *c.ver
			v.Pre = append([]string(nil), c.ver.Pre...)
			v.Build = nil
			switch c.op {
			case ">":
				if len(v.Pre) == 0 {
					v.Patch++
				} else {
					v.Pre = append(v.Pre, "0")
				}
				fallthrough
			case "", ">=":
				if setMin == nil || v.GreaterThan(setMin) {
					setMin = &v
				}
			}
		}
		if setMin != nil && (min == nil || min.GreaterThan(setMin)) {
			min = setMin
		}
	}
	if min != nil && r.Contains(min) {
		return min
	}
	return nil
}

// parseSet is node-semver's Range#parseRange for one `||` alternative.
func parseSet(s string) ([]comparator, error) {
	list, ok := fastList(s)
	if !ok {
		list = desugar(s)
	}
	var (
		out  []comparator
		seen = map[string]int{}
	)
	comps := make([]comparator, len(list))
	for i, text := range list {
		if text = jsTrim(text); text == ">=0.0.0" { // >=0.0.0 is *; list items hold no white space
			text = ""
		}
		c, err := newComparator(text)
		if err != nil {
			return nil, err
		}
		comps[i] = c
	}
	for _, c := range comps {
		if isNullSet(c) {
			return []comparator{c}, nil
		}
		if i, ok := seen[c.value()]; ok {
			out[i] = c
			continue
		}
		seen[c.value()] = len(out)
		out = append(out, c)
	}
	if len(out) > 1 {
		if i, ok := seen[""]; ok {
			out = append(out[:i], out[i+1:]...)
		}
	}
	return out, nil
}

// desugar turns one alternative into comparator texts with node-semver's expressions.
func desugar(s string) []string {
	re := res()
	s = re.build.ReplaceAllString(s, "") // strip build metadata so it cannot bleed into the version
	s = replaceAnchored(re.hyphen, s, hyphenReplace)
	s = re.comparatorTrim.ReplaceAllString(s, "$1$2$3")
	s = re.tildeTrim.ReplaceAllString(s, "$1~")
	s = re.caretTrim.ReplaceAllString(s, "$1^")
	parts := strings.Split(s, " ")
	for i, p := range parts {
		parts[i] = parseComparator(p)
	}
	return splitSpace(strings.Join(parts, " "))
}

// comparatorOps are the operators a comparator may start with, longest first.
var comparatorOps = []string{">=", "<=", ">", "<", "="}

// cutOp splits an operator (or "") off the front of s.
func cutOp(s string, ops []string) (op, rest string) {
	for _, o := range ops {
		if strings.HasPrefix(s, o) {
			return o, s[len(o):]
		}
	}
	return "", s
}

// fastList desugars the ranges nearly every package.json writes (1.2.3, >=1.2.3, ^1.2.3,
// ~1.2.3-rc.1: one operator and a strict version, no build) without the expressions, giving
// the list parseSet's expressions give; ok is false for anything else.
func fastList(s string) (list []string, ok bool) {
	op, rest := cutOp(s, []string{"^", "~", ">=", "<=", ">", "<", "="})
	if strings.HasPrefix(rest, "~") || strings.HasPrefix(rest, ">") {
		return nil, false
	}
	v, err := Parse(rest)
	if err != nil || len(v.Build) > 0 {
		return nil, false
	}
	g := []string{s, strconv.FormatUint(v.Major, 10), strconv.FormatUint(v.Minor, 10), strconv.FormatUint(v.Patch, 10), v.Prerelease()}
	switch op {
	case "^":
		return strings.Split(caret(g), " "), true
	case "~":
		return strings.Split(tilde(g), " "), true
	}
	return []string{s}, true
}

func newComparator(s string) (comparator, error) {
	s = strings.Join(splitSpace(jsTrim(s)), " ")
	if s == "" {
		return comparator{}, nil // any version
	}
	if op, rest := cutOp(s, comparatorOps); !strings.ContainsAny(rest, " v=<>") {
		if v, err := Parse(rest); err == nil {
			if op == "=" {
				op = ""
			}
			return comparator{op: op, ver: v}, nil
		}
	}
	m := res().comparator.FindStringSubmatch(s)
	if m == nil {
		return comparator{}, fmt.Errorf("invalid comparator %q", s)
	}
	c := comparator{op: m[1]}
	if c.op == "=" {
		c.op = ""
	}
	if m[2] == "" {
		return comparator{}, nil
	}
	v, err := parse(m[2], true)
	if err != nil {
		return comparator{}, err
	}
	c.ver = v
	return c, nil
}

func parseComparator(s string) string {
	re := res()
	s = replaceFirst(re.build, s, "")
	s = mapFields(jsTrim(s), func(c string) string { return replaceAnchored(re.caret, c, caret) })
	s = mapFields(jsTrim(s), func(c string) string { return replaceAnchored(re.tilde, c, tilde) })
	s = mapFields(s, func(c string) string { return replaceAnchored(re.xrange, jsTrim(c), xrange) })
	return replaceFirst(re.star, jsTrim(s), "")
}

// mapFields splits s on runs of white space as JavaScript's split(/\s+/) does (an empty field
// at either end is kept), maps each field and joins them with one space.
func mapFields(s string, f func(string) string) string {
	fields := splitSpace(s)
	for i, x := range fields {
		fields[i] = f(x)
	}
	return strings.Join(fields, " ")
}

// splitSpace is JavaScript's s.split(/\s+/).
func splitSpace(s string) []string {
	var out []string
	start, inSpace := 0, false
	for i, r := range s {
		sp := jsSpace(r)
		switch {
		case sp && !inSpace:
			out = append(out, s[start:i])
			inSpace = true
		case !sp && inSpace:
			start = i
			inSpace = false
		}
	}
	if inSpace {
		return append(out, "")
	}
	return append(out, s[start:])
}

// replaceFirst is JavaScript's s.replace(re, repl) for a non-global expression.
func replaceFirst(re *regexp.Regexp, s, repl string) string {
	loc := re.FindStringIndex(s)
	if loc == nil {
		return s
	}
	return s[:loc[0]] + repl + s[loc[1]:]
}

// replaceAnchored applies f to the groups of a whole-string match (absent groups are "").
func replaceAnchored(re *regexp.Regexp, s string, f func(g []string) string) string {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	return f(m)
}

func isX(id string) bool { return id == "" || id == "x" || id == "X" || id == "*" }

// inc is JavaScript's `+n + 1` for a number the expressions matched.
func inc(n string) string {
	v, err := strconv.ParseUint(n, 10, 64)
	if err != nil || v >= maxSafe {
		return "invalid" // too large for npm: the comparator it lands in fails to parse
	}
	return strconv.FormatUint(v+1, 10)
}

// wholeMajor is what ~ and ^ share: of * they admit anything, of 1 or 1.x every 1.y.z.
func wholeMajor(M, m string) (string, bool) {
	switch {
	case isX(M):
		return "", true
	case isX(m):
		return ">=" + M + ".0.0 <" + inc(M) + ".0.0-0", true
	}
	return "", false
}

// tilde: ~1.2.3 → >=1.2.3 <1.3.0-0, ~1.2 → >=1.2.0 <1.3.0-0, ~1 → >=1.0.0 <2.0.0-0.
func tilde(g []string) string {
	M, m, p, pr := g[1], g[2], g[3], g[4]
	if r, ok := wholeMajor(M, m); ok {
		return r
	}
	switch {
	case isX(p):
		return ">=" + M + "." + m + ".0 <" + M + "." + inc(m) + ".0-0"
	case pr != "":
		return ">=" + M + "." + m + "." + p + "-" + pr + " <" + M + "." + inc(m) + ".0-0"
	}
	return ">=" + M + "." + m + "." + p + " <" + M + "." + inc(m) + ".0-0"
}

// caret: ^1.2.3 → >=1.2.3 <2.0.0-0, ^0.2.3 → >=0.2.3 <0.3.0-0, ^0.0.3 → >=0.0.3 <0.0.4-0.
func caret(g []string) string {
	M, m, p, pr := g[1], g[2], g[3], g[4]
	if r, ok := wholeMajor(M, m); ok {
		return r
	}
	if isX(p) {
		if M == "0" {
			return ">=" + M + "." + m + ".0 <" + M + "." + inc(m) + ".0-0"
		}
		return ">=" + M + "." + m + ".0 <" + inc(M) + ".0.0-0"
	}
	low := ">=" + M + "." + m + "." + p
	if pr != "" {
		low += "-" + pr
	}
	switch {
	case M == "0" && m == "0":
		return low + " <" + M + "." + m + "." + inc(p) + "-0"
	case M == "0":
		return low + " <" + M + "." + inc(m) + ".0-0"
	}
	return low + " <" + inc(M) + ".0.0-0"
}

// xrange: 1.2.x → >=1.2.0 <1.3.0-0, >1.x → >=2.0.0, <=1.2.x → <1.3.0-0, * → *.
func xrange(g []string) string {
	whole, gtlt, M, m, p := g[0], g[1], g[2], g[3], g[4]
	if (isX(M) && !isX(m)) || (isX(m) && p != "" && !isX(p)) {
		return whole
	}
	xM := isX(M)
	xm := xM || isX(m)
	xp := xm || isX(p)
	if gtlt == "=" && xp {
		gtlt = ""
	}
	switch {
	case xM:
		if gtlt == ">" || gtlt == "<" {
			return "<0.0.0-0"
		}
		return "*"
	case gtlt != "" && xp:
		if xm {
			m = "0"
		}
		p = "0"
		switch gtlt {
		case ">":
			gtlt = ">="
			if xm {
				M, m = inc(M), "0"
			} else {
				m = inc(m)
			}
		case "<=":
			gtlt = "<"
			if xm {
				M = inc(M)
			} else {
				m = inc(m)
			}
		}
		pr := ""
		if gtlt == "<" {
			pr = "-0"
		}
		return gtlt + M + "." + m + "." + p + pr
	case xm:
		return ">=" + M + ".0.0 <" + inc(M) + ".0.0-0"
	case xp:
		return ">=" + M + "." + m + ".0 <" + M + "." + inc(m) + ".0-0"
	}
	return whole
}

// hyphenReplace: 1.2 - 3.4.5 → >=1.2.0 <=3.4.5, 1.2.3 - 3.4 → >=1.2.3 <3.5.0-0.
func hyphenReplace(g []string) string {
	from, fM, fm, fp := g[1], g[2], g[3], g[4]
	to, tM, tm, tp, tpr := g[7], g[8], g[9], g[10], g[11]
	switch {
	case isX(fM):
		from = ""
	case isX(fm):
		from = ">=" + fM + ".0.0"
	case isX(fp):
		from = ">=" + fM + "." + fm + ".0"
	default:
		from = ">=" + from
	}
	switch {
	case isX(tM):
		to = ""
	case isX(tm):
		to = "<" + inc(tM) + ".0.0-0"
	case isX(tp):
		to = "<" + tM + "." + inc(tm) + ".0-0"
	case tpr != "":
		to = "<=" + tM + "." + tm + "." + tp + "-" + tpr
	default:
		to = "<=" + to
	}
	return jsTrim(from + " " + to)
}
