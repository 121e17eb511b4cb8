package exports

import (
	"fmt"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
)

// Problem is a fault in an "exports" map that holds whatever the subpath and conditions.
type Problem struct {
	Pos     jsonpos.Pos
	Message string
}

// Problems lists every statically invalid part of an "exports" value, in document order: a mix
// of subpath and condition keys, numeric condition keys, subpath keys Node can never match
// (not "." or "./…", two "*", or a trailing "/" folder mapping, which Node 17 removed),
// subpath-looking keys inside conditions, and targets Node rejects (not a string, array,
// object or null; not starting with "./"; a ".", ".." or "node_modules" segment, also
// percent-encoded; resolving outside the package). An array's invalid items are listed too:
// Node skips them, so they never load.
func Problems(exports *jsonpos.Value) []Problem {
	if exports == nil || exports.Kind == jsonpos.Null {
		return nil
	}
	var out []Problem
	add := func(pos jsonpos.Pos, format string, a ...any) {
		out = append(out, Problem{Pos: pos, Message: fmt.Sprintf(format, a...)})
	}
	sugar, err := isConditionalSugar(exports)
	if err != nil {
		// Node refuses the whole map; the targets are still worth checking.
		e := err.(*Error)
		add(e.Pos, "%s", e.Message)
	}
	if err == nil && (sugar || exports.Kind != jsonpos.Object) {
		if !sugar {
			add(exports.Pos, `"exports" must be a string, an array or an object, not %s`, exports.Kind)
			return out
		}
		checkTarget(exports, ".", false, add)
		return out
	}
	for _, m := range members(exports) {
		key := m.key
		if key == "" || key[0] != '.' {
			checkTarget(m.val, ".", false, add) // a condition key of a mixed map
			continue
		}
		switch {
		case key != "." && !strings.HasPrefix(key, "./"):
			add(m.keyPos, `subpath key %q never matches: subpaths are "." or start with "./"`, key)
		case strings.Count(key, "*") > 1:
			add(m.keyPos, `subpath key %q never matches: Node ignores keys with more than one "*"`, key)
		case strings.HasSuffix(key, "/") && !strings.Contains(key, "*"):
			add(m.keyPos, `subpath key %q is a folder mapping, which Node 17 and later no longer support; use %q`, key, key+"*")
		}
		checkTarget(m.val, key, strings.Contains(key, "*"), add)
	}
	return out
}

func checkTarget(t *jsonpos.Value, match string, pattern bool, add func(jsonpos.Pos, string, ...any)) {
	switch t.Kind {
	case jsonpos.Null:
	case jsonpos.String:
		target := t.Str
		switch {
		case !strings.HasPrefix(target, "./"):
			add(t.Pos, `invalid target %q for %q: targets must start with "./"`, target, match)
		case invalidSegment(target[2:]):
			add(t.Pos, `invalid target %q for %q: a target must not contain ".", ".." or "node_modules" segments`, target, match)
		case !resolveTarget(target).inPackage():
			add(t.Pos, `invalid target %q for %q: it resolves outside the package`, target, match)
		default:
			if !pattern {
				u := resolveTarget(target)
				if hasEncodedSeparator(u.relPath()) {
					add(t.Pos, `invalid target %q for %q: it resolves to a path with an encoded "/" or "\"`, target, match)
				} else if _, ok := decodeURIComponent(u.relPath()); !ok {
					add(t.Pos, `invalid target %q for %q: it has a malformed percent escape`, target, match)
				}
			}
		}
	case jsonpos.Array:
		for _, it := range t.Items {
			checkTarget(it, match, pattern, add)
		}
	case jsonpos.Object:
		for _, m := range members(t) {
			switch {
			case isArrayIndex(m.key):
				add(m.keyPos, `"exports" cannot contain numeric property keys (%q under %q)`, m.key, match)
			case strings.HasPrefix(m.key, "."):
				add(m.keyPos, `condition key %q under %q looks like a subpath; subpaths belong at the top level of "exports"`, m.key, match)
			}
			checkTarget(m.val, match, pattern, add)
		}
	default:
		add(t.Pos, `invalid target %s for %q: a target must be a string, an array, an object of conditions or null`, rawJSON(t), match)
	}
}
