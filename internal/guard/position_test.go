package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// packSource is a pack's TypeScript source: types the compiler drops above the tool, so that
// the built file's lines differ from the source's, and a schema with a typo in it.
const packSource = `// A tool whose schema has a typo that only guard sees: the schema is built in code.
interface SearchArgs {
  q: string;
  limit?: number;
}

type Result = { success: boolean; output: unknown };

export function createExtensionPack(): { name: string; descriptors: unknown[] } {
  const search = {
    id: 'search',
    name: 'search',
    displayName: 'Search',
    description: 'Searches.',
    inputSchema: {
      type: 'object',
      properties: {
        q: { type: 'string', requried: true },
        limit: { type: 'integer' },
      },
    },
    async execute(args: SearchArgs): Promise<Result> {
      return { success: true, output: args.q };
    },
  };
  return { name: 'search', descriptors: [{ id: 'search', kind: 'tool', payload: search }] };
}
`

// lineColOf is the 1-based line and column where needle starts in text.
func lineColOf(t *testing.T, text, needle string) (int, int) {
	t.Helper()
	i := strings.Index(text, needle)
	if i < 0 {
		t.Fatalf("%q is not in the text", needle)
	}
	line := strings.Count(text[:i], "\n") + 1
	return line, i - strings.LastIndex(text[:i], "\n")
}

// TestSchemaPositions: a schema finding points at the TypeScript source line that wrote the
// schema when the build left a source map (a .map file, or one inlined), and at the built file
// when it left none or the source is not in the package folder — never at package.json:0:0.
// The packs are compiled by the pinned tsc (testenv.OracleTSC, the templates' TypeScript), all
// four in one build (`tsc -b`, one tsconfig.json each).
func TestSchemaPositions(t *testing.T) {
	t.Parallel() // see baseOptions
	tsc := testenv.OracleTSC(t)
	dir := t.TempDir()
	files := map[string]string{"package.json": `{"name":"positions","private":true,"workspaces":["registry/curated/*/*"]}`}
	packs := map[string]string{ // name → compiler options besides the common ones
		"mapped": `"sourceMap":true`,
		"inline": `"inlineSourceMap":true,"inlineSources":true`,
		"plain":  "",
		"no-src": `"sourceMap":true`,
	}
	var projects []string
	for name, options := range packs {
		d := "registry/curated/tools/" + name + "/"
		files[d+"package.json"] = `{"name":"@guard-pos/agentos-ext-` + name + `","version":"1.0.0","type":"module","main":"./dist/index.js",
"exports":{".":{"import":"./dist/index.js"},"./manifest.json":"./manifest.json"},"files":["dist","manifest.json"],
"license":"Apache-2.0","publishConfig":{"access":"public"},"peerDependencies":{"@framers/agentos":">=0.1.0"}}`
		files[d+"manifest.json"] = `{"id":"com.guard-pos.` + name + `","name":"` + name + `","version":"1.0.0","extensions":[{"kind":"tool","id":"search"}]}`
		files[d+"README.md"] = "# " + name + "\n\n```js\nimport pack from 'x';\n```\n"
		files[d+"src/index.ts"] = packSource
		if options != "" {
			options = "," + options
		}
		files[d+"tsconfig.json"] = `{"compilerOptions":{"outDir":"dist","rootDir":"src","target":"es2022","module":"es2022","moduleResolution":"bundler","strict":true,"skipLibCheck":true` + options + `},"files":["src/index.ts"]}`
		projects = append(projects, d)
	}
	testenv.WriteFiles(t, dir, files)
	testenv.Run(t, dir, nil, tsc, append([]string{"-b"}, projects...)...)
	for name := range packs {
		pd := filepath.Join(dir, "registry", "curated", "tools", name)
		if _, err := os.Stat(filepath.Join(pd, "dist", "index.js")); err != nil {
			t.Fatalf("tsc -b built nothing for %s: %v", name, err)
		}
		if name == "no-src" {
			if err := os.RemoveAll(filepath.Join(pd, "src")); err != nil {
				t.Fatal(err)
			}
		}
	}
	opts := baseOptions(t, dir)
	opts.All = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	srcLine, srcCol := lineColOf(t, packSource, "requried")
	for name := range packs {
		r := byDir(rep)["registry/curated/tools/"+name]
		if r == nil || r.OK {
			t.Fatalf("%s: %+v", name, r)
		}
		d := r.Diagnostics[0]
		if d.Rule != "schema-keyword-unknown" || !strings.HasPrefix(d.Message, `tool "search" inputSchema /properties/q/requried: "requried" is not a draft-07 keyword`) || d.Hint != `Did you mean "required"?` {
			t.Errorf("%s: %+v", name, d)
		}
		want := ""
		switch name {
		case "mapped", "inline":
			want = fmt.Sprintf("registry/curated/tools/%s/src/index.ts:%d:%d", name, srcLine, srcCol)
		default:
			built, err := os.ReadFile(filepath.Join(dir, "registry", "curated", "tools", name, "dist", "index.js"))
			if err != nil {
				t.Fatal(err)
			}
			l, c := lineColOf(t, string(built), "requried")
			if l == srcLine {
				t.Fatalf("the built file has the typo on the source's line %d: the test proves nothing", l)
			}
			want = fmt.Sprintf("registry/curated/tools/%s/dist/index.js:%d:%d", name, l, c)
		}
		if got := fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Col); got != want {
			t.Errorf("%s: the finding points at %s, want %s", name, got, want)
		}
	}
}
