package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plaios/plaios/internal/sandbox"
)

// Every process guard starts for a package's code runs in the sandbox (internal/sandbox):
// the pack tool with its lifecycle scripts, the install, the rebuild of the fixtures'
// dependencies and the import. This file says what each step sees: its environment (never
// the job's tokens), the folders it reads and the one it writes.

// toolChildEnv is the environment of npm and pnpm in the sandbox: PATH (node's folder first,
// so that scripts run the same node), the locale and time zone, npm told not to look for
// updates, funding or audits. No token and no npm credential: the sandbox adds a private HOME.
func (g *run) toolChildEnv(extra ...string) []string {
	env := []string{"PATH=" + g.childPath()}
	for _, k := range []string{"LANG", "LC_ALL", "TZ"} {
		if v := g.opts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false",
		"npm_config_progress=false", "npm_config_cache=/tmp/home/.npm")
	// git in a script reads the workspace's repository, which the child (nobody, when plaios
	// runs as root) does not own: without this git refuses it as of "dubious ownership"
	// (safe.directory is read from the command scope, which these variables are). The
	// repository is read-only in the sandbox; its code is the workspace's own.
	env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*")
	return append(env, extra...)
}

// childPath is PATH with node's folder first.
func (g *run) childPath() string {
	p := g.opts.Getenv("PATH")
	if g.opts.Node != "" {
		p = filepath.Dir(g.opts.Node) + string(os.PathListSeparator) + p
	}
	return p
}

// limitReason says which of the sandbox's limits ended a step ("importing it", "packing"),
// and, for memory, the one limit a user may set, for a package that needs more.
func limitReason(res *sandbox.Result, step string) string {
	reason := res.LimitReason() + " while " + step
	if res.OutOfMemory {
		reason += " (guard's --memory sets the limit)"
	}
	return reason
}

// runContained runs npm or pnpm in the sandbox and returns its stdout; a failure carries the
// tool's own error lines, shortened, or the limit it passed.
func (g *run) runContained(ctx context.Context, step, dir, tool string, args []string, spec sandbox.Spec) ([]byte, error) {
	spec.Name = tool
	spec.Args = args
	spec.Dir = dir
	spec.Timeout = g.opts.StepTimeout
	spec.Memory = g.opts.Memory
	g.notef("run %s %s (in %s, sandboxed)", filepath.Base(tool), strings.Join(shortArgs(args), " "), g.rel(dir))
	res, err := g.sb.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	switch {
	case res.Canceled:
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errors.New("interrupted")
	case res.LimitReason() != "":
		return []byte(res.Stdout), errors.New(limitReason(res, step))
	case res.TimedOut:
		e := &stepTimeout{tool: filepath.Base(tool), step: step, after: g.opts.StepTimeout}
		// npm's banner for a script it runs ("> name@1.0.0 prepack", "> node build.js")
		// repeats what the reason names already; the script's own lines are the clue.
		var own []string
		for _, l := range strings.Split(res.Stderr, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), ">") {
				own = append(own, l)
			}
		}
		if s := strings.TrimSpace(strings.Join(own, "\n")); s != "" {
			e.last = clip(lastLines(s, 2), 300)
		}
		return []byte(res.Stdout), e
	case res.ExitCode != 0:
		return []byte(res.Stdout), fmt.Errorf("%s", toolError(res.Stderr, res.Stdout, fmt.Errorf("%s exited with code %d", filepath.Base(tool), res.ExitCode)))
	}
	return []byte(res.Stdout), nil
}

// stepTimeout is a step the sandbox stopped at --step-timeout, with everything it started.
type stepTimeout struct {
	tool, step string
	after      time.Duration
	last       string // its last lines on stderr
	scripts    string // the lifecycle scripts the step ran, when known
	tries      int    // how many times it was run (an install is tried twice)
}

func (e *stepTimeout) Error() string {
	twice := ""
	if e.tries == 2 {
		twice = " (tried twice)"
	}
	s := fmt.Sprintf("%s did not finish within %s while %s%s and was stopped", e.tool, e.after, e.step, twice)
	if e.scripts != "" {
		s += "; it runs " + e.scripts
	}
	if e.last != "" {
		s += "; its last output: " + e.last
	}
	return s + "; raise --step-timeout if it is only slow"
}

// packMounts is what a pack tool sees: the workspace read-only, each packed package folder
// as a writable copy (so that a prepack build writes there and nowhere else, and the
// workspace is left as it was), the node_modules it resolves from with a scratch layer, and
// the folder the tarballs go to.
// The returned cleanup removes the copies and the destination.
func (g *run) packMounts(dirs []string) (mounts []sandbox.Mount, dest string, cleanup func(), err error) {
	var made []string
	cleanup = func() {
		for _, d := range made {
			os.RemoveAll(d)
		}
	}
	dest, err = os.MkdirTemp(g.tmp, "packed-")
	if err != nil {
		return nil, "", cleanup, err
	}
	made = append(made, dest)
	if err := os.Chmod(dest, 0o755); err != nil {
		return nil, "", cleanup, err
	}
	mounts = []sandbox.Mount{{Path: g.ws.Root}, {Path: dest, Write: true}}
	// Every node_modules a packed package resolves from, its own and those of the folders up to
	// the workspace root (hoisted), shows with a scratch layer: tools write caches there (Vite
	// its bundled config in .vite-temp, babel and terser .cache), and fail on a read-only one.
	scratch := map[string]bool{}
	for _, dir := range dirs {
		for d := dir; ; d = filepath.Dir(d) {
			nm := filepath.Join(d, "node_modules")
			if st, err := os.Stat(nm); err == nil && st.IsDir() && !scratch[nm] {
				scratch[nm] = true
				mounts = append(mounts, sandbox.Mount{Path: nm, Scratch: true})
			}
			if d == g.ws.Root || filepath.Dir(d) == d || !strings.HasPrefix(d, g.ws.Root) {
				break
			}
		}
	}
	for _, dir := range dirs {
		copyDir, err := os.MkdirTemp(g.tmp, "package-")
		if err != nil {
			return nil, "", cleanup, err
		}
		made = append(made, copyDir)
		if err := copyPackage(dir, copyDir); err != nil {
			return nil, "", cleanup, fmt.Errorf("copy %s for the pack tool: %w", g.rel(dir), err)
		}
		mounts = append(mounts, sandbox.Mount{Path: dir, Source: copyDir, Write: true})
		// What the copy leaves out shows through it: the package's node_modules (above), and
		// its .git, read-only, when the package is a repository of its own (a build that asks
		// git for the commit, as `git describe` for a version banner).
		if st, err := os.Stat(filepath.Join(dir, ".git")); err == nil && st.IsDir() {
			mounts = append(mounts, sandbox.Mount{Path: filepath.Join(dir, ".git")})
		}
	}
	return mounts, dest, cleanup, nil
}

// copyPackage copies a package folder, without its node_modules and .git, keeping modes and
// symbolic links.
func copyPackage(src, dst string) error {
	if err := os.Chmod(dst, 0o755); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "." {
			return nil
		}
		if d.IsDir() && (rel == "node_modules" || rel == ".git") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.IsDir():
			return os.Mkdir(target, info.Mode().Perm()|0o700)
		case d.Type().IsRegular():
			return copyFile(p, target, info.Mode().Perm())
		}
		return nil
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// moveTarball moves a tarball the pack tool wrote into --out, made this user's again.
func moveTarball(src, dst string) error {
	if err := sandbox.Reclaim(src); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := copyFile(src, dst, st.Mode().Perm()); err != nil {
		return err
	}
	return os.Remove(src)
}
