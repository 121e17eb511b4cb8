package exports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/testenv"
)

// The oracle is node itself, the pinned Node of testenv.OracleNode: each package below is
// written to node_modules/<name> in a temporary folder, and one node process (started with
// --conditions=plaios-custom, to exercise user conditions) resolves every case with
// import.meta.resolve or require.resolve.

const customCondition = "plaios-custom"

const oracleScript = `
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { relative, join } from 'node:path';
import { statSync } from 'node:fs';
const root = process.argv[2];
const require = createRequire(join(root, 'index.js'));
let input = '';
process.stdin.on('data', d => input += d).on('end', () => {
  const out = JSON.parse(input).map(c => {
    const spec = c.name + c.subpath.slice(1);
    const pkgDir = join(root, 'node_modules', c.name);
    try {
      let file;
      if (c.mode === 'require') {
        file = require.resolve(spec);
      } else {
        file = fileURLToPath(import.meta.resolve(spec, pathToFileURL(join(root, 'index.mjs')).href));
      }
      let exists = false;
      try { exists = statSync(file).isFile(); } catch {}
      return { ok: true, rel: relative(pkgDir, file).split('\\').join('/'), exists };
    } catch (e) {
      return { ok: false, code: e.code || e.constructor.name, msg: String(e.message).split('\n')[0] };
    }
  });
  process.stdout.write(JSON.stringify({ node: process.version, answers: out }));
});
`

type pkgDef struct {
	json  string
	files []string
}

// Packages by name; every case resolves a subpath of one of them.
var oraclePackages = map[string]pkgDef{
	"pa": {json: `{"name":"pa","exports":{
		".": {"types":"./index.d.ts","import":"./esm/index.js","require":"./cjs/index.js","default":"./esm/index.js"},
		"./web/*": "./dist/web/*.js",
		"./web/internal/*": null,
		"./web/special": "./special.js",
		"./web/*.css": "./styles/*.css",
		"./features/*.js": "./src/features/*.js",
		"./features/x/*.js": "./src/x/*.mjs",
		"./sub/": "./lib/",
		"./null": null,
		"./arr": [null, "./arr-fallback.js"],
		"./arr-invalid-first": ["../bad.js", "./good.js"],
		"./arr-all-invalid": ["../bad.js", "lib/x.js"],
		"./arr-null-last": ["./exists.js", null],
		"./arr-empty": [],
		"./arr-undefined": [{"browser":"./b.js"}],
		"./arr-undefined-then-invalid": [{"browser":"./b.js"}, "bad"],
		"./arr-invalid-then-null": ["bad", null],
		"./arr-nested": [["../x.js", "./nested-ok.js"]],
		"./nested": {"node": {"import": "./n-import.js", "require": "./n-require.js"}, "default": "./n-default.js"},
		"./browser-only": {"browser": "./b.js"},
		"./custom": {"plaios-custom": "./custom.js", "default": "./nocustom.js"},
		"./addons": {"node-addons": "./addons.js", "default": "./no-addons.js"},
		"./module-sync": {"module-sync": "./ms.js", "default": "./not-ms.js"},
		"./types-only": {"types": "./t.d.ts"},
		"./types-first": {"types": "./t.d.ts", "default": "./t.js"},
		"./null-condition": {"node": null, "default": "./never.js"},
		"./dotdot": "./a/../b.js",
		"./dot": "./a/./b.js",
		"./nm": "./node_modules/x/y.js",
		"./NM": "./Node_Modules/x.js",
		"./pct": "./%2e%2e/x.js",
		"./pct-single": "./a/%2E/b.js",
		"./pct-nm": "./%6eode_modules/x.js",
		"./noslash": "dist/x.js",
		"./abs": "/abs.js",
		"./backslash": "./dist\\x.js",
		"./bs-dotdot": "./a\\..\\..\\x.js",
		"./num": 42,
		"./bool": true,
		"./numeric-cond": {"0": "./zero.js", "default": "./d.js"},
		"./two*stars*": "./x/*.js",
		"./trailing/": "./t/",
		"./star-in-target": "./dist/*.js",
		"./multi/*": "./m/*/*.js",
		"./enc-sep": "./a%2Fb.js",
		"./space": "./a b.js",
		"./pct20": "./a%20c.js",
		"./query": "./q.js?x=1",
		"./doubleslash": ".//asdf.js",
		"./empty-cond": {},
		"./cond-with-dot-key": {"./x": "./x.js", "default": "./dx.js"},
		"./tab-escape": "./.\t./x.js",
		"./dup": "./first.js",
		"./dup": "./second.js",
		"./no-star-target/*": "./fixed.js",
		"./malformed": "./a%zz.js"
	}}`, files: []string{"esm/index.js", "cjs/index.js", "dist/web/a.js", "special.js", "styles/a.css", "src/features/a.js",
		"src/x/y.mjs", "arr-fallback.js", "good.js", "exists.js", "n-import.js", "n-require.js", "custom.js", "addons.js",
		"not-ms.js", "t.js", "b.js", "a/b.js", "dist/x.js", "a b.js", "a c.js", "q.js", "asdf.js", "dx.js", "second.js",
		"fixed.js", "nested-ok.js", "m/a/a.js", "dist/*.js"}},
	"pb": {json: `{"name":"pb","exports":{"./*":"./src/*.js","./internal/*":null,"./features/*.js":"./src/features/*.js","./features/private-internal/*":null}}`,
		files: []string{"src/x.js", "src/features/a.js"}},
	"ps":        {json: `{"name":"ps","exports":"./main.js","main":"./ignored.js"}`, files: []string{"main.js", "ignored.js"}},
	"parr":      {json: `{"name":"parr","exports":["./a.js","./b.js"]}`, files: []string{"a.js", "b.js"}},
	"pcond":     {json: `{"name":"pcond","exports":{"import":"./i.js","require":"./r.js"}}`, files: []string{"i.js", "r.js"}},
	"preq":      {json: `{"name":"preq","exports":{"require":"./r.js"}}`, files: []string{"r.js"}},
	"pmix":      {json: `{"name":"pmix","exports":{".":"./a.js","import":"./b.js"}}`, files: []string{"a.js", "b.js"}},
	"pnull":     {json: `{"name":"pnull","exports":null,"main":"lib/main.js"}`, files: []string{"lib/main.js"}},
	"pfalse":    {json: `{"name":"pfalse","exports":false,"main":"main.js"}`, files: []string{"main.js"}},
	"pnum":      {json: `{"name":"pnum","exports":5,"main":"main.js"}`, files: []string{"main.js"}},
	"pempty":    {json: `{"name":"pempty","exports":{},"main":"main.js"}`, files: []string{"main.js", "index.js"}},
	"pemptykey": {json: `{"name":"pemptykey","exports":{"":"./x.js"}}`, files: []string{"x.js"}},
	"pdd":       {json: `{"name":"pdd","exports":{"default":{"default":"./dd.js"}}}`, files: []string{"dd.js"}},
	"parrcond":  {json: `{"name":"parrcond","exports":{".":[{"worker":"./w.js"},"./fallback.js"],"./n":[{"node":"./n.js"},"./f.js"]}}`, files: []string{"fallback.js", "n.js"}},
	"pdup":      {json: `{"name":"pdup","exports":{".":"./first.js",".":"./second.js"}}`, files: []string{"second.js", "first.js"}},
	"pnumkey":   {json: `{"name":"pnumkey","exports":{"1":"./one.js","default":"./d.js"}}`, files: []string{"d.js"}},
	"pdir":      {json: `{"name":"pdir","exports":"./"}`, files: []string{"index.js"}},
	"pmissing":  {json: `{"name":"pmissing","exports":"./dist/index.js","main":"src/index.js"}`, files: []string{"src/index.js"}},
	"pnodot":    {json: `{"name":"pnodot","exports":{"./x":"./x.js"},"main":"main.js"}`, files: []string{"x.js", "main.js"}},
	"@scope/pk": {json: `{"name":"@scope/pk","exports":{".":{"node":"./node.js","default":"./d.js"},"./feat/*":"./f/*.js"}}`, files: []string{"node.js", "f/a.js"}},
	"pslash":    {json: `{"name":"pslash","exports":{"./a/*":"./x/*","./a/b*":"./y/*.js"}}`, files: []string{"x/b/c.js", "y/c.js"}},
	"plong":     {json: `{"name":"plong","exports":{"./*":"./all/*.js","./a/*":"./a/*.js","./a/b/*":"./ab/*.js","./a/b/*.js":"./abjs/*.js"}}`, files: []string{"ab/c.js", "abjs/c.js", "a/x.js", "all/z.js"}},
	// legacy main lookups
	"m-file":     {json: `{"name":"m-file","main":"lib/main.js"}`, files: []string{"lib/main.js", "index.js"}},
	"m-ext":      {json: `{"name":"m-ext","main":"lib/main"}`, files: []string{"lib/main.js"}},
	"m-json":     {json: `{"name":"m-json","main":"data"}`, files: []string{"data.json"}},
	"m-dir":      {json: `{"name":"m-dir","main":"lib"}`, files: []string{"lib/index.js"}},
	"m-dirslash": {json: `{"name":"m-dirslash","main":"lib/"}`, files: []string{"lib/index.json"}},
	"m-missing":  {json: `{"name":"m-missing","main":"missing.js"}`, files: []string{"index.js"}},
	"m-none":     {json: `{"name":"m-none","main":"missing.js"}`, files: []string{"other.js"}},
	"m-index":    {json: `{"name":"m-index"}`, files: []string{"index.js"}},
	"m-indexjs":  {json: `{"name":"m-indexjs"}`, files: []string{"index.json"}},
	"m-dotdot":   {json: `{"name":"m-dotdot","main":"./lib/../main.js"}`, files: []string{"main.js"}},
	"m-pct":      {json: `{"name":"m-pct","main":"a%20b.js"}`, files: []string{"a b.js"}},
	"m-num":      {json: `{"name":"m-num","main":5}`, files: []string{"5", "index.js"}},
	"m-empty":    {json: `{"name":"m-empty","main":""}`, files: []string{"index.js"}},
	"m-query":    {json: `{"name":"m-query","main":"main.js?x"}`, files: []string{"main.js", "index.js"}},
	"m-node":     {json: `{"name":"m-node","main":"bin"}`, files: []string{"bin.node"}},
	"m-dirfirst": {json: `{"name":"m-dirfirst","main":"lib"}`, files: []string{"lib.js", "lib/index.js"}},
}

type exCase struct {
	name, subpath string
	mode          string // "import" or "require"
}

func cases() []exCase {
	var out []exCase
	add := func(name, mode string, subs ...string) {
		for _, s := range subs {
			out = append(out, exCase{name, s, mode})
		}
	}
	paSubs := []string{".", "./web/a", "./web/a/b", "./web/internal/x", "./web/special", "./web/a.css", "./web/",
		"./features/a.js", "./features/x/y.js", "./features/x/y/z.js", "./sub/a.js", "./null", "./arr",
		"./arr-invalid-first", "./arr-all-invalid", "./arr-null-last", "./arr-empty", "./arr-undefined",
		"./arr-undefined-then-invalid", "./arr-invalid-then-null", "./arr-nested", "./nested", "./browser-only",
		"./custom", "./addons", "./module-sync", "./types-only", "./types-first", "./null-condition", "./dotdot",
		"./dot", "./nm", "./NM", "./pct", "./pct-single", "./pct-nm", "./noslash", "./abs", "./backslash",
		"./bs-dotdot", "./num", "./bool", "./numeric-cond", "./two*stars*", "./twoXstarsY", "./trailing/",
		"./trailing/x", "./star-in-target", "./multi/a", "./enc-sep", "./space", "./pct20", "./query",
		"./doubleslash", "./empty-cond", "./cond-with-dot-key", "./web/../x", "./web/%2e%2e/x", "./web/a%2Fb",
		"./web/a%zz", "./web/a#frag", "./web/a?q", "./web/node_modules/x", "./web/%6Eode_modules/x", "./web/a%20b",
		"./web/./a", "./web/a//b", "./tab-escape", "./dup", "./no-star-target/anything", "./malformed", "./missing"}
	add("pa", "import", paSubs...)
	add("pa", "require", ".", "./web/a", "./nested", "./custom", "./arr", "./enc-sep", "./web/zz", "./null", "./noslash", "./numeric-cond", "./module-sync", "./addons")
	add("pb", "import", "./x", "./internal/y", "./features/a.js", "./features/private-internal/m.js", "./features/b.js")
	add("ps", "import", ".", "./x", "./main.js")
	add("parr", "import", ".")
	add("pcond", "import", ".")
	add("pcond", "require", ".")
	add("preq", "import", ".")
	add("preq", "require", ".")
	add("pmix", "import", ".", "./x")
	add("pnull", "import", ".")
	add("pfalse", "import", ".")
	add("pnum", "import", ".")
	add("pempty", "import", ".")
	add("pemptykey", "import", ".")
	add("pdd", "import", ".")
	add("parrcond", "import", ".", "./n")
	add("pdup", "import", ".")
	add("pnumkey", "import", ".")
	add("pdir", "import", ".")
	add("pmissing", "import", ".")
	add("pmissing", "require", ".")
	add("pnodot", "import", ".", "./x")
	add("@scope/pk", "import", ".", "./feat/a")
	add("@scope/pk", "require", ".")
	add("pslash", "import", "./a/b/c", "./a/bc")
	add("plong", "import", "./a/b/c.js", "./a/b/c", "./a/x", "./z")
	for name := range oraclePackages {
		if strings.HasPrefix(name, "m-") {
			add(name, "import", ".")
			add(name, "require", ".")
		}
	}
	return out
}

type nodeAnswer struct {
	OK     bool   `json:"ok"`
	Rel    string `json:"rel"`
	Exists bool   `json:"exists"`
	Code   string `json:"code"`
	Msg    string `json:"msg"`
}

func askNode(t *testing.T, root string, cs []exCase) []nodeAnswer {
	t.Helper()
	type q struct {
		Name    string `json:"name"`
		Subpath string `json:"subpath"`
		Mode    string `json:"mode"`
	}
	var qs []q
	for _, c := range cs {
		qs = append(qs, q{c.name, c.subpath, c.mode})
	}
	script := filepath.Join(root, "oracle.mjs")
	if err := os.WriteFile(script, []byte(oracleScript), 0o644); err != nil {
		t.Fatal(err)
	}
	var reply struct {
		Node    string       `json:"node"`
		Answers []nodeAnswer `json:"answers"`
	}
	testenv.AskNode(t, nil, qs, &reply, "--no-warnings", "--conditions="+customCondition, script, root)
	if len(reply.Answers) != len(cs) {
		t.Fatalf("node answered %d of %d cases", len(reply.Answers), len(cs))
	}
	if reply.Node != testenv.OracleNodeVersion {
		t.Fatalf("the oracle ran node %s, want the pinned %s", reply.Node, testenv.OracleNodeVersion)
	}
	return reply.Answers
}

func writePackages(t *testing.T, root string) {
	t.Helper()
	files := map[string]string{}
	for name, p := range oraclePackages {
		files["node_modules/"+name+"/package.json"] = p.json
		for _, f := range p.files {
			files["node_modules/"+name+"/"+f] = "export default 1\n"
		}
	}
	testenv.WriteFiles(t, root, files)
}

func TestResolveMatchesNode(t *testing.T) {
	testenv.SkipShort(t, "runs node")
	root := t.TempDir()
	writePackages(t, root)
	cs := cases()
	if len(cs) < 60 {
		t.Fatalf("the oracle needs at least 60 cases, has %d", len(cs))
	}
	answers := askNode(t, root, cs)
	pass := 0
	for i, c := range cs {
		a := answers[i]
		got := goAnswer(t, root, c)
		want := nodeView(a)
		if got != want {
			t.Errorf("%s%s (%s):\n   go:   %s\n   node: %s   %s", c.name, c.subpath[1:], c.mode, got, want, a.Msg)
			continue
		}
		pass++
	}
	t.Logf("%d of %d cases agree with node %s", pass, len(cs), testenv.OracleNodeVersion)
}

// nodeView is node's answer in the terms Go's must match: the loaded file, or the error code.
// An import that resolves to a missing file or a folder fails to load (ERR_MODULE_NOT_FOUND):
// import.meta.resolve itself does not check.
func nodeView(a nodeAnswer) string {
	if !a.OK {
		return "error " + a.Code
	}
	return fmt.Sprintf("file %s (exists=%v)", strings.TrimSuffix(a.Rel, "/"), a.Exists)
}

func goAnswer(t *testing.T, root string, c exCase) string {
	dir := filepath.Join(root, "node_modules", filepath.FromSlash(c.name))
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := jsonpos.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool {
		info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		return err == nil && info.Mode().IsRegular()
	}
	conds := append(append([]string{}, ImportConditions...), customCondition)
	if c.mode == "require" {
		conds = append(append([]string{}, RequireConditions...), customCondition)
	}
	exp := pkg.Get("exports")
	if exp == nil || exp.Kind == jsonpos.Null {
		// No exports: only the package's main entry is asked.
		p, how, err := Entry(pkg, exists, conds)
		if err != nil {
			return "error " + codeFor(err, c.mode)
		}
		if how == "" {
			t.Errorf("%s: Entry gave no how", c.name)
		}
		return fmt.Sprintf("file %s (exists=%v)", p, exists(p))
	}
	target, err := Resolve(exp, c.subpath, conds)
	if err != nil {
		return "error " + codeFor(err, c.mode)
	}
	p := strings.TrimSuffix(cleanPath(target), "/")
	ok := exists(p)
	if c.mode == "require" && !ok {
		return "error MODULE_NOT_FOUND" // require checks the file
	}
	if c.subpath == "." {
		// Entry must agree with Resolve and report a missing file.
		ep, how, eerr := Entry(pkg, exists, conds)
		if ok && (eerr != nil || ep != p || !strings.HasPrefix(how, `exports "."`)) {
			t.Errorf("%s: Entry = %q, %q, %v; Resolve gave %q", c.name, ep, how, eerr, p)
		}
		if !ok && eerr == nil {
			t.Errorf("%s: Entry succeeds with %q although %q does not exist", c.name, ep, p)
		}
	}
	return fmt.Sprintf("file %s (exists=%v)", p, ok)
}

// codeFor maps Go's error to the code node reports in that mode.
func codeFor(err error, mode string) string {
	e, ok := err.(*Error)
	if !ok {
		return "untyped: " + err.Error()
	}
	if mode == "require" && e.Code == CodeModuleNotFound {
		return "MODULE_NOT_FOUND" // require's own code
	}
	return e.Code
}
