package packlist

import (
	"encoding/json"
	"testing"
	"testing/fstest"
)

var fuzzTree = map[string]string{
	"index.js": "x", "lib/a.js": "x", "lib/a.test.js": "x", "lib/sub/b.js": "x", "README.md": "x",
	"dist/out.js": "x", "dist/out.js.map": "x", ".npmrc": "x", "node_modules/d/i.js": "x",
	"@scope/x.js": "x", "a b/c.js": "x", "LICENSE": "x", "docs/.gitignore": "*.tmp\n", "docs/a.tmp": "x",
}

// FuzzLoadFiles loads a package whose `files` field (any JSON text, or a string when the input
// is not JSON) and .npmignore vary: Load, Files, Has, Covers and Why must never panic.
func FuzzLoadFiles(f *testing.F) {
	for _, s := range []string{`["lib"]`, `["lib/**/*.js","!**/*.test.js"]`, `"lib"`, `[]`, `{"a":1}`, `[1,null]`,
		`["./dist/*","{a,b}/**","+(lib|dist)"]`, `["../x","/",".","!","!!lib"]`, `null`, `true`, `["[[:alpha:]]-x"]`} {
		f.Add(s, "*.map\n!dist/out.js.map\n# c\n")
	}
	f.Add(`["lib"]`, "[\n\\\n{}\n**\n!**\n/\n")
	f.Fuzz(func(t *testing.T, files, npmignore string) {
		if len(files) > 2048 || len(npmignore) > 2048 {
			return
		}
		var v any
		if json.Unmarshal([]byte(files), &v) != nil {
			b, _ := json.Marshal(files)
			files = string(b)
		}
		fsys := fstest.MapFS{}
		for k, d := range fuzzTree {
			fsys[k] = &fstest.MapFile{Data: []byte(d)}
		}
		fsys["package.json"] = &fstest.MapFile{Data: []byte(`{"name":"f","version":"1.0.0","main":"dist/out.js","files":` + files + `}`)}
		fsys[".npmignore"] = &fstest.MapFile{Data: []byte(npmignore)}
		l, err := Load(fsys, ".", Options{})
		if err != nil {
			return
		}
		for _, p := range l.Files() {
			if !l.Has(p) || l.Why(p) != "" || !l.Covers(p) {
				t.Fatalf("%q is listed but Has/Why/Covers disagree", p)
			}
		}
		for p := range fuzzTree {
			if !l.Has(p) && l.Why(p) == "" {
				t.Fatalf("Why(%q) is empty for a file left out", p)
			}
		}
		l.Covers("dist/new.js")
		l.Covers("lib/deep/new.js")
	})
}
