package releaseplan

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/plaios/plaios/internal/catalog"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/jsonpos"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/release"
)

// Write writes each release's next version into its package.json and runtime manifest in the
// working tree, changing only the version text (formatting, key order, comments and line
// endings stay as they are), prepends each release's entry to the package's CHANGELOG.md
// (unless the file has that version already), and regenerates the catalog when the repository
// has one (left untouched when only its timestamps would change). A plan with refusals writes
// nothing; the files are replaced all together or not at all. It returns the files written,
// relative to the workspace root.
func (r *Result) Write() ([]string, error) {
	plan := r.Plan
	if !plan.OK() {
		return nil, exit.Failf("the plan refuses %d package(s), so nothing was written", len(plan.Refusals))
	}
	head, err := r.repo.Head()
	if err != nil {
		return nil, err
	}
	if head != plan.Head {
		return nil, exit.Usagef("--write changes the checked-out files, but HEAD is %s and the plan is for %s; check out %s or leave out --write", short(head), short(plan.Head), short(plan.Head))
	}
	var edits []edit
	for _, rel := range plan.Releases {
		files := []string{path.Join(rel.Dir, "package.json")}
		if m := r.manifests[rel.Dir]; m != "" {
			files = append(files, m)
		}
		for i, f := range files {
			e, err := r.versionEdit(f, rel.Next, i == 0)
			if err != nil {
				return nil, err
			}
			if e != nil {
				edits = append(edits, *e)
			}
		}
		e, err := r.changelogEdit(rel)
		if err != nil {
			return nil, err
		}
		if e != nil {
			edits = append(edits, *e)
		}
	}
	if r.catalog {
		gen, err := catalog.Generate(r.headFS, catalog.Options{Versions: plan.Versions(), Updated: r.updated})
		if err != nil {
			return nil, exit.Failf("cannot regenerate %s: %v", catalog.File, err)
		}
		file := filepath.Join(r.Root, catalog.File)
		cur, err := os.ReadFile(file)
		switch {
		case err == nil && catalog.Equal(cur, gen):
		case err == nil || errors.Is(err, fs.ErrNotExist):
			edits = append(edits, edit{path: file, rel: catalog.File, old: cur, new: gen, existed: err == nil, mode: 0o644})
		default:
			return nil, exit.Envf("cannot read %s: %v", catalog.File, err)
		}
	}
	if err := commit(edits); err != nil {
		return nil, err
	}
	var written []string
	for _, e := range edits {
		written = append(written, e.rel)
	}
	return written, nil
}

// versionEdit prepares the rewrite of the version in one file of the working tree. A runtime
// manifest without a version is left alone; package.json gets one.
func (r *Result) versionEdit(rel, version string, isPackageJSON bool) (*edit, error) {
	file := filepath.Join(r.Root, filepath.FromSlash(rel))
	st, err := os.Stat(file)
	if err != nil {
		if !isPackageJSON && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, exit.Envf("cannot read %s: %v; the working tree must hold the head's files", rel, errors.Unwrap(err))
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, exit.Envf("cannot read %s: %v", rel, err)
	}
	var out []byte
	switch base := path.Base(rel); {
	case base == pack.PLAIOSManifest:
		out, err = SetYAMLVersion(data, version)
	case base == pack.OpenClawManifest:
		out, err = SetJSONVersion(data, version, true, false)
	default:
		out, err = SetJSONVersion(data, version, false, isPackageJSON)
	}
	if err != nil {
		if errors.Is(err, errNoVersion) {
			return nil, nil
		}
		return nil, exit.Failf("cannot write the version into %s: %v", rel, err)
	}
	if bytes.Equal(out, data) {
		return nil, nil
	}
	return &edit{path: file, rel: rel, old: data, new: out, mode: st.Mode().Perm(), existed: true}, nil
}

var errNoVersion = errors.New("no version field")

// SetJSONVersion replaces the text of the top-level "version" string (every occurrence, when
// the key is repeated) with version, keeping its quote style. With insert, a missing version
// is added after "name" in the file's own indentation; otherwise a missing version is
// errNoVersion.
func SetJSONVersion(data []byte, version string, json5, insert bool) ([]byte, error) {
	var v *jsonpos.Value
	var err error
	if json5 {
		v, err = jsonpos.ParseJSON5(data)
	} else {
		v, err = jsonpos.Parse(data)
	}
	if err != nil {
		return nil, err
	}
	if v.Kind != jsonpos.Object {
		return nil, fmt.Errorf("the file holds a %s, not an object", v.Kind)
	}
	var spans [][2]int
	for _, m := range v.Members {
		if m.Key == "version" {
			spans = append(spans, [2]int{m.Value.Pos.Offset, m.Value.End})
		}
	}
	if len(spans) == 0 {
		if !insert {
			return nil, errNoVersion
		}
		return insertJSONVersion(data, v, version), nil
	}
	var b bytes.Buffer
	last := 0
	for _, s := range spans {
		quote := byte('"')
		if data[s[0]] == '\'' {
			quote = '\''
		}
		b.Write(data[last:s[0]])
		b.WriteByte(quote)
		b.WriteString(version)
		b.WriteByte(quote)
		last = s[1]
	}
	b.Write(data[last:])
	return b.Bytes(), nil
}

// insertJSONVersion adds `"version": "x"` after the "name" member (else first), copying the
// whitespace the file puts before its members.
func insertJSONVersion(data []byte, v *jsonpos.Value, version string) []byte {
	entry := `"version": "` + version + `"`
	if len(v.Members) == 0 {
		open := v.Pos.Offset + 1
		return concat(data[:open], []byte(entry), data[open:])
	}
	first := v.Members[0]
	sep := string(data[v.Pos.Offset+1 : first.KeyPos.Offset]) // e.g. "\n  "
	after := first
	if m := v.Member("name"); m != nil {
		after = m
	}
	at := after.Value.End
	return concat(data[:at], []byte(","+sep+entry), data[at:])
}

func concat(parts ...[]byte) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		b.Write(p)
	}
	return b.Bytes()
}

// SetYAMLVersion replaces the top-level `version` scalar of a YAML mapping in place, keeping
// its style (plain, 'single' or "double" quoted), its comment and everything else.
func SetYAMLVersion(data []byte, version string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the file is not a YAML mapping")
	}
	m := doc.Content[0]
	var node *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "version" {
			node = m.Content[i+1]
		}
	}
	if node == nil {
		return nil, errNoVersion
	}
	if node.Kind != yaml.ScalarNode || node.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return nil, errors.New("version is not a one-line scalar; write it as `version: 1.2.3`")
	}
	start, ok := offsetOf(data, node.Line, node.Column)
	if !ok {
		return nil, errors.New("the version's position is outside the file")
	}
	end, decoded, ok := scalarEnd(data, start)
	if !ok || decoded != node.Value {
		return nil, errors.New("the version's text could not be found safely; write it as `version: 1.2.3`")
	}
	var repl string
	switch data[start] {
	case '"':
		repl = `"` + version + `"`
	case '\'':
		repl = "'" + version + "'"
	default:
		repl = version
	}
	return concat(data[:start], []byte(repl), data[end:]), nil
}

// offsetOf turns yaml.v3's 1-based line and column (counted in characters) into a byte offset.
func offsetOf(data []byte, line, col int) (int, bool) {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	for c := 1; c < col; c++ {
		if off >= len(data) || data[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off, off < len(data)
}

// scalarEnd finds the end of the one-line scalar starting at start and its decoded text.
func scalarEnd(data []byte, start int) (int, string, bool) {
	switch data[start] {
	case '"':
		var b strings.Builder
		for i := start + 1; i < len(data); i++ {
			switch data[i] {
			case '\\':
				if i+1 >= len(data) {
					return 0, "", false
				}
				esc := map[byte]string{'"': `"`, '\\': `\`, '/': "/", 'n': "\n", 't': "\t"}
				s, ok := esc[data[i+1]]
				if !ok {
					return 0, "", false
				}
				b.WriteString(s)
				i++
			case '"':
				return i + 1, b.String(), true
			case '\n', '\r':
				return 0, "", false
			default:
				b.WriteByte(data[i])
			}
		}
	case '\'':
		var b strings.Builder
		for i := start + 1; i < len(data); i++ {
			switch data[i] {
			case '\'':
				if i+1 < len(data) && data[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				return i + 1, b.String(), true
			case '\n', '\r':
				return 0, "", false
			default:
				b.WriteByte(data[i])
			}
		}
	default:
		end := start
		for end < len(data) && data[end] != '\n' && data[end] != '\r' {
			if data[end] == '#' && end > start && (data[end-1] == ' ' || data[end-1] == '\t') {
				break
			}
			if (data[end] == ',' || data[end] == '}' || data[end] == ']') && isFlow(data, start) {
				break
			}
			end++
		}
		text := strings.TrimRight(string(data[start:end]), " \t")
		return start + len(text), text, true
	}
	return 0, "", false
}

// isFlow reports whether the scalar at start sits in a flow mapping (`{version: 1.0.0, …}`).
func isFlow(data []byte, start int) bool {
	lineStart := bytes.LastIndexByte(data[:start], '\n') + 1
	return bytes.ContainsAny(data[lineStart:start], "{[")
}

// edit is one file to replace. Its new content is new, followed by the old file's bytes from
// offset tailAt when tail is set (a prepend streams the old content instead of holding it).
type edit struct {
	path, rel string
	old, new  []byte
	existed   bool
	mode      fs.FileMode

	tail   bool
	tailAt int64
	backup string // a hard link to the old file, for restoring an edit whose old is not held
}

// writeTo writes the edit's new content to f.
func (e *edit) writeTo(f *os.File) error {
	if _, err := f.Write(e.new); err != nil {
		return err
	}
	if !e.tail {
		return nil
	}
	src, err := os.Open(e.path)
	if err != nil {
		return err
	}
	defer src.Close()
	if _, err := src.Seek(e.tailAt, io.SeekStart); err != nil {
		return err
	}
	_, err = io.Copy(f, src)
	return err
}

// keepOld makes sure a replaced file can be restored: a hard link to it when its old content is
// not held, else (no hard links on this file system) its content read.
func (e *edit) keepOld() error {
	if !e.existed || e.old != nil || !e.tail {
		return nil
	}
	name := filepath.Join(filepath.Dir(e.path), fmt.Sprintf(".%s.plaios-old-%d", filepath.Base(e.path), os.Getpid()))
	_ = os.Remove(name)
	if err := os.Link(e.path, name); err == nil {
		e.backup = name
		return nil
	}
	data, err := os.ReadFile(e.path)
	if err != nil {
		return err
	}
	e.old = data
	return nil
}

// commit writes every edit or none: each new content goes to a temporary file next to its
// target first; then the temporary files are renamed over the targets, and when one rename
// fails the targets already replaced get their old content back.
func commit(edits []edit) error { return commitWith(edits, nil) }

// commitWith is commit with a hook run between writing the temporary files and renaming them
// (for tests that make a rename fail).
func commitWith(edits []edit, beforeRename func()) error {
	temps := make([]string, len(edits))
	cleanup := func(from int) {
		for _, t := range temps[from:] {
			if t != "" {
				os.Remove(t)
			}
		}
	}
	for i, e := range edits {
		f, err := os.CreateTemp(filepath.Dir(e.path), "."+filepath.Base(e.path)+".plaios-*")
		if err != nil {
			cleanup(0)
			return exit.Envf("cannot write next to %s: %v; nothing was written", e.rel, errors.Unwrap(err))
		}
		temps[i] = f.Name()
		werr := edits[i].writeTo(f)
		if werr == nil {
			werr = edits[i].keepOld()
		}
		cerr := f.Close()
		if werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Chmod(f.Name(), e.mode)
		}
		if werr != nil {
			cleanup(0)
			return exit.Envf("cannot write %s: %v; nothing was written", e.rel, werr)
		}
	}
	if beforeRename != nil {
		beforeRename()
	}
	defer func() {
		for _, e := range edits {
			if e.backup != "" {
				os.Remove(e.backup)
			}
		}
	}()
	for i, e := range edits {
		if err := os.Rename(temps[i], e.path); err != nil {
			cleanup(i)
			for j := i - 1; j >= 0; j-- {
				restore(edits[j])
			}
			return exit.Envf("cannot replace %s: %v; the files written before it were restored, nothing changed", e.rel, errors.Unwrap(err))
		}
		temps[i] = ""
	}
	return nil
}

// restore puts a replaced file's old content back (or removes a file that was new).
func restore(e edit) {
	if !e.existed {
		os.Remove(e.path)
		return
	}
	if e.backup != "" {
		if os.Rename(e.backup, e.path) == nil {
			return
		}
	}
	if f, err := os.CreateTemp(filepath.Dir(e.path), ".plaios-restore-*"); err == nil {
		_, werr := f.Write(e.old)
		f.Close()
		if werr == nil && os.Chmod(f.Name(), e.mode) == nil && os.Rename(f.Name(), e.path) == nil {
			return
		}
		os.Remove(f.Name())
	}
	_ = os.WriteFile(e.path, e.old, e.mode)
}

// changelogEdit prepares the prepend of a release's entry to its package's CHANGELOG.md, as
// changesets does it: after the file's first line when that is a `# ` heading, else at the top;
// a missing or empty file is created with a `# <name>` heading. A file that has a `## <version>`
// heading for the release already is left as it is (nil). The old content is streamed, never
// held: a changelog may be long.
func (r *Result) changelogEdit(rel release.Release) (*edit, error) {
	if rel.Changelog == "" {
		return nil, nil
	}
	name := path.Join(rel.Dir, release.ChangelogFile)
	file := filepath.Join(r.Root, filepath.FromSlash(name))
	entry := rel.Changelog
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return &edit{path: file, rel: name, new: []byte("# " + rel.Name + "\n\n" + entry), mode: 0o644}, nil
	}
	if err != nil {
		return nil, exit.Envf("cannot read %s: %v", name, errors.Unwrap(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, exit.Failf("%s is not a regular file; make it one (or remove it) so that the release can be added to it", name)
	}
	if has, err := release.HasChangelogVersion(f, rel.Next); err != nil {
		return nil, exit.Envf("cannot read %s: %v", name, err)
	} else if has {
		return nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, exit.Envf("cannot read %s: %v", name, err)
	}
	e := &edit{path: file, rel: name, existed: true, mode: st.Mode().Perm(), tail: true}
	if st.Size() == 0 {
		e.new, e.tail = []byte("# "+rel.Name+"\n\n"+entry), false
		return e, nil
	}
	first, err := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, exit.Envf("cannot read %s: %v", name, err)
	}
	crlf := bytes.HasSuffix(first, []byte("\r\n"))
	if crlf {
		entry = strings.ReplaceAll(entry, "\n", "\r\n")
	}
	nl := "\n"
	if crlf {
		nl = "\r\n"
	}
	heading := bytes.TrimRight(first, "\r\n")
	if !bytes.HasPrefix(heading, []byte("# ")) || errors.Is(err, bufio.ErrBufferFull) {
		// No title line: the entry goes first, then the file as it was.
		e.new = []byte(entry + nl)
		return e, nil
	}
	// "# name", a blank line, the entry, then the rest of the file after the first line (its
	// blank line before the previous "## " heading separates the two entries).
	e.new = append(append([]byte{}, heading...), []byte(nl+nl+entry)...)
	e.tailAt = int64(len(first))
	e.tail = st.Size() > e.tailAt
	return e, nil
}
