package exports

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/jsonpos"
)

func parse(t *testing.T, s string) *jsonpos.Value {
	t.Helper()
	v, err := jsonpos.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

func TestResolveErrorsSayWhatAndWhere(t *testing.T) {
	doc := `{
  "./web/*": "../x",
  "./api": "./dist/api.js",
  "./gone": null,
  "./bad": 42,
  "./deep/*": "./dist/*.js"
}`
	exp := parse(t, doc)
	cases := []struct {
		subpath, code, msg string
		line, col          int
	}{
		{"./web/x", CodeInvalidTarget, `invalid target "../x" for "./web/*": targets must start with "./"`, 2, 14},
		{"./nope", CodeNotExported, `Package subpath './nope' is not defined by "exports"`, 1, 1},
		{".", CodeNotExported, `No "exports" main defined`, 1, 1},
		{"./gone", CodeNotExported, `Package subpath './gone' is not defined by "exports"`, 4, 13},
		{"./bad", CodeInvalidTarget, `invalid target 42 for "./bad": a target must be a string, an array, an object of conditions or null`, 5, 12},
		{"./deep/../x", CodeInvalidSpecifier, `subpath "./deep/../x" is not valid: the part "../x" matched by "./deep/*" has a ".", ".." or "node_modules" segment`, 6, 15},
		{"deep/x", CodeInvalidSpecifier, `subpath "deep/x" must be "." or start with "./"`, 0, 0},
	}
	for _, c := range cases {
		_, err := Resolve(exp, c.subpath, ImportConditions)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("Resolve(%q): want *Error, got %v", c.subpath, err)
		}
		if e.Code != c.code || e.Message != c.msg {
			t.Errorf("Resolve(%q) = %s %q, want %s %q", c.subpath, e.Code, e.Message, c.code, c.msg)
		}
		if c.line > 0 && (!e.HasPos || e.Pos.Line != c.line || e.Pos.Col != c.col) {
			t.Errorf("Resolve(%q) position %v (has %v), want %d:%d", c.subpath, e.Pos, e.HasPos, c.line, c.col)
		}
	}
	if got, err := Resolve(exp, "./deep/a/b", nil); err != nil || got != "./dist/a/b.js" {
		t.Errorf(`Resolve("./deep/a/b") = %q, %v`, got, err)
	}
	mixed := parse(t, `{".": "./a.js", "import": "./b.js"}`)
	_, err := Resolve(mixed, ".", ImportConditions)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidConfig || e.Pos.Col != 17 || !strings.Contains(e.Message, "cannot mix") {
		t.Errorf("mixed keys: %#v", err)
	}
	if _, err := Resolve(nil, ".", nil); err == nil || !strings.Contains(err.Error(), `no "exports"`) {
		t.Errorf("no exports: %v", err)
	}
}

func TestResolveConditionOrderIsKeyOrder(t *testing.T) {
	exp := parse(t, `{"default":"./d.js","import":"./i.js"}`)
	if got, _ := Resolve(exp, ".", ImportConditions); got != "./d.js" {
		t.Errorf("default listed first must win, got %q", got)
	}
	exp = parse(t, `{"require":"./r.js","node":{"import":"./ni.js","require":"./nr.js"},"default":"./d.js"}`)
	for _, c := range []struct {
		conds []string
		want  string
	}{
		{ImportConditions, "./ni.js"},
		{RequireConditions, "./r.js"},
		{[]string{"browser"}, "./d.js"},
		{[]string{"node"}, "./d.js"}, // node matches, but nothing under it does: the next key is tried
	} {
		if got, err := Resolve(exp, ".", c.conds); err != nil || got != c.want {
			t.Errorf("conditions %v: %q, %v; want %q", c.conds, got, err, c.want)
		}
	}
}

func TestEntryHow(t *testing.T) {
	files := []string{"dist/index.mjs", "lib/main.js", "index.js", "lib/x/index.js"}
	exists := func(p string) bool { return slices.Contains(files, p) }
	cases := []struct {
		pkg, path, how, err string
		conds               []string
	}{
		{pkg: `{"exports":{".":{"types":"./t.d.ts","import":"./dist/index.mjs"}}}`, path: "dist/index.mjs", how: `exports "." → import`},
		{pkg: `{"exports":"./dist/index.mjs","main":"lib/main.js"}`, path: "dist/index.mjs", how: `exports "."`},
		{pkg: `{"exports":{"./x":"./x.js"},"main":"lib/main.js"}`, err: `No "exports" main defined`},
		{pkg: `{"exports":"./dist/missing.js"}`, err: `exports "." resolves to "./dist/missing.js", which does not exist`},
		{pkg: `{"exports":{"import":{"node":"./dist/index.mjs"}}}`, path: "dist/index.mjs", how: `exports "." → import → node`},
		{pkg: `{"exports":{"import":"./a.js","require":"./lib/main.js"}}`, conds: RequireConditions, path: "lib/main.js", how: `exports "." → require`},
		{pkg: `{"main":"lib/main.js"}`, path: "lib/main.js", how: "main"},
		{pkg: `{"main":"./lib/main"}`, path: "lib/main.js", how: `main + ".js"`},
		{pkg: `{"main":"lib/x"}`, path: "lib/x/index.js", how: `main + "/index.js"`},
		{pkg: `{"main":"missing.js"}`, path: "index.js", how: "index.js"},
		{pkg: `{}`, path: "index.js", how: "index.js"},
		{pkg: `{"exports":null}`, path: "index.js", how: "index.js"},
	}
	for _, c := range cases {
		p, how, err := Entry(parse(t, c.pkg), exists, c.conds)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("Entry(%s) error = %v, want %q", c.pkg, err, c.err)
			}
			continue
		}
		if err != nil || p != c.path || how != c.how {
			t.Errorf("Entry(%s) = %q, %q, %v; want %q, %q", c.pkg, p, how, err, c.path, c.how)
		}
	}
	none := func(string) bool { return false }
	if _, _, err := Entry(parse(t, `{"main":"lib/main.js"}`), none, nil); err == nil ||
		err.Error() != `no file for "main" "lib/main.js" (tried it with .js, .json, .node and /index.js) and no index.js` {
		t.Errorf("Entry with nothing on disk: %v", err)
	}
}

func TestProblems(t *testing.T) {
	doc := `{
  ".": {"import": "./ok.js", "0": "./zero.js", "./x": "./x.js"},
  "./a": "../outside.js",
  "./b": "dist/b.js",
  "./c": "./a/../c.js",
  "./d": ["./ok.js", "./%2e%2e/d.js", 3],
  "./e/": "./e/",
  "./f/*/*": "./f/*.js",
  ".web/*": "./web/*.js",
  "./g": "./%6Eode_modules/g.js",
  "./h": "./.\t./h.js",
  "./i": "./a%2Fb.js",
  "./ok/*": {"types": "./types/*.d.ts", "default": "./dist/*.js"},
  "./n": null
}`
	var got []string
	for _, p := range Problems(parse(t, doc)) {
		got = append(got, p.Pos.String()+" "+p.Message)
	}
	want := []string{
		`2:30 "exports" cannot contain numeric property keys ("0" under ".")`,
		`2:48 condition key "./x" under "." looks like a subpath; subpaths belong at the top level of "exports"`,
		`3:10 invalid target "../outside.js" for "./a": targets must start with "./"`,
		`4:10 invalid target "dist/b.js" for "./b": targets must start with "./"`,
		`5:10 invalid target "./a/../c.js" for "./c": a target must not contain ".", ".." or "node_modules" segments`,
		`6:22 invalid target "./%2e%2e/d.js" for "./d": a target must not contain ".", ".." or "node_modules" segments`,
		`6:39 invalid target 3 for "./d": a target must be a string, an array, an object of conditions or null`,
		`7:3 subpath key "./e/" is a folder mapping, which Node 17 and later no longer support; use "./e/*"`,
		`8:3 subpath key "./f/*/*" never matches: Node ignores keys with more than one "*"`,
		`9:3 subpath key ".web/*" never matches: subpaths are "." or start with "./"`,
		`10:10 invalid target "./%6Eode_modules/g.js" for "./g": a target must not contain ".", ".." or "node_modules" segments`,
		`11:10 invalid target "./.\t./h.js" for "./h": it resolves outside the package`,
		`12:10 invalid target "./a%2Fb.js" for "./i": it resolves to a path with an encoded "/" or "\"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ps := Problems(parse(t, `{".": "./a.js", "require": "b.js"}`)); len(ps) != 2 || !strings.Contains(ps[0].Message, "cannot mix") ||
		ps[0].Pos.Col != 17 || ps[1].Message != `invalid target "b.js" for ".": targets must start with "./"` {
		t.Errorf("mixed keys: %+v", ps)
	}
	for _, ok := range []string{`"./index.js"`, `["./a.mjs", "./a.cjs"]`, `{"import": "./a.mjs", "default": "./a.cjs"}`, `null`,
		`{".": "./a.js", "./web/*": "./dist/web/*.js", "./web/internal/*": null, "./package.json": "./package.json"}`} {
		if ps := Problems(parse(t, ok)); len(ps) != 0 {
			t.Errorf("Problems(%s) = %+v, want none", ok, ps)
		}
	}
}
