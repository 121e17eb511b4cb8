package git

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/plaios/plaios/internal/exit"
)

// Tree is the file tree of one commit as an io/fs.FS. It implements fs.ReadDirFS,
// fs.ReadFileFS, fs.StatFS and fs.ReadLinkFS: Open, Stat and ReadFile follow symbolic links
// inside the tree (as os.DirFS does), Lstat, ReadLink and ReadDir report them as links.
// Submodules appear as empty folders. It is safe for concurrent use.
type Tree struct {
	repo   *Repo
	commit string
	when   time.Time
	root   *entry
	byPath map[string]*entry
}

type entry struct {
	name     string
	path     string
	mode     fs.FileMode
	oid      string
	size     atomic.Int64 // -1 until a blob's size is asked for (ls-tree -l costs a lookup per file)
	children []*entry     // folders, sorted by name
}

// TreeFS lists the tree of rev with one `git ls-tree` and returns it as a file system whose
// files are read on demand.
func (r *Repo) TreeFS(rev string) (fs.FS, error) { return r.Tree(rev) }

// Tree is TreeFS with the concrete type.
func (r *Repo) Tree(rev string) (*Tree, error) {
	id, err := r.RevParse(rev)
	if err != nil {
		return nil, err
	}
	out, err := r.run("list the files of "+rev, "ls-tree", "-r", "-z", "--full-tree", id)
	if err != nil {
		return nil, err
	}
	t := &Tree{repo: r, commit: id, root: &entry{name: ".", path: ".", mode: fs.ModeDir | 0o755}, byPath: map[string]*entry{}}
	out = bytes.TrimRight(out, "\x00")
	t.byPath["."] = t.root
	for len(out) > 0 {
		i := bytes.IndexByte(out, 0)
		if i < 0 {
			i = len(out)
		}
		rec := string(out[:i])
		out = out[min(i+1, len(out)):]
		if rec == "" {
			continue
		}
		meta, name, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, exit.Envf("git ls-tree printed %q; check the repository", rec)
		}
		e := &entry{name: path.Base(name), path: name, oid: f[2]}
		switch f[0] {
		case "120000":
			e.mode = fs.ModeSymlink | 0o777
		case "100755":
			e.mode = 0o755
		case "160000":
			e.mode = fs.ModeDir | 0o755
		case "040000":
			e.mode = fs.ModeDir | 0o755
		default:
			e.mode = 0o644
		}
		if e.mode.IsDir() {
			e.size.Store(0)
		} else {
			e.size.Store(-1)
		}
		parent := t.mkdirAll(path.Dir(name))
		parent.children = append(parent.children, e)
		t.byPath[name] = e
	}
	for _, e := range t.byPath {
		if e.mode.IsDir() {
			sort.Slice(e.children, func(i, j int) bool { return e.children[i].name < e.children[j].name })
		}
	}
	return t, nil
}

func (t *Tree) mkdirAll(dir string) *entry {
	if e, ok := t.byPath[dir]; ok {
		return e
	}
	parent := t.mkdirAll(path.Dir(dir))
	e := &entry{name: path.Base(dir), path: dir, mode: fs.ModeDir | 0o755}
	parent.children = append(parent.children, e)
	t.byPath[dir] = e
	return e
}

// Commit is the commit the tree belongs to.
func (t *Tree) Commit() string { return t.commit }

// Files lists every regular file and symbolic link, sorted.
func (t *Tree) Files() []string {
	var out []string
	for p, e := range t.byPath {
		if !e.mode.IsDir() {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Hash returns the blob id of a file ("" when there is no such file), without reading it.
func (t *Tree) Hash(name string) string {
	if e, ok := t.byPath[name]; ok && !e.mode.IsDir() {
		return e.oid
	}
	return ""
}

// lookup finds name, following symbolic links in every component (and in the last one when
// follow is set), staying inside the tree.
func (t *Tree) lookup(op, name string, follow bool) (*entry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return t.root, nil
	}
	e, err := t.walk(name, follow, 0)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return e, nil
}

func (t *Tree) walk(name string, follow bool, hops int) (*entry, error) {
	if hops > 40 {
		return nil, errors.New("too many levels of symbolic links")
	}
	if e, ok := t.byPath[name]; ok && (!follow || e.mode&fs.ModeSymlink == 0) {
		// Fast path: no link on the way is the common case; check the parents.
		if t.parentsPlain(name) {
			return e, nil
		}
	}
	parts := strings.Split(name, "/")
	cur := "."
	for i, p := range parts {
		next := p
		if cur != "." {
			next = cur + "/" + p
		}
		e, ok := t.byPath[next]
		if !ok {
			return nil, fs.ErrNotExist
		}
		last := i == len(parts)-1
		if e.mode&fs.ModeSymlink != 0 && (!last || follow) {
			target, err := t.readLink(e)
			if err != nil {
				return nil, err
			}
			resolved, ok := joinInside(path.Dir(next), target)
			if !ok {
				return nil, fs.ErrNotExist
			}
			if resolved == "." {
				if last {
					return t.root, nil
				}
				cur = "."
				continue
			}
			te, err := t.walk(resolved, true, hops+1)
			if err != nil {
				return nil, err
			}
			if last {
				return te, nil
			}
			if !te.mode.IsDir() {
				return nil, fs.ErrNotExist
			}
			cur = te.path
			continue
		}
		if !last && !e.mode.IsDir() {
			return nil, fs.ErrNotExist
		}
		if last {
			return e, nil
		}
		cur = next
	}
	return nil, fs.ErrNotExist
}

func (t *Tree) parentsPlain(name string) bool {
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if e, ok := t.byPath[dir]; !ok || e.mode&fs.ModeSymlink != 0 {
			return false
		}
	}
	return true
}

// joinInside resolves a link target relative to dir, refusing targets outside the tree.
func joinInside(dir, target string) (string, bool) {
	if strings.HasPrefix(target, "/") {
		return "", false
	}
	p := path.Join(dir, target)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

func (t *Tree) readLink(e *entry) (string, error) {
	data, typ, err := t.repo.readObject(e.oid)
	if err != nil {
		return "", err
	}
	if typ != "blob" {
		return "", fs.ErrNotExist
	}
	return string(data), nil
}

func (t *Tree) read(e *entry) ([]byte, error) {
	data, typ, err := t.repo.readObject(e.oid)
	if err != nil {
		return nil, err
	}
	if typ != "blob" {
		return nil, errors.New("object " + e.oid + " is missing from the repository")
	}
	return data, nil
}

// Open opens a file or folder (links followed).
func (t *Tree) Open(name string) (fs.File, error) {
	e, err := t.lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	if e.mode.IsDir() {
		return &dirFile{t: t, e: e, name: name}, nil
	}
	return &file{t: t, e: e, name: name}, nil
}

// ReadFile reads a whole file (links followed).
func (t *Tree) ReadFile(name string) ([]byte, error) {
	e, err := t.lookup("read", name, true)
	if err != nil {
		return nil, err
	}
	if e.mode.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	data, err := t.read(e)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// ReadDir lists a folder (links followed to reach it, reported as links inside it).
func (t *Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := t.lookup("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !e.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	out := make([]fs.DirEntry, len(e.children))
	for i, c := range e.children {
		out[i] = fs.FileInfoToDirEntry(info{t: t, e: c})
	}
	return out, nil
}

// Stat describes a file (links followed).
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	e, err := t.lookup("stat", name, true)
	if err != nil {
		return nil, err
	}
	return info{t: t, e: e, name: path.Base(name)}, nil
}

// Lstat describes a file without following a final link.
func (t *Tree) Lstat(name string) (fs.FileInfo, error) {
	e, err := t.lookup("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return info{t: t, e: e}, nil
}

// ReadLink returns a link's target as stored.
func (t *Tree) ReadLink(name string) (string, error) {
	e, err := t.lookup("readlink", name, false)
	if err != nil {
		return "", err
	}
	if e.mode&fs.ModeSymlink == 0 {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	target, err := t.readLink(e)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return target, nil
}

// info is an fs.FileInfo of an entry.
type info struct {
	t    *Tree
	e    *entry
	name string // the name it was reached by; "" for the entry's own
}

func (i info) Name() string {
	if i.name != "" {
		return i.name
	}
	return i.e.name
}

// Size is the blob's size, read from the repository the first time it is asked for (0 when
// the object cannot be read).
func (i info) Size() int64 {
	if n := i.e.size.Load(); n >= 0 {
		return n
	}
	data, err := i.t.read(i.e)
	if err != nil {
		return 0
	}
	i.e.size.Store(int64(len(data)))
	return int64(len(data))
}
func (i info) Mode() fs.FileMode  { return i.e.mode }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.e.mode.IsDir() }
func (i info) Sys() any           { return i.e.oid }

// file is an open regular file; its content is read on the first Read.
type file struct {
	t    *Tree
	e    *entry
	name string
	r    *bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return info{t: f.t, e: f.e, name: path.Base(f.name)}, nil }

func (f *file) Read(p []byte) (int, error) {
	if f.r == nil {
		data, err := f.t.read(f.e)
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		f.r = bytes.NewReader(data)
	}
	return f.r.Read(p)
}

func (f *file) Close() error { return nil }

// dirFile is an open folder.
type dirFile struct {
	t    *Tree
	e    *entry
	name string
	off  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) {
	return info{t: d.t, e: d.e, name: path.Base(d.name)}, nil
}
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.e.children[d.off:]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && len(rest) > n {
		rest = rest[:n]
	}
	d.off += len(rest)
	out := make([]fs.DirEntry, len(rest))
	for i, c := range rest {
		out[i] = fs.FileInfoToDirEntry(info{t: d.t, e: c})
	}
	return out, nil
}
