package exports

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/jsonpos"
)

// FuzzResolve resolves arbitrary subpaths through arbitrary exports values (the input is used as
// JSON when it parses, else as a target string): Resolve, Problems and Entry must never panic,
// a resolved target stays inside the package, and every error is an *Error with a message.
func FuzzResolve(f *testing.F) {
	for name, p := range oraclePackages {
		f.Add(p.json, "./"+name)
	}
	for _, c := range cases() {
		if p, ok := oraclePackages[c.name]; ok {
			f.Add(p.json, c.subpath)
		}
	}
	f.Add(`{"./*":"./*/*/*.js","./a/*":["./a/*",null,{"import":"./b/*"}]}`, "./a/%2e")
	f.Add(`"./\t.\n./x"`, ".")
	f.Fuzz(func(t *testing.T, doc, subpath string) {
		if len(doc) > 4096 || len(subpath) > 512 {
			return
		}
		v, err := jsonpos.Parse([]byte(doc))
		if err != nil {
			quoted, _ := json.Marshal(doc)
			if v, err = jsonpos.Parse(quoted); err != nil {
				t.Fatalf("a JSON string does not parse: %s: %v", quoted, err)
			}
		}
		exp := v
		if v.Kind == jsonpos.Object && v.Get("exports") != nil {
			exp = v.Get("exports")
		}
		for _, conds := range [][]string{ImportConditions, RequireConditions, nil, {"default", "types", ""}} {
			target, err := Resolve(exp, subpath, conds)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Message == "" || e.Code == "" {
					t.Fatalf("Resolve(%s, %q): untyped or empty error %v", doc, subpath, err)
				}
				continue
			}
			if !strings.HasPrefix(target, "./") {
				t.Fatalf("Resolve(%s, %q) = %q: not a package path", doc, subpath, target)
			}
		}
		for _, p := range Problems(exp) {
			if p.Message == "" {
				t.Fatalf("Problems(%s): empty message", doc)
			}
		}
		exists := func(p string) bool { return len(p)%2 == 0 }
		if _, _, err := Entry(v, exists, nil); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Entry(%s): untyped error %v", doc, err)
			}
		}
		Entry(v, exists, RequireConditions)
	})
}
