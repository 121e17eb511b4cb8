package guard

import (
	"bytes"
	"encoding/base64"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-sourcemap/sourcemap"

	"github.com/plaios/plaios/internal/pack"
)

// A tool's schema reaches guard as a value the loaded code built, without a position. To
// point a finding at the line that wrote it, guard looks for the schema in the package's built
// JavaScript (the property keys along the finding's JSON pointer, nearest the tool's name) and,
// when the build left a source map, follows it back to the TypeScript source. Packs whose
// schemas are built by a library (TypeBox, zod) may have no such keys: the finding then points
// at the tool's name in the built file, and failing that at the entry.

// maxSearched bounds the size of one built file guard reads to find a schema.
const maxSearched = 8 << 20

// sourceFile is one built JavaScript file of a package.
type sourceFile struct {
	rel  string // slash path inside the package
	data []byte
}

// locator finds positions in one installed package's built files; it reads them once, and
// only when a finding needs a position.
type locator struct {
	dir    string // the installed package
	loaded bool
	files  []sourceFile
	maps   map[string]*sourcemap.Consumer // by built file; nil when it has none
}

func newLocator(dir string) *locator {
	return &locator{dir: dir, maps: map[string]*sourcemap.Consumer{}}
}

func (l *locator) load() {
	if l.loaded {
		return
	}
	l.loaded = true
	_ = filepath.WalkDir(l.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == "node_modules" && p != l.dir {
				return filepath.SkipDir
			}
			return nil
		}
		switch path.Ext(d.Name()) {
		case ".js", ".mjs", ".cjs":
		default:
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxSearched {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(l.dir, p)
		l.files = append(l.files, sourceFile{rel: filepath.ToSlash(rel), data: data})
		return nil
	})
	sort.Slice(l.files, func(i, j int) bool { return l.files[i].rel < l.files[j].rel })
}

// position is where a finding points: a file inside the package (slash path) and a 1-based
// line and column.
type position struct {
	file      string
	line, col int
	off       int // byte offset in the built file (for the source map)
}

// find returns where the schema of tool (its JSON pointer tokens, with the property that holds
// the schema first: inputSchema, parameters, outputSchema) is written in the built files, or
// false.
func (l *locator) find(tool string, keys []string) (position, bool) {
	l.load()
	type hit struct {
		file  int
		off   int
		score int
		dist  int
	}
	var best *hit
	better := func(h hit) bool {
		if best == nil {
			return true
		}
		if h.score != best.score {
			return h.score > best.score
		}
		return h.dist < best.dist
	}
	var chain []string // the object keys along the pointer; array indexes are not written
	for _, k := range keys {
		if k != "" && !isIndex(k) {
			chain = append(chain, k)
		}
	}
	for fi, f := range l.files {
		names := literalOffsets(f.data, tool)
		if len(chain) == 0 {
			for _, o := range names {
				if h := (hit{fi, o, 1, 0}); better(h) {
					best = &h
				}
			}
			continue
		}
		last := chain[len(chain)-1]
		for _, o := range keyOffsets(f.data, last, 0, len(f.data)) {
			score, from := 2, o
			for i := len(chain) - 2; i >= 0; i-- {
				lo := max(0, from-4096)
				if offs := keyOffsets(f.data, chain[i], lo, from); len(offs) > 0 {
					from = offs[len(offs)-1]
					score += 2
				}
			}
			dist := len(f.data)
			for _, n := range names {
				dist = min(dist, abs(n-o))
			}
			if dist < 8192 {
				score++
			}
			if h := (hit{fi, o, score, dist}); better(h) {
				best = &h
			}
		}
	}
	if best == nil {
		return position{}, false
	}
	f := l.files[best.file]
	line, col := lineCol(f.data, best.off)
	return position{file: f.rel, line: line, col: col, off: best.off}, true
}

// original maps a position in a built file back through its source map to the source, when
// the map names one inside the package; ok is false without a map or a mapping.
func (l *locator) original(p position) (position, bool) {
	var data []byte
	for _, f := range l.files {
		if f.rel == p.file {
			data = f.data
		}
	}
	if data == nil {
		return position{}, false
	}
	c, ok := l.maps[p.file]
	if !ok {
		c = l.readMap(p.file, data)
		l.maps[p.file] = c
	}
	if c == nil {
		return position{}, false
	}
	lineStart := bytes.LastIndexByte(data[:p.off], '\n') + 1
	// Source maps count columns in UTF-16 code units from 0.
	genCol := len(utf16.Encode([]rune(string(data[lineStart:p.off]))))
	src, _, line, col, ok := c.Source(p.line, genCol)
	if !ok || src == "" || line < 1 {
		return position{}, false
	}
	rel, inside := pack.InsidePackage(path.Join(path.Dir(p.file), src))
	if !inside || strings.Contains(src, "://") {
		return position{}, false
	}
	return position{file: rel, line: line, col: col + 1}, true
}

// readMap reads the source map a built file names (//# sourceMappingURL=, a file or an inline
// data: URL), else the file next to it with .map added; nil when there is none. Source paths
// stay relative to the map's folder.
func (l *locator) readMap(rel string, data []byte) *sourcemap.Consumer {
	var raw []byte
	if i := bytes.LastIndex(data, []byte("sourceMappingURL=")); i >= 0 {
		ref := string(data[i+len("sourceMappingURL="):])
		if j := strings.IndexAny(ref, " \t\r\n*"); j >= 0 {
			ref = ref[:j]
		}
		if strings.HasPrefix(ref, "data:") {
			if k := strings.Index(ref, ";base64,"); k >= 0 {
				raw, _ = base64.StdEncoding.DecodeString(ref[k+len(";base64,"):])
			}
		} else if ref != "" {
			if u, err := url.PathUnescape(ref); err == nil {
				ref = u
			}
			if mp, ok := pack.InsidePackage(path.Join(path.Dir(rel), ref)); ok {
				raw = readSmall(filepath.Join(l.dir, filepath.FromSlash(mp)))
			}
		}
	}
	if raw == nil {
		raw = readSmall(filepath.Join(l.dir, filepath.FromSlash(rel)) + ".map")
	}
	if raw == nil {
		return nil
	}
	c, err := sourcemap.Parse("", raw)
	if err != nil {
		return nil
	}
	return c
}

func readSmall(p string) []byte {
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxSearched {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	return data
}

// keyOffsets returns where key is written as an object property key in data[lo:hi]: key:,
// "key": or 'key': (with spaces before the colon), not preceded by an identifier character.
func keyOffsets(data []byte, key string, lo, hi int) []int {
	var out []int
	k := []byte(key)
	for i := lo; i < hi; {
		j := bytes.Index(data[i:hi], k)
		if j < 0 {
			break
		}
		at := i + j
		i = at + 1
		start, end := at, at+len(k)
		if start > 0 && end < len(data) && (data[start-1] == '"' || data[start-1] == '\'') && data[end] == data[start-1] {
			start--
			end++
		} else if !identifierKey(key) {
			continue
		}
		if start > 0 && isIdentByte(data[start-1]) {
			continue
		}
		e := end
		for e < len(data) && (data[e] == ' ' || data[e] == '\t') {
			e++
		}
		if e < len(data) && data[e] == ':' && (e+1 >= len(data) || data[e+1] != ':') {
			out = append(out, start)
		}
	}
	return out
}

// literalOffsets returns where s is written as a string literal ('s', "s" or `s`).
func literalOffsets(data []byte, s string) []int {
	if s == "" {
		return nil
	}
	var out []int
	for _, q := range []byte{'\'', '"', '`'} {
		lit := append(append([]byte{q}, s...), q)
		for i := 0; ; {
			j := bytes.Index(data[i:], lit)
			if j < 0 {
				break
			}
			out = append(out, i+j)
			i += j + 1
		}
	}
	sort.Ints(out)
	return out
}

func identifierKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if !isIdentByte(k[i]) {
			return false
		}
	}
	return k != ""
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func isIndex(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// lineCol is the 1-based line and column (in characters) of a byte offset.
func lineCol(data []byte, off int) (int, int) {
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, utf8.RuneCount(data[start:off]) + 1
}
