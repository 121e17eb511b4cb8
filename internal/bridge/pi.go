package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/pack"
)

// PiResult is the package.json a Pi package calls for.
type PiResult struct {
	File    string
	Old     []byte
	New     []byte
	Changes []string // what changed, one short phrase each
	Notes   []string // what the user should look at, unchanged
	Entry   string   // the extension entry pi.extensions names
}

// Changed reports whether the file changes.
func (r *PiResult) Changed() bool { return !bytes.Equal(r.Old, r.New) }

// PiEntry is the extension entry of a package: pi.extensions' first when it has one, else
// the package's main entry (exports ".", import or default, then main), else "".
func PiEntry(p *Pack) string {
	if e := EntryFile(p, "pi"); e != "" {
		return e
	}
	pj := p.Pack.Pkg.JSON.Value
	exp := pj.Get("exports")
	var cand string
	switch {
	case exp == nil:
	case exp.Kind == jsonpos.String:
		cand = exp.Str
	case exp.Kind == jsonpos.Object:
		dot := exp.Get(".")
		if dot == nil && len(exp.Members) > 0 && !strings.HasPrefix(exp.Members[0].Key, ".") {
			dot = exp // conditions at the top
		}
		switch {
		case dot == nil:
		case dot.Kind == jsonpos.String:
			cand = dot.Str
		case dot.Kind == jsonpos.Object:
			for _, k := range []string{"import", "default", "node"} {
				if v := dot.Get(k); v != nil && v.Kind == jsonpos.String {
					cand = v.Str
					break
				}
			}
		}
	}
	if cand == "" {
		cand = pj.Get("main").Text()
	}
	if cand == "" {
		return ""
	}
	if !strings.HasPrefix(cand, "./") {
		cand = "./" + strings.TrimPrefix(cand, "/")
	}
	return cand
}

// PiPackage edits package.json for Pi: the pi field naming the extension entry, the Pi core
// packages its code imports as peers with range "*" (Pi's docs/packages.md, "Declare
// dependencies": Pi supplies them, so a package declares them as peers and never bundles
// them; a core package already a peer gets "*" too), and the pi-package keyword. Only the
// bytes of what changes are touched: the rest of the file keeps its layout, indentation and
// key order.
func PiPackage(p *Pack, entry string) (*PiResult, error) {
	file := filepath.Join(p.Dir, "package.json")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	root, err := jsonpos.Parse(data)
	if err != nil || root.Kind != jsonpos.Object {
		return nil, fmt.Errorf("package.json does not hold a JSON object")
	}
	r := &PiResult{File: file, Old: data, Entry: entry}
	e := &editor{src: data, nl: "\n"}
	if bytes.Contains(data, []byte("\r\n")) {
		e.nl = "\r\n"
	}
	e.unit = indentUnit(data, root)

	// pi.extensions
	piVal := root.Get("pi")
	switch {
	case piVal == nil:
		e.addMember(root, "pi", orderedOf("extensions", []any{entry}))
		r.Changes = append(r.Changes, fmt.Sprintf("pi.extensions: [%s]", jsonString(entry)))
	case piVal.Kind != jsonpos.Object:
		return nil, fmt.Errorf(`package.json's "pi" is not an object; make it {"extensions": [%s]}`, jsonString(entry))
	default:
		exts := piVal.Get("extensions")
		switch {
		case exts == nil:
			e.addMember(piVal, "extensions", []any{entry})
			r.Changes = append(r.Changes, fmt.Sprintf("pi.extensions: [%s]", jsonString(entry)))
		case exts.Kind != jsonpos.Array:
			return nil, fmt.Errorf(`package.json's "pi.extensions" is not an array; make it [%s]`, jsonString(entry))
		default:
			found := false
			for _, it := range exts.Items {
				if it.Kind == jsonpos.String && it.Str == entry {
					found = true
				}
			}
			if !found {
				e.appendItem(exts, entry)
				r.Changes = append(r.Changes, fmt.Sprintf("pi.extensions: added %s", jsonString(entry)))
			}
		}
	}

	// peerDependencies: each Pi core package the shipped code imports, and each one already
	// a peer, with "*".
	imported, err := piCoreImported(p)
	if err != nil {
		return nil, fmt.Errorf("cannot list the files npm packs: %v", err)
	}
	peers := root.Get("peerDependencies")
	if peers != nil && peers.Kind != jsonpos.Object {
		return nil, fmt.Errorf(`package.json's "peerDependencies" is not an object`)
	}
	var need []string
	for _, name := range pack.PiCorePackages {
		if imported[name] || peers.Member(name) != nil {
			need = append(need, name)
		}
	}
	switch {
	case len(need) == 0:
	case peers == nil || len(peers.Members) == 0:
		o := jsonpos.NewOrderedObject()
		for _, name := range need {
			o.Set(name, "*")
		}
		if peers == nil {
			e.addMember(root, "peerDependencies", o)
		} else {
			e.replace(peers, o)
		}
		r.Changes = append(r.Changes, fmt.Sprintf("peerDependencies: %s with \"*\"", strings.Join(need, ", ")))
	default:
		for _, name := range need {
			m := peers.Member(name)
			switch {
			case m == nil:
				e.addMember(peers, name, "*")
				r.Changes = append(r.Changes, fmt.Sprintf("peerDependencies: %s \"*\"", name))
			case m.Value.Kind != jsonpos.String || m.Value.Str != "*":
				e.replace(m.Value, "*")
				r.Changes = append(r.Changes, fmt.Sprintf("peerDependencies: %s \"*\" (was %s)", name, string(data[m.Value.Pos.Offset:m.Value.End])))
			}
		}
	}
	for _, field := range []string{"dependencies", "bundleDependencies", "bundledDependencies"} {
		deps := root.Get(field)
		for _, name := range pack.PiCorePackages {
			if deps != nil && (deps.Get(name) != nil || containsString(deps.Strings(), name)) {
				r.Notes = append(r.Notes, fmt.Sprintf("%s is also in %s; Pi provides its core packages, so a Pi package takes them as peers only", name, field))
			}
		}
	}

	// keywords
	kw := root.Get("keywords")
	switch {
	case kw == nil:
		e.addMember(root, "keywords", []any{"pi-package"})
		r.Changes = append(r.Changes, "keywords: pi-package")
	case kw.Kind != jsonpos.Array:
		return nil, fmt.Errorf(`package.json's "keywords" is not an array`)
	case !containsString(kw.Strings(), "pi-package"):
		e.appendItem(kw, "pi-package")
		r.Changes = append(r.Changes, "keywords: added pi-package")
	}

	r.New = e.apply()
	if err := verifyPi(data, r.New, entry); err != nil {
		return nil, err
	}
	return r, nil
}

// piCoreImported are the Pi core packages the pack's code imports: a quoted specifier of the
// package or a path in it ('typebox', "@earendil-works/pi-tui/dist/x.js") after from, import,
// import( or require( in a JavaScript or TypeScript file npm packs — a string that only names
// one (a list of framework names) is no import. Bundled packages (node_modules) are not the
// pack's code, and declaration files are left out: a type-only import needs nothing at run
// time. Each file is read in pieces, never whole.
func piCoreImported(p *Pack) (map[string]bool, error) {
	list, err := p.Pack.Shipped()
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	buf := make([]byte, 64<<10)
	for _, f := range list.Files() {
		if !isScript(f) || f == "node_modules" || strings.HasPrefix(f, "node_modules/") || strings.Contains(f, "/node_modules/") {
			continue
		}
		err := scanFile(p.Pack.WS.FS, path.Join(p.Pack.Dir, f), buf, piSpecifierSpan, func(chunk []byte) {
			for _, m := range piCoreSpecifier.FindAllSubmatch(chunk, -1) {
				found[string(m[1])] = true
			}
		})
		if err != nil {
			return nil, err
		}
		if len(found) == len(pack.PiCorePackages) {
			break
		}
	}
	return found, nil
}

// piCoreSpecifier matches an import of a Pi core package; piSpecifierSpan is longer than any
// match, the overlap scanFile keeps between reads.
var (
	piCoreSpecifier = func() *regexp.Regexp {
		names := make([]string, len(pack.PiCorePackages))
		for i, n := range pack.PiCorePackages {
			names[i] = regexp.QuoteMeta(n)
		}
		return regexp.MustCompile(`(?:\bfrom|\bimport|\brequire\s{0,8}\(|\bimport\s{0,8}\()\s{0,16}['"` + "`" + `](` + strings.Join(names, "|") + `)['"` + "`" + `/]`)
	}()
	piSpecifierSpan = 128
)

// isScript says whether a file is JavaScript or TypeScript other than a declaration file.
func isScript(name string) bool {
	switch path.Ext(name) {
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx":
		return !strings.HasSuffix(name, ".d.ts") && !strings.HasSuffix(name, ".d.mts") && !strings.HasSuffix(name, ".d.cts")
	}
	return false
}

// scanFile hands match the file through buf, piece by piece, each piece beginning with the
// last keep bytes of the one before, so that a match up to keep bytes long split across two
// reads is whole in one of them.
func scanFile(fsys fs.FS, name string, buf []byte, keep int, match func([]byte)) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	have := 0
	for {
		n, err := io.ReadFull(f, buf[have:])
		have += n
		match(buf[:have])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
		tail := min(keep, have)
		copy(buf, buf[have-tail:have])
		have = tail
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orderedOf(k string, v any) *object {
	o := jsonpos.NewOrderedObject()
	o.Set(k, v)
	return o
}

// verifyPi reads the edited file back: the same document with the Pi fields set.
func verifyPi(before, after []byte, entry string) error {
	var a, b map[string]any
	if err := json.Unmarshal(before, &a); err != nil {
		return err
	}
	if err := json.Unmarshal(after, &b); err != nil {
		return fmt.Errorf("editing package.json would break it (%v); edit it by hand", err)
	}
	for _, k := range []string{"pi", "peerDependencies", "keywords"} {
		delete(a, k)
		delete(b, k)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		return fmt.Errorf("editing package.json would change other fields; edit it by hand")
	}
	return nil
}

// editor collects byte edits of a JSON text and applies them at once.
type editor struct {
	src   []byte
	nl    string
	unit  string // one level of indentation as the file writes it
	edits []edit
}

type edit struct {
	at, end int
	text    string
}

func (e *editor) apply() []byte {
	// From the end of the text back, so that offsets stay true; edits at one offset go in
	// the order they were made.
	order := make([]int, len(e.edits))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := e.edits[order[i]], e.edits[order[j]]
		if a.at != b.at {
			return a.at > b.at
		}
		return order[i] > order[j]
	})
	edits := make([]edit, len(order))
	for i, k := range order {
		edits[i] = e.edits[k]
	}
	e.edits = edits
	out := append([]byte(nil), e.src...)
	for _, ed := range e.edits {
		out = append(out[:ed.at], append([]byte(ed.text), out[ed.end:]...)...)
	}
	return out
}

// lineIndent is the whitespace that starts the line holding offset.
func (e *editor) lineIndent(offset int) string {
	start := bytes.LastIndexByte(e.src[:offset], '\n') + 1
	end := start
	for end < len(e.src) && (e.src[end] == ' ' || e.src[end] == '\t') {
		end++
	}
	return string(e.src[start:end])
}

func (e *editor) replace(v *jsonpos.Value, value any) {
	e.edits = append(e.edits, edit{v.Pos.Offset, v.End, e.render(value, e.lineIndent(v.Pos.Offset))})
}

// addMember adds "key": value at the end of an object, laid out as its members are.
func (e *editor) addMember(obj *jsonpos.Value, key string, value any) {
	var b strings.Builder
	b.Write(jsonpos.AppendJSString(nil, key))
	if len(obj.Members) == 0 {
		base := e.lineIndent(obj.Pos.Offset)
		inner := base + e.unit
		text := e.nl + inner + b.String() + ": " + e.render(value, inner) + e.nl + base
		// Replace whatever is between the braces (whitespace only).
		e.edits = append(e.edits, edit{obj.Pos.Offset + 1, obj.End - 1, text})
		return
	}
	last := obj.Members[len(obj.Members)-1]
	if e.lineOf(last.KeyPos.Offset) == e.lineOf(obj.Pos.Offset) {
		// A one-line object: stay on the line.
		e.edits = append(e.edits, edit{last.Value.End, last.Value.End, ", " + b.String() + ": " + e.render(value, "")})
		return
	}
	indent := e.lineIndent(last.KeyPos.Offset)
	e.edits = append(e.edits, edit{last.Value.End, last.Value.End, "," + e.nl + indent + b.String() + ": " + e.render(value, indent)})
}

// appendItem adds value at the end of an array, laid out as its items are.
func (e *editor) appendItem(arr *jsonpos.Value, value any) {
	if len(arr.Items) == 0 {
		e.edits = append(e.edits, edit{arr.Pos.Offset + 1, arr.End - 1, e.render(value, "")})
		return
	}
	last := arr.Items[len(arr.Items)-1]
	if e.lineOf(last.Pos.Offset) == e.lineOf(arr.Pos.Offset) {
		e.edits = append(e.edits, edit{last.End, last.End, ", " + e.render(value, "")})
		return
	}
	indent := e.lineIndent(last.Pos.Offset)
	e.edits = append(e.edits, edit{last.End, last.End, "," + e.nl + indent + e.render(value, indent)})
}

func (e *editor) lineOf(offset int) int { return bytes.Count(e.src[:offset], []byte{'\n'}) }

// render writes a value nested at indent, with the file's indentation unit.
func (e *editor) render(v any, indent string) string {
	var b strings.Builder
	e.write(&b, v, indent)
	return b.String()
}

func (e *editor) write(b *strings.Builder, v any, indent string) {
	b.Write(jsonpos.Stringifier{Indent: e.unit, Newline: e.nl}.Append(nil, v, indent))
}

// indentUnit is one level of the file's indentation: the first member's, else two spaces.
func indentUnit(src []byte, root *jsonpos.Value) string {
	for _, m := range root.Members {
		start := bytes.LastIndexByte(src[:m.KeyPos.Offset], '\n') + 1
		if start == 0 {
			continue
		}
		ws := string(src[start:m.KeyPos.Offset])
		if strings.TrimLeft(ws, " \t") == "" && ws != "" {
			return ws
		}
	}
	return "  "
}

// ReadPackageJSONBytes parses package.json text, for loading an extension with fields not
// yet written.
func ReadPackageJSONBytes(data []byte) (*jsonpos.Value, error) {
	v, err := jsonpos.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("package.json does not parse: %v", err)
	}
	return v, nil
}
