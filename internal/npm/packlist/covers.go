package packlist

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// Covers reports whether path (slash-separated, relative to the package folder) would be in the
// tarball if it existed as a regular file, the rest of the package unchanged. A build output such
// as dist/index.js counts as shipped before the build when `files` and the ignore files let it
// through. npm's rules change when the file appears (a `files` entry naming an existing folder
// also takes in its contents, one naming an existing file becomes a strict rule), so Covers
// re-runs the walk along that one path over the file system with the file added. For an
// existing path it is Has.
func (l *List) Covers(p string) bool {
	p = cleanRel(p)
	if p == "" || p == ".." || strings.HasPrefix(p, "../") || !fs.ValidPath(p) {
		return false
	}
	if l.files[p] {
		return true
	}
	ld := l.l
	full := path.Join(ld.dir, p)
	parts := strings.Split(p, "/")
	// Every folder on the way must be a folder (or missing), the file itself missing.
	for i := range parts {
		info, err := lstat(ld.fsys, path.Join(ld.dir, strings.Join(parts[:i+1], "/")))
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return false
		}
		if i == len(parts)-1 || !info.IsDir() || info.Mode()&fs.ModeSymlink != 0 {
			return false // the file exists (and is not packed), or a folder on the way is not one
		}
	}
	ov := &overlayFS{base: ld.fsys, file: full}
	fl := &loader{fsys: ov, dir: ld.dir, files: map[string]bool{}, seen: map[string]bool{}, focus: parts}
	t := *ld.root.tree
	m, err := readManifest(ov, ld.dir, true)
	if err != nil {
		return false
	}
	t.m = m
	w, err := fl.newWalker(nil, ld.dir, "", rootIgnoreFiles, true, &t, nil, ld.extra)
	if err != nil {
		return false
	}
	if err := w.walk(); err != nil {
		return false
	}
	return fl.files[p]
}

func lstat(fsys fs.FS, name string) (fs.FileInfo, error) {
	if rl, ok := fsys.(fs.ReadLinkFS); ok {
		return rl.Lstat(name)
	}
	return fs.Stat(fsys, name)
}

// overlayFS is base with one more empty regular file (and the folders leading to it).
type overlayFS struct {
	base fs.FS
	file string
}

// virtualDir reports whether name is a folder the overlay adds or extends, and the child it adds.
func (o *overlayFS) virtualChild(name string) (string, bool) {
	if name == "." {
		first, _, _ := strings.Cut(o.file, "/")
		return first, true
	}
	if strings.HasPrefix(o.file, name+"/") {
		rest := o.file[len(name)+1:]
		first, _, _ := strings.Cut(rest, "/")
		return first, true
	}
	return "", false
}

func (o *overlayFS) isVirtual(name string) (isFile, ok bool) {
	if name == o.file {
		return true, true
	}
	if _, ok := o.virtualChild(name); ok && name != "." {
		return false, true
	}
	return false, false
}

type virtualInfo struct {
	name string
	dir  bool
}

func (v virtualInfo) Name() string { return v.name }
func (v virtualInfo) Size() int64  { return 0 }
func (v virtualInfo) Mode() fs.FileMode {
	if v.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (v virtualInfo) ModTime() time.Time { return time.Time{} }
func (v virtualInfo) IsDir() bool        { return v.dir }
func (v virtualInfo) Sys() any           { return nil }

func (o *overlayFS) Open(name string) (fs.File, error) {
	if isFile, ok := o.isVirtual(name); ok {
		if _, err := fs.Stat(o.base, name); err != nil {
			return &virtualFile{info: virtualInfo{name: path.Base(name), dir: !isFile}}, nil
		}
	}
	return o.base.Open(name)
}

func (o *overlayFS) Stat(name string) (fs.FileInfo, error) {
	if info, err := fs.Stat(o.base, name); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return info, err
	}
	if isFile, ok := o.isVirtual(name); ok {
		return virtualInfo{name: path.Base(name), dir: !isFile}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

func (o *overlayFS) Lstat(name string) (fs.FileInfo, error) {
	if info, err := lstat(o.base, name); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return info, err
	}
	return o.Stat(name)
}

func (o *overlayFS) ReadLink(name string) (string, error) {
	if rl, ok := o.base.(fs.ReadLinkFS); ok {
		return rl.ReadLink(name)
	}
	return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
}

func (o *overlayFS) ReadFile(name string) ([]byte, error) {
	if name == o.file {
		if _, err := fs.Stat(o.base, name); err != nil {
			return nil, nil
		}
	}
	return fs.ReadFile(o.base, name)
}

func (o *overlayFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(o.base, name)
	child, ok := o.virtualChild(name)
	if !ok {
		return entries, err
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return entries, err
	}
	for _, e := range entries {
		if e.Name() == child {
			return entries, nil
		}
	}
	isFile := path.Join(name, child) == o.file || (name == "." && child == o.file)
	entries = append(entries, fs.FileInfoToDirEntry(virtualInfo{name: child, dir: !isFile}))
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

type virtualFile struct {
	info virtualInfo
}

func (f *virtualFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *virtualFile) Read([]byte) (int, error) {
	if f.info.dir {
		return 0, &fs.PathError{Op: "read", Path: f.info.name, Err: fs.ErrInvalid}
	}
	return 0, io.EOF
}
func (f *virtualFile) Close() error { return nil }
