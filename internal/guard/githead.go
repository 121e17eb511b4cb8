package guard

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/plaios/plaios/internal/git"
	"github.com/plaios/plaios/internal/jsonpos"
)

// maxPackageJSON bounds the package.json read from a tarball to stamp it.
const maxPackageJSON = 16 << 20

// stampGitHead writes the workspace's head commit into the package.json of every packed
// tarball as "gitHead", as npm does when it publishes from a git checkout: `npm publish
// <tarball>` sends the tarball's package.json as the version's document, so the registry's
// packument then shows which commit the version was published from (RELEASE.md, "The same
// merge, again"). Outside a git checkout nothing is written, as with npm. It runs before the
// tarballs are hashed, so guard-report.json's integrity is that of the stamped tarball: the one
// publish publishes.
func (g *run) stampGitHead(results []*Result) {
	head, err := git.At(g.ws.Root).RevParse("HEAD")
	if err != nil || head == "" {
		g.notef("no git commit at %s: the tarballs carry no gitHead", g.ws.Root)
		return
	}
	g.parallel(len(results), func(i int) {
		r := results[i]
		if !r.OK || r.tarballPath == "" {
			return
		}
		if err := StampGitHead(r.tarballPath, head); err != nil {
			r.fail("the tarball could not be given its gitHead: %v", err)
		}
	})
}

// StampGitHead rewrites the tarball file so that its package/package.json carries "gitHead":
// head (replacing the value of an existing gitHead, else added as the last member in the
// file's own indentation). Every other entry is copied as it is, streamed; the new tarball
// replaces the old one atomically.
func StampGitHead(file, head string) error {
	in, err := os.Open(file)
	if err != nil {
		return err
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return fmt.Errorf("not a gzip file: %w", err)
	}
	out, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".githead-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			out.Close()
			os.Remove(out.Name())
		}
	}()
	zw, _ := gzip.NewWriterLevel(out, gzip.BestCompression)
	tr, tw := tar.NewReader(zr), tar.NewWriter(zw)
	stamped := false
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("cannot read the tarball: %w", err)
		}
		if !stamped && hdr.Typeflag == tar.TypeReg && isRootPackageJSON(hdr.Name) {
			if hdr.Size > maxPackageJSON {
				return fmt.Errorf("its package.json is %d bytes", hdr.Size)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				return fmt.Errorf("cannot read its package.json: %w", err)
			}
			data, err = withGitHead(data, head)
			if err != nil {
				return fmt.Errorf("its package.json: %w", err)
			}
			hdr.Size = int64(len(data))
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			if _, err := tw.Write(data); err != nil {
				return err
			}
			stamped = true
			continue
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return err
		}
	}
	if !stamped {
		return errors.New("it has no package/package.json")
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if err := os.Chmod(out.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(out.Name(), file); err != nil {
		return err
	}
	done = true
	return nil
}

// isRootPackageJSON reports whether a tar entry is the package's own package.json: npm puts
// every file under one top folder ("package/").
func isRootPackageJSON(name string) bool {
	dir, base := filepath.Split(filepath.ToSlash(name))
	if base != "package.json" || dir == "" {
		return false
	}
	dir = dir[:len(dir)-1]
	return dir != "" && !bytes.ContainsRune([]byte(dir), '/')
}

// withGitHead sets the top-level "gitHead" of a package.json, changing nothing else.
func withGitHead(data []byte, head string) ([]byte, error) {
	v, err := jsonpos.Parse(data)
	if err != nil {
		return nil, err
	}
	if v.Kind != jsonpos.Object {
		return nil, fmt.Errorf("it holds a %s, not an object", v.Kind)
	}
	value := strconv.Quote(head)
	if m := v.Member("gitHead"); m != nil {
		return concatBytes(data[:m.Value.Pos.Offset], []byte(value), data[m.Value.End:]), nil
	}
	if len(v.Members) == 0 {
		open := v.Pos.Offset + 1
		return concatBytes(data[:open], []byte(`"gitHead":`+value), data[open:]), nil
	}
	first, last := v.Members[0], v.Members[len(v.Members)-1]
	sep := data[v.Pos.Offset+1 : first.KeyPos.Offset] // the whitespace before each member, e.g. "\n  "
	colon := []byte(": ")
	if !bytes.ContainsAny(sep, "\n") {
		colon = []byte(":")
	}
	entry := concatBytes([]byte(","), sep, []byte(`"gitHead"`), colon, []byte(value))
	return concatBytes(data[:last.Value.End], entry, data[last.Value.End:]), nil
}

func concatBytes(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
