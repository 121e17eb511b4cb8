// Package tarball reads the package tarballs npm and pnpm pack (gzip-compressed tar, every
// entry under `package/`) without unpacking them: it hashes the file as the registry will
// (sha512 integrity, sha1 shasum), lists the entries with their sizes, keeps the content of
// the few files a caller asks for, and names every entry that would land outside the
// package folder or is not a plain file (a `../` or absolute path, a link, a device). It
// never panics and never trusts sizes: a hostile tarball (a gzip bomb, a header claiming
// terabytes, thousands of entries) stops with an error once a limit is crossed.
package tarball

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// Limits bound what Read accepts.
type Limits struct {
	Entries  int   // default 100 000
	Unpacked int64 // total bytes of all entries; default 2 GiB
	Keep     int64 // bytes kept of one file's content; default 8 MiB
}

func (l Limits) withDefaults() Limits {
	if l.Entries <= 0 {
		l.Entries = 100_000
	}
	if l.Unpacked <= 0 {
		l.Unpacked = 2 << 30
	}
	if l.Keep <= 0 {
		l.Keep = 8 << 20
	}
	return l
}

// Options control Read.
type Options struct {
	Limits Limits
	// Keep reports whether the content of a file (its path inside the package) is kept in
	// Tarball.Content. nil keeps package.json only.
	Keep func(name string) bool
	// Visit, when set, sees every regular file with (at most MaxVisit bytes of) its content,
	// in tarball order; for scanning content without keeping it.
	Visit func(name string, content []byte)
	// MaxVisit bounds the content Visit sees; default 2 MiB.
	MaxVisit int64
}

// Entry is one regular file of the package.
type Entry struct {
	Name string // slash path inside the package ("dist/index.js")
	Size int64
	Mode int64
}

// Problem is an entry that does not belong in a package tarball.
type Problem struct {
	Entry   string // the name as written in the tarball
	Message string // "is a symbolic link to ../../etc/passwd", "is outside package/"
}

func (p Problem) String() string { return fmt.Sprintf("%q %s", p.Entry, p.Message) }

// Tarball is what Read found.
type Tarball struct {
	Path      string
	Size      int64  // bytes of the compressed file
	Integrity string // "sha512-<base64>"
	Shasum    string // sha1, hex
	Files     []Entry
	Unpacked  int64 // total size of the regular files
	Links     int   // symbolic and hard links among the entries
	Problems  []Problem
	Content   map[string][]byte // the kept files, by Name

	names map[string]bool
}

// Has reports whether the package holds the regular file name (a slash path, with or without
// a leading "./").
func (t *Tarball) Has(name string) bool {
	return t.names[clean(name)]
}

// HasDir reports whether some file lies under the folder name.
func (t *Tarball) HasDir(name string) bool {
	prefix := clean(name) + "/"
	for n := range t.names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

func clean(name string) string {
	name = strings.TrimPrefix(name, "./")
	if name == "" {
		return "."
	}
	return path.Clean(name)
}

// Hash returns the sha512 integrity and sha1 shasum of a file, as npm computes them.
func Hash(file string) (integrity, shasum string, size int64, err error) {
	f, err := os.Open(file)
	if err != nil {
		return "", "", 0, err
	}
	defer f.Close()
	h512, h1 := sha512.New(), sha1.New()
	size, err = io.Copy(io.MultiWriter(h512, h1), f)
	if err != nil {
		return "", "", 0, err
	}
	return "sha512-" + base64.StdEncoding.EncodeToString(h512.Sum(nil)), hex.EncodeToString(h1.Sum(nil)), size, nil
}

// ErrLimit is wrapped by the errors Read returns when a limit is crossed.
var ErrLimit = errors.New("tarball limit crossed")

// Read reads and hashes the tarball at file.
func Read(file string, opts Options) (*Tarball, error) {
	lim := opts.Limits.withDefaults()
	keep := opts.Keep
	if keep == nil {
		keep = func(name string) bool { return name == "package.json" }
	}
	maxVisit := opts.MaxVisit
	if maxVisit <= 0 {
		maxVisit = 2 << 20
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &Tarball{Path: file, Content: map[string][]byte{}, names: map[string]bool{}}
	h512, h1 := sha512.New(), sha1.New()
	counted := &countingReader{r: io.TeeReader(f, io.MultiWriter(h512, h1))}
	zr, err := gzip.NewReader(counted)
	if err != nil {
		return nil, fmt.Errorf("%s is not a gzip-compressed tarball: %v", path.Base(file), err)
	}
	tr := tar.NewReader(zr)
	entries := 0
	var total int64
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s is not a readable tarball: %v", path.Base(file), err)
		}
		entries++
		if entries > lim.Entries {
			return nil, fmt.Errorf("%w: %s has more than %d entries", ErrLimit, path.Base(file), lim.Entries)
		}
		name, problem := inside(hdr.Name)
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeRegA:
		case tar.TypeDir, tar.TypeXGlobalHeader, tar.TypeXHeader:
			if problem != "" && hdr.Typeflag == tar.TypeDir {
				t.Problems = append(t.Problems, Problem{Entry: hdr.Name, Message: problem})
			}
			continue
		case tar.TypeSymlink:
			t.Links++
			t.Problems = append(t.Problems, Problem{Entry: hdr.Name, Message: "is a symbolic link (to " + hdr.Linkname + "); npm packs files, never links"})
			continue
		case tar.TypeLink:
			t.Links++
			t.Problems = append(t.Problems, Problem{Entry: hdr.Name, Message: "is a hard link (to " + hdr.Linkname + "); npm packs files, never links"})
			continue
		default:
			t.Problems = append(t.Problems, Problem{Entry: hdr.Name, Message: "is not a regular file"})
			continue
		}
		if problem == "" && name == "" {
			problem = "is outside package/"
		}
		if problem != "" {
			t.Problems = append(t.Problems, Problem{Entry: hdr.Name, Message: problem})
		}
		if hdr.Size < 0 || hdr.Size > lim.Unpacked-total {
			return nil, fmt.Errorf("%w: %s unpacks to more than %d bytes", ErrLimit, path.Base(file), lim.Unpacked)
		}
		want := keep != nil && problem == "" && keep(name)
		var buf []byte
		need := int64(0)
		if want {
			need = min(hdr.Size, lim.Keep)
		}
		if opts.Visit != nil {
			need = max(need, min(hdr.Size, maxVisit))
		}
		if need > 0 {
			buf = make([]byte, need)
			n, err := io.ReadFull(tr, buf)
			if err != nil && err != io.ErrUnexpectedEOF {
				return nil, fmt.Errorf("%s: read %s: %v", path.Base(file), hdr.Name, err)
			}
			buf = buf[:n]
		}
		rest, err := io.Copy(io.Discard, tr)
		if err != nil {
			return nil, fmt.Errorf("%s: read %s: %v", path.Base(file), hdr.Name, err)
		}
		size := int64(len(buf)) + rest
		total += size
		if total > lim.Unpacked {
			return nil, fmt.Errorf("%w: %s unpacks to more than %d bytes", ErrLimit, path.Base(file), lim.Unpacked)
		}
		if problem != "" {
			continue
		}
		t.Files = append(t.Files, Entry{Name: name, Size: size, Mode: hdr.Mode})
		t.names[name] = true
		t.Unpacked += size
		if want {
			t.Content[name] = buf[:min(int64(len(buf)), lim.Keep)]
		}
		if opts.Visit != nil {
			opts.Visit(name, buf[:min(int64(len(buf)), maxVisit)])
		}
	}
	// Drain the rest of the compressed stream so that the hashes cover the whole file.
	if _, err := io.Copy(io.Discard, counted); err != nil {
		return nil, err
	}
	t.Size = counted.n
	t.Integrity = "sha512-" + base64.StdEncoding.EncodeToString(h512.Sum(nil))
	t.Shasum = hex.EncodeToString(h1.Sum(nil))
	return t, nil
}

// inside maps a tarball entry name to its path inside the package, or says why it lies
// outside it.
func inside(name string) (string, string) {
	n := strings.ReplaceAll(name, "\\", "/")
	if strings.HasPrefix(n, "/") || (len(n) > 1 && n[1] == ':') {
		return "", "is an absolute path, outside package/"
	}
	for _, seg := range strings.Split(n, "/") {
		if seg == ".." {
			return "", "climbs out of package/ with .."
		}
	}
	n = strings.TrimPrefix(n, "./")
	first, rest, ok := strings.Cut(n, "/")
	if first != "package" {
		return "", "is outside package/"
	}
	if !ok || strings.Trim(rest, "/") == "" {
		return "", "" // package/ itself
	}
	return path.Clean(rest), ""
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
