package tarball

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

type entry struct {
	name     string
	body     string
	typeflag byte
	link     string
	size     int64 // header size override (0: len(body))
}

func write(t *testing.T, entries []entry) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		tf := e.typeflag
		if tf == 0 {
			tf = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: tf, Linkname: e.link, Mode: 0o644}
		if tf == tar.TypeReg {
			hdr.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if tf == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "pkg.tgz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadHashesListsAndKeeps(t *testing.T) {
	p := write(t, []entry{
		{name: "package/", typeflag: tar.TypeDir},
		{name: "package/package.json", body: `{"name":"a","version":"1.0.0"}`},
		{name: "package/dist/index.js", body: "export default 1;\n"},
		{name: "package/.env", body: "TOKEN=x\n"},
	})
	var visited []string
	tb, err := Read(p, Options{Visit: func(name string, content []byte) { visited = append(visited, name+"="+string(content)) }})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	s512 := sha512.Sum512(data)
	s1 := sha1.Sum(data)
	if tb.Integrity != "sha512-"+base64.StdEncoding.EncodeToString(s512[:]) || tb.Shasum != hex.EncodeToString(s1[:]) || tb.Size != int64(len(data)) {
		t.Fatalf("hashes: %s %s %d", tb.Integrity, tb.Shasum, tb.Size)
	}
	i, s, n, err := Hash(p)
	if err != nil || i != tb.Integrity || s != tb.Shasum || n != tb.Size {
		t.Fatalf("Hash disagrees with Read: %s %s %d %v", i, s, n, err)
	}
	if len(tb.Files) != 3 || !tb.Has("dist/index.js") || !tb.Has("./package.json") || tb.Has("index.js") || !tb.HasDir("dist") {
		t.Fatalf("files: %+v", tb.Files)
	}
	if string(tb.Content["package.json"]) != `{"name":"a","version":"1.0.0"}` || tb.Content["dist/index.js"] != nil {
		t.Fatalf("content kept: %v", tb.Content)
	}
	if strings.Join(visited, ",") != `package.json={"name":"a","version":"1.0.0"},dist/index.js=export default 1;`+"\n"+`,.env=TOKEN=x`+"\n" {
		t.Fatalf("visited: %q", visited)
	}
	if len(tb.Problems) != 0 {
		t.Fatalf("problems: %v", tb.Problems)
	}
}

func TestHostileEntries(t *testing.T) {
	p := write(t, []entry{
		{name: "package/package.json", body: `{}`},
		{name: "package/../../etc/cron.d/x", body: "boom"},
		{name: "/etc/passwd", body: "root"},
		{name: "other/file.js", body: "x"},
		{name: "package/link", typeflag: tar.TypeSymlink, link: "../../../../etc/shadow"},
		{name: "package/hard", typeflag: tar.TypeLink, link: "package/package.json"},
		{name: "package/fifo", typeflag: tar.TypeFifo},
		{name: "package", body: "a file where the folder should be"},
		{name: `package\..\..\win.js`, body: "x"},
	})
	tb, err := Read(p, Options{Keep: func(string) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pr := range tb.Problems {
		got = append(got, pr.String())
	}
	want := []string{
		`"package/../../etc/cron.d/x" climbs out of package/ with ..`,
		`"/etc/passwd" is an absolute path, outside package/`,
		`"other/file.js" is outside package/`,
		`"package/link" is a symbolic link (to ../../../../etc/shadow); npm packs files, never links`,
		`"package/hard" is a hard link (to package/package.json); npm packs files, never links`,
		`"package/fifo" is not a regular file`,
		`"package" is outside package/`,
		`"package\\..\\..\\win.js" climbs out of package/ with ..`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(tb.Files) != 1 || tb.Files[0].Name != "package.json" || tb.Links != 2 {
		t.Fatalf("only package.json is a file of the package: %+v links %d", tb.Files, tb.Links)
	}
	for name := range tb.Content {
		if name != "package.json" {
			t.Fatalf("content of an escaping entry was kept: %s", name)
		}
	}
}

func TestLimits(t *testing.T) {
	many := []entry{}
	for i := 0; i < 20; i++ {
		many = append(many, entry{name: "package/f" + string(rune('a'+i)), body: strings.Repeat("x", 100)})
	}
	p := write(t, many)
	if _, err := Read(p, Options{Limits: Limits{Entries: 10}}); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "more than 10 entries") {
		t.Fatalf("entries limit: %v", err)
	}
	if _, err := Read(p, Options{Limits: Limits{Unpacked: 1000}}); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "unpacks to more than 1000 bytes") {
		t.Fatalf("unpacked limit: %v", err)
	}
	// A gzip bomb: 64 MiB of zeros compresses to about 80 KiB; a 1 MiB limit stops it early.
	// BestSpeed: compress/flate's best compression is 25 times slower under -race (8 s of CPU
	// for these 64 MiB) and only makes the bomb 64 KiB.
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "package/zeros", Typeflag: tar.TypeReg, Size: 64 << 20, Mode: 0o644})
	zero := make([]byte, 1<<20)
	for i := 0; i < 64; i++ {
		tw.Write(zero)
	}
	tw.Close()
	zw.Close()
	bomb := filepath.Join(t.TempDir(), "bomb.tgz")
	os.WriteFile(bomb, buf.Bytes(), 0o644)
	if _, err := Read(bomb, Options{Limits: Limits{Unpacked: 1 << 20}}); !errors.Is(err, ErrLimit) {
		t.Fatalf("bomb: %v", err)
	}
}

func TestNotATarball(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"plain.tgz": "hello", "empty.tgz": "", "truncated.tgz": "\x1f\x8b\x08\x00\x00\x00"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := Read(p, Options{}); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing.tgz"), Options{}); err == nil {
		t.Error("missing file: want an error")
	}
}

// The hashes are npm's own: pack a folder with the pinned npm (testenv.OracleNPM) and compare
// with its --json.
func TestHashesMatchNPM(t *testing.T) {
	argv, env := testenv.OracleNPM(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"hash-me","version":"1.2.3","main":"index.js"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "index.js"), []byte("module.exports = 42;\n"), 0o644)
	cmd := exec.Command(argv[0], append(argv[1:], "pack", "--json", "--pack-destination", dir)...)
	cmd.Dir = dir
	cmd.Env = testenv.ChildEnv(t, env)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm pack: %v", err)
	}
	tb, err := Read(filepath.Join(dir, "hash-me-1.2.3.tgz"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"integrity": "`+tb.Integrity+`"`) || !strings.Contains(string(out), `"shasum": "`+tb.Shasum+`"`) {
		t.Fatalf("npm says\n%s\nwe computed %s %s", out, tb.Integrity, tb.Shasum)
	}
	if !tb.Has("index.js") || !tb.Has("package.json") {
		t.Fatalf("files: %+v", tb.Files)
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "package/package.json", Typeflag: tar.TypeReg, Size: 2, Mode: 0o644})
	tw.Write([]byte("{}"))
	tw.Close()
	zw.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("\x1f\x8b"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "f.tgz")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tb, err := Read(p, Options{Limits: Limits{Unpacked: 1 << 20, Entries: 100}, Keep: func(string) bool { return true }, Visit: func(string, []byte) {}})
		if err == nil {
			for _, e := range tb.Files {
				if strings.HasPrefix(e.Name, "/") || strings.Contains("/"+e.Name+"/", "/../") {
					t.Fatalf("an escaping name was listed as a file: %q", e.Name)
				}
			}
		}
	})
}
