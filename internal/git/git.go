// Package git reads a git repository by running the real git: commits, first parents, the
// files a pull request changed (renames included), tags, commit messages, and whole trees at a
// commit as an io/fs.FS. release-plan reads both ends of a pull request from git objects
// rather than the working tree, and publish checks the checkout before it tags.
//
// A tree is listed with one `git ls-tree -r -z --full-tree -l` and its blobs are read lazily
// through one long-lived `git cat-file --batch` per Repo, so reading a few files of a
// 200-package repository costs two processes, not hundreds. Shelling out to git (rather than
// a Go reimplementation) keeps every repository format, packfile, partial clone and
// safe.directory rule git itself understands.
//
// Failures say what to do in one sentence: git missing or a folder that is not a repository
// is an environment failure (exit 3), an unknown revision a usage mistake (exit 2).
package git

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plaios/plaios/internal/exit"
)

// ErrUnknownRevision is wrapped by the errors of revisions the repository does not hold.
var ErrUnknownRevision = errors.New("unknown revision")

// Repo is a git repository on disk.
type Repo struct {
	Dir string // the top-level folder of the working tree

	env []string

	mu    sync.Mutex
	batch *catFile
	cache map[string][]byte // blob id → content, for blobs read more than once (package.json…)
	held  int               // bytes in cache
}

// Cache limits: small blobs only, a bounded total.
const (
	cacheBlobMax  = 256 << 10
	cacheTotalMax = 64 << 20
)

// Change is one changed path between two commits.
type Change struct {
	Path    string // the path at the head (for a deletion: the deleted path)
	OldPath string // for a rename or a copy: the path at the base
	Status  string // A, M, D, T, R (renamed), C (copied), U
}

// Open finds the repository that holds dir.
func Open(dir string) (*Repo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, exit.Envf("git is not installed or not on PATH; install git and try again")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, exit.EnvErr(err)
	}
	r := &Repo{Dir: abs, env: gitEnv()}
	out, err := r.output("rev-parse", "--show-toplevel")
	if err != nil {
		return nil, exit.Envf("%s is not inside a readable git repository (%s); run plaios in a clone of the repository", abs, firstLine(err))
	}
	top := strings.TrimRight(string(out), "\n")
	if top == "" {
		return nil, exit.Envf("%s is inside a bare git repository; run plaios in a working tree", abs)
	}
	r.Dir = top
	return r, nil
}

// At returns a Repo that runs git in dir, a folder inside a working tree, without checking it
// or looking for the top level: for reading commits while Open runs. Paths it reports are
// relative to the top level all the same (it never asks git for paths relative to dir).
func At(dir string) *Repo {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return &Repo{Dir: abs, env: gitEnv()}
}

func gitEnv() []string {
	env := os.Environ()
	return append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "LANGUAGE=C", "GIT_PAGER=cat")
}

// Close stops the long-lived cat-file process, if one was started.
func (r *Repo) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.batch == nil {
		return nil
	}
	err := r.batch.close()
	r.batch = nil
	return err
}

// gitError is a failed git command, with what git said.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	return "git " + strings.Join(e.args, " ") + ": " + msg
}

func (e *gitError) Unwrap() error { return e.err }

func firstLine(err error) string {
	var ge *gitError
	s := err.Error()
	if errors.As(err, &ge) && strings.TrimSpace(ge.stderr) != "" {
		s = strings.TrimSpace(ge.stderr)
	}
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimPrefix(strings.TrimSpace(s), "fatal: ")
}

func (r *Repo) command(args ...string) *exec.Cmd {
	c := exec.Command("git", args...)
	c.Dir = r.Dir
	c.Env = r.env
	return c
}

// output runs git and returns its stdout.
func (r *Repo) output(args ...string) ([]byte, error) {
	c := r.command(args...)
	var stdout, stderr bytes.Buffer
	c.Stdout = &stdout
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, exit.Envf("git is not installed or not on PATH; install git and try again")
		}
		return nil, &gitError{args: args, stderr: stderr.String(), err: err}
	}
	return stdout.Bytes(), nil
}

// run is output wrapped as an environment failure.
func (r *Repo) run(what string, args ...string) ([]byte, error) {
	out, err := r.output(args...)
	if err != nil {
		if exit.Code(err) == exit.Env {
			return nil, err
		}
		return nil, exit.Envf("cannot %s in %s (%s); check that the repository is readable", what, r.Dir, firstLine(err))
	}
	return out, nil
}

// RevParse resolves rev to a full commit id.
func (r *Repo) RevParse(rev string) (string, error) {
	if rev == "" {
		return "", exit.UsageErr(fmt.Errorf("an empty revision is not a commit: %w", ErrUnknownRevision))
	}
	out, err := r.output("rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if exit.Code(err) == exit.Env {
			return "", err
		}
		hint := "check the name"
		if r.IsShallow() {
			hint = "this clone is shallow: fetch more history (actions/checkout fetch-depth: 0) or check the name"
		}
		return "", exit.UsageErr(fmt.Errorf("%q is not a commit in this repository (%w); %s", rev, ErrUnknownRevision, hint))
	}
	return strings.TrimSpace(string(out)), nil
}

// Head returns the commit checked out.
func (r *Repo) Head() (string, error) { return r.RevParse("HEAD") }

// IsShallow reports whether the clone is shallow.
func (r *Repo) IsShallow() bool {
	out, err := r.output("rev-parse", "--is-shallow-repository")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// Parents returns the parents of a commit, first parent first.
func (r *Repo) Parents(rev string) ([]string, error) {
	id, err := r.RevParse(rev)
	if err != nil {
		return nil, err
	}
	out, err := r.run("list the parents of "+rev, "rev-list", "--parents", "-n", "1", id)
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return nil, exit.Envf("git rev-list printed nothing for %s; check the repository", rev)
	}
	return f[1:], nil
}

// FirstParent returns the first parent of rev: for a merge commit, the branch merged into.
func (r *Repo) FirstParent(rev string) (string, error) {
	c, err := r.Commit(rev)
	if err != nil {
		return "", err
	}
	return r.FirstParentOf(c)
}

// Changed lists the paths that differ between two commits, renames detected (-M) as git diff
// reports them.
func (r *Repo) Changed(base, head string) ([]Change, error) {
	out, err := r.run("compare "+base+" and "+head, "-c", "core.quotePath=false", "diff", "--no-ext-diff", "--no-textconv",
		"--no-relative", "--name-status", "-z", "-M", "--end-of-options", base, head, "--")
	if err != nil {
		return nil, err
	}
	fields := strings.Split(string(out), "\x00")
	var changes []Change
	for i := 0; i < len(fields); {
		status := fields[i]
		i++
		if status == "" {
			continue
		}
		letter := status[:1]
		switch letter {
		case "R", "C":
			if i+1 >= len(fields) {
				return nil, exit.Envf("git diff printed an incomplete rename record; check the repository")
			}
			changes = append(changes, Change{OldPath: fields[i], Path: fields[i+1], Status: letter})
			i += 2
		default:
			if i >= len(fields) {
				return nil, exit.Envf("git diff printed an incomplete record; check the repository")
			}
			changes = append(changes, Change{Path: fields[i], Status: letter})
			i++
		}
	}
	return changes, nil
}

// Tags returns every tag with the commit it points at (annotated tags peeled).
func (r *Repo) Tags() (map[string]string, error) {
	out, err := r.run("list the tags", "for-each-ref", "--format=%(refname)%00%(objectname)%00%(*objectname)", "refs/tags")
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\x00")
		if len(f) < 3 {
			continue
		}
		obj := f[1]
		if f[2] != "" {
			obj = f[2]
		}
		tags[strings.TrimPrefix(f[0], "refs/tags/")] = obj
	}
	return tags, nil
}

// Commit is what one `git show` tells about a commit.
type Commit struct {
	ID      string
	Parents []string // first parent first
	Time    time.Time
	Subject string // the first paragraph of the message, lines joined (%s)
	Body    string // the rest (%b)
}

// Commit reads a commit's id, parents, date and message with one git process.
func (r *Repo) Commit(rev string) (*Commit, error) {
	if rev == "" || strings.ContainsAny(rev, "\x00\n") {
		return nil, exit.UsageErr(fmt.Errorf("%q is not a commit in this repository (%w); check the name", rev, ErrUnknownRevision))
	}
	out, err := r.output("show", "-s", "--no-show-signature", "--format=%H%x00%P%x00%ct%x00%s%x00%b", "--end-of-options", rev+"^{commit}", "--")
	if err != nil {
		if exit.Code(err) == exit.Env {
			return nil, err
		}
		if _, rerr := r.RevParse(rev); rerr != nil {
			return nil, rerr
		}
		return nil, exit.Envf("cannot read the commit %s in %s (%s); check that the repository is readable", rev, r.Dir, firstLine(err))
	}
	f := strings.SplitN(string(out), "\x00", 5)
	if len(f) != 5 {
		return nil, exit.Envf("git show printed an unexpected answer for %s; check the repository", rev)
	}
	sec, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return nil, exit.Envf("git printed %q as the date of %s; check the repository", f[2], rev)
	}
	return &Commit{ID: f[0], Parents: strings.Fields(f[1]), Time: time.Unix(sec, 0).UTC(),
		Subject: strings.TrimSpace(f[3]), Body: strings.TrimRight(f[4], "\n")}, nil
}

// FirstParentOf returns a commit's first parent, with the errors FirstParent gives.
func (r *Repo) FirstParentOf(c *Commit) (string, error) {
	if len(c.Parents) > 0 {
		return c.Parents[0], nil
	}
	if r.IsShallow() {
		return "", exit.Envf("the parent of %s is not in this shallow clone; fetch at least two commits (actions/checkout fetch-depth: 2) or give --base", c.ID)
	}
	return "", exit.Usagef("%s is the first commit and has no parent; give --base", c.ID)
}

// CommitMessage returns a commit's subject (its first paragraph, lines joined as %s joins
// them) and body (the rest), as a squash merge writes a pull request's title and description.
func (r *Repo) CommitMessage(rev string) (subject, body string, err error) {
	id, err := r.RevParse(rev)
	if err != nil {
		return "", "", err
	}
	out, err := r.run("read the message of "+rev, "show", "-s", "--format=%s%x00%b", id)
	if err != nil {
		return "", "", err
	}
	s, b, _ := strings.Cut(string(out), "\x00")
	return strings.TrimSpace(s), strings.TrimRight(b, "\n"), nil
}

// CommitTime returns a commit's committer date.
func (r *Repo) CommitTime(rev string) (time.Time, error) {
	id, err := r.RevParse(rev)
	if err != nil {
		return time.Time{}, err
	}
	out, err := r.run("read the date of "+rev, "show", "-s", "--format=%ct", id)
	if err != nil {
		return time.Time{}, err
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return time.Time{}, exit.Envf("git printed %q as the date of %s; check the repository", strings.TrimSpace(string(out)), rev)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// HeadIsClean reports whether the tracked files of the working tree and the index match HEAD
// (untracked files do not count: publish ships tarballs, not the working tree).
func (r *Repo) HeadIsClean() (bool, error) {
	out, err := r.run("read the status of the working tree", "status", "--porcelain=v1", "-z", "--untracked-files=no", "--ignore-submodules=dirty")
	if err != nil {
		return false, err
	}
	return len(bytes.TrimSpace(out)) == 0, nil
}

// Show returns the content of path at rev (a blob), fs.ErrNotExist when it has none.
func (r *Repo) Show(rev, path string) ([]byte, error) {
	path = strings.TrimPrefix(filepath.ToSlash(path), "./")
	if strings.ContainsAny(rev+path, "\n\x00") {
		out, err := r.output("cat-file", "blob", rev+":"+path)
		if err != nil {
			return nil, &os.PathError{Op: "show", Path: rev + ":" + path, Err: os.ErrNotExist}
		}
		return out, nil
	}
	data, typ, err := r.readObject(rev + ":" + path)
	if err != nil {
		return nil, err
	}
	if typ == "" {
		return nil, &os.PathError{Op: "show", Path: rev + ":" + path, Err: os.ErrNotExist}
	}
	if typ != "blob" {
		return nil, &os.PathError{Op: "show", Path: rev + ":" + path, Err: fmt.Errorf("is a %s, not a file", typ)}
	}
	return data, nil
}

// readObject reads one object through the batch process; typ is "" when it is missing. Blobs
// named by id are cached (a package.json is read by discovery, the packlist and the planner,
// and is often the same blob at both ends); the caller gets its own copy.
func (r *Repo) readObject(spec string) (data []byte, typ string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.cache[spec]; ok {
		return append([]byte(nil), c...), "blob", nil
	}
	data, typ, err = r.readObjectLocked(spec)
	if err == nil && typ == "blob" && isObjectID(spec) && len(data) <= cacheBlobMax && r.held+len(data) <= cacheTotalMax {
		if r.cache == nil {
			r.cache = map[string][]byte{}
		}
		r.cache[spec] = append([]byte(nil), data...)
		r.held += len(data)
	}
	return data, typ, err
}

func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (r *Repo) readObjectLocked(spec string) (data []byte, typ string, err error) {
	if r.batch == nil {
		b, err := startCatFile(r)
		if err != nil {
			return nil, "", err
		}
		r.batch = b
	}
	data, typ, err = r.batch.read(spec)
	if err != nil {
		_ = r.batch.close()
		r.batch = nil
		return nil, "", exit.Envf("git cat-file stopped while reading %s in %s (%v); check the repository", spec, r.Dir, err)
	}
	return data, typ, nil
}

// catFile is a running `git cat-file --batch`.
type catFile struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *bytes.Buffer
}

func startCatFile(r *Repo) (*catFile, error) {
	c := r.command("cat-file", "--batch")
	stdin, err := c.StdinPipe()
	if err != nil {
		return nil, exit.EnvErr(err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return nil, exit.EnvErr(err)
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, exit.Envf("git is not installed or not on PATH; install git and try again")
		}
		return nil, exit.Envf("cannot start git cat-file in %s (%v)", r.Dir, err)
	}
	return &catFile{cmd: c, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 64<<10), stderr: &stderr}, nil
}

func (b *catFile) read(spec string) ([]byte, string, error) {
	if _, err := io.WriteString(b.stdin, spec+"\n"); err != nil {
		return nil, "", err
	}
	header, err := b.stdout.ReadString('\n')
	if err != nil {
		if s := strings.TrimSpace(b.stderr.String()); s != "" {
			return nil, "", errors.New(s)
		}
		return nil, "", err
	}
	header = strings.TrimSuffix(header, "\n")
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return nil, "", nil
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return nil, "", fmt.Errorf("unexpected answer %q", header)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return nil, "", fmt.Errorf("unexpected size in %q", header)
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(b.stdout, data); err != nil {
		return nil, "", err
	}
	return data[:size], f[1], nil
}

func (b *catFile) close() error {
	_ = b.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		return <-done
	}
}
