package git

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/testenv"
)

// newRepo makes a repository with one commit holding files.
func newRepo(t *testing.T, files map[string]string) (string, *Repo) {
	t.Helper()
	dir := t.TempDir()
	testenv.GitInit(t, dir)
	testenv.WriteFiles(t, dir, files)
	testenv.Git(t, dir, "add", "-A")
	testenv.Git(t, dir, "commit", "-q", "-m", "initial")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return dir, r
}

func TestOpenOutsideARepository(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(dir)
	if err == nil || exit.Code(err) != exit.Env {
		t.Fatalf("Open(non-repo) = %v, want an environment error", err)
	}
	if !strings.Contains(err.Error(), "not inside a readable git repository") {
		t.Errorf("message: %v", err)
	}
}

func TestOpenFromASubfolder(t *testing.T) {
	dir, _ := newRepo(t, map[string]string{"a/b/c.txt": "x"})
	r, err := Open(filepath.Join(dir, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want, _ := filepath.EvalSymlinks(dir)
	if got, _ := filepath.EvalSymlinks(r.Dir); got != want {
		t.Errorf("Dir = %q, want the top level %q", r.Dir, dir)
	}
}

func TestRevisionsAndMergeHistory(t *testing.T) {
	dir, r := newRepo(t, map[string]string{"README.md": "hello\n", "pkg/a.js": "a\n", "pkg/old.js": strings.Repeat("old content line\n", 20), "pkg/gone.js": "bye\n"})
	first := testenv.Git(t, dir, "rev-parse", "HEAD")
	testenv.Git(t, dir, "checkout", "-q", "-b", "feature")
	testenv.WriteFiles(t, dir, map[string]string{"pkg/a.js": "a2\n", "pkg/new.js": "new\n"})
	testenv.Git(t, dir, "mv", "pkg/old.js", "pkg/renamed.js")
	testenv.Git(t, dir, "rm", "-q", "pkg/gone.js")
	testenv.Git(t, dir, "add", "-A")
	testenv.Git(t, dir, "commit", "-q", "-m", "work")
	testenv.Git(t, dir, "checkout", "-q", "main")
	testenv.WriteFiles(t, dir, map[string]string{"README.md": "hello again\n"})
	testenv.Git(t, dir, "commit", "-q", "-am", "main moves on")
	mainTip := testenv.Git(t, dir, "rev-parse", "HEAD")
	testenv.Git(t, dir, "merge", "-q", "--no-ff", "feature", "-m", "feat(api)!: rename things (#12)\n\nBody line one.\n\nBREAKING CHANGE: renamed")
	merge := testenv.Git(t, dir, "rev-parse", "HEAD")
	testenv.Git(t, dir, "tag", "light@1.0.0", first)
	testenv.Git(t, dir, "tag", "-a", "-m", "annotated", "@scope/pkg@2.0.0", merge)

	if got, err := r.Head(); err != nil || got != merge {
		t.Errorf("Head = %q, %v; want %s", got, err, merge)
	}
	if got, err := r.RevParse("main~1"); err != nil || got != mainTip {
		t.Errorf("RevParse(main~1) = %q, %v", got, err)
	}
	_, err := r.RevParse("no-such-branch")
	if !errors.Is(err, ErrUnknownRevision) || exit.Code(err) != exit.Usage {
		t.Errorf("unknown revision: %v (code %d)", err, exit.Code(err))
	}
	if _, err := r.RevParse("--output=/tmp/x"); !errors.Is(err, ErrUnknownRevision) {
		t.Errorf("an option-looking revision must be taken as a revision: %v", err)
	}
	if got, err := r.FirstParent("HEAD"); err != nil || got != mainTip {
		t.Errorf("FirstParent = %q, %v; want the main tip %s", got, err, mainTip)
	}
	if _, err := r.FirstParent(first); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--base") {
		t.Errorf("FirstParent(root commit) = %v", err)
	}

	changes, err := r.Changed(mainTip, merge)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Change{}
	for _, c := range changes {
		got[c.Path] = c
	}
	want := map[string]Change{
		"pkg/a.js":       {Path: "pkg/a.js", Status: "M"},
		"pkg/new.js":     {Path: "pkg/new.js", Status: "A"},
		"pkg/gone.js":    {Path: "pkg/gone.js", Status: "D"},
		"pkg/renamed.js": {Path: "pkg/renamed.js", OldPath: "pkg/old.js", Status: "R"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Changed = %v\nwant %v", got, want)
	}

	tags, err := r.Tags()
	if err != nil {
		t.Fatal(err)
	}
	if tags["light@1.0.0"] != first || tags["@scope/pkg@2.0.0"] != merge {
		t.Errorf("Tags = %v (annotated tags must be peeled to their commit)", tags)
	}

	subject, body, err := r.CommitMessage("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if subject != "feat(api)!: rename things (#12)" || body != "Body line one.\n\nBREAKING CHANGE: renamed" {
		t.Errorf("CommitMessage = %q / %q", subject, body)
	}
	c, err := r.Commit("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != merge || len(c.Parents) != 2 || c.Parents[0] != mainTip || c.Subject != subject || c.Body != body || c.Time.IsZero() {
		t.Errorf("Commit = %+v", c)
	}
	if _, err := r.Commit("no-such-branch"); !errors.Is(err, ErrUnknownRevision) || exit.Code(err) != exit.Usage {
		t.Errorf("Commit(unknown) = %v", err)
	}
	when, err := r.CommitTime("HEAD")
	if err != nil || when.IsZero() || time.Since(when) > time.Hour {
		t.Errorf("CommitTime = %v, %v", when, err)
	}

	data, err := r.Show(first, "pkg/old.js")
	if err != nil || !strings.HasPrefix(string(data), "old content") {
		t.Errorf("Show = %q, %v", data, err)
	}
	if _, err := r.Show("HEAD", "pkg/old.js"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Show(missing) = %v, want ErrNotExist", err)
	}

	clean, err := r.HeadIsClean()
	if err != nil || !clean {
		t.Errorf("HeadIsClean = %v, %v", clean, err)
	}
	testenv.WriteFiles(t, dir, map[string]string{"untracked.txt": "x"})
	if clean, _ := r.HeadIsClean(); !clean {
		t.Error("an untracked file must not make the checkout dirty")
	}
	testenv.WriteFiles(t, dir, map[string]string{"README.md": "edited\n"})
	if clean, _ := r.HeadIsClean(); clean {
		t.Error("an edited tracked file must make the checkout dirty")
	}
}

func TestShallowCloneFirstParent(t *testing.T) {
	src, _ := newRepo(t, map[string]string{"a": "1"})
	testenv.WriteFiles(t, src, map[string]string{"a": "2"})
	testenv.Git(t, src, "commit", "-q", "-am", "second")
	clone := filepath.Join(t.TempDir(), "clone")
	testenv.Git(t, t.TempDir(), "clone", "-q", "--depth", "1", "file://"+src, clone)
	r, err := Open(clone)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.FirstParent("HEAD")
	if exit.Code(err) != exit.Env || !strings.Contains(err.Error(), "fetch-depth") {
		t.Errorf("FirstParent in a shallow clone = %v (code %d)", err, exit.Code(err))
	}
}

func TestTreeFS(t *testing.T) {
	dir, r := newRepo(t, map[string]string{
		"package.json":             `{"name":"root"}`,
		"packages/a/package.json":  `{"name":"a"}`,
		"packages/a/src/index.js":  "export {}\n",
		"packages/a/bin/run":       "#!/bin/sh\n",
		"packages/b/README.md":     "# b\n",
		"packages/b/deep/x/y/z.md": "z\n",
	})
	if err := os.Chmod(filepath.Join(dir, "packages/a/bin/run"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"packages/a/link.js":  "src/index.js",
		"packages/a/srclink":  "src",
		"packages/a/escape":   "../../../outside",
		"packages/a/dangling": "nope.js",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Git(t, dir, "add", "-A")
	testenv.Git(t, dir, "commit", "-q", "-m", "links")
	// The working tree changes after the commit: the tree must not see it.
	testenv.WriteFiles(t, dir, map[string]string{"packages/a/src/index.js": "changed on disk\n", "packages/a/untracked.js": "x"})

	fsys, err := r.TreeFS("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	tree := fsys.(*Tree)
	data, err := fs.ReadFile(fsys, "packages/a/src/index.js")
	if err != nil || string(data) != "export {}\n" {
		t.Errorf("ReadFile = %q, %v (must come from the commit, not the disk)", data, err)
	}
	if _, err := fs.Stat(fsys, "packages/a/untracked.js"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an untracked file must not exist in the tree: %v", err)
	}
	// Links.
	if target, err := fs.ReadLink(fsys, "packages/a/link.js"); err != nil || target != "src/index.js" {
		t.Errorf("ReadLink = %q, %v", target, err)
	}
	if fi, err := fs.Lstat(fsys, "packages/a/link.js"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat must report the link: %v, %v", fi, err)
	}
	if fi, err := fs.Stat(fsys, "packages/a/link.js"); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Stat must follow the link: %v, %v", fi, err)
	}
	if data, err := fs.ReadFile(fsys, "packages/a/srclink/index.js"); err != nil || string(data) != "export {}\n" {
		t.Errorf("a path through a linked folder = %q, %v", data, err)
	}
	for _, bad := range []string{"packages/a/escape", "packages/a/dangling"} {
		if _, err := fsys.Open(bad); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%s) = %v, want ErrNotExist", bad, err)
		}
	}
	entries, err := fs.ReadDir(fsys, "packages/a")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		kind := "f"
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			kind = "l"
		case e.IsDir():
			kind = "d"
		}
		names = append(names, e.Name()+":"+kind)
	}
	if got := strings.Join(names, " "); got != "bin:d dangling:l escape:l link.js:l package.json:f src:d srclink:l" {
		t.Errorf("ReadDir = %s", got)
	}
	if fi, err := fs.Stat(fsys, "packages/a/bin/run"); err != nil || fi.Mode().Perm() != 0o755 || fi.Size() != 10 {
		t.Errorf("executable: %v, %v", fi, err)
	}
	if tree.Hash("packages/b/README.md") == "" || tree.Hash("packages/b") != "" {
		t.Error("Hash must give blob ids of files only")
	}
	if _, err := fsys.Open("../x"); err == nil {
		t.Error("an invalid path must fail")
	}

	// The standard checks of an fs.FS, on a part of the tree without links.
	sub, err := fs.Sub(fsys, "packages/b")
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(sub, "README.md", "deep/x/y/z.md"); err != nil {
		t.Error(err)
	}
	all := tree.Files()
	if !sort.StringsAreSorted(all) || len(all) != 10 {
		t.Errorf("Files = %v", all)
	}
}

func TestTreeFSConcurrentReads(t *testing.T) {
	files := map[string]string{}
	for i := range 200 {
		files[fmt.Sprintf("packages/p%03d/package.json", i)] = fmt.Sprintf(`{"name":"p%03d","version":"1.0.%d"}`, i, i)
		files[fmt.Sprintf("packages/p%03d/src/index.js", i)] = "export const n = " + fmt.Sprint(i) + "\n"
	}
	_, r := newRepo(t, files)
	start := time.Now()
	fsys, err := r.TreeFS("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for w := range 8 {
		go func(w int) {
			for i := w; i < 200; i += 8 {
				name := fmt.Sprintf("packages/p%03d/package.json", i)
				f, err := fsys.Open(name)
				if err != nil {
					errs <- err
					return
				}
				data, err := io.ReadAll(f)
				f.Close()
				if err != nil || string(data) != files[name] {
					errs <- fmt.Errorf("%s = %q, %v", name, data, err)
					return
				}
			}
			errs <- nil
		}(w)
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("listing and reading 200 files took %v", d)
	}
}

func TestGitMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Open(".")
	if exit.Code(err) != exit.Env || !strings.Contains(err.Error(), "install git") {
		t.Errorf("Open without git = %v", err)
	}
}
