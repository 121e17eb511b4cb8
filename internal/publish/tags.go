package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/plaios/plaios/internal/exit"
)

// gitCmd runs git in the repository; the error holds git's stderr, redacted.
func (r *run) gitCmd(args ...string) (string, error) {
	return r.gitInput("", args...)
}

// gitInput runs git with stdin.
func (r *run) gitInput(stdin string, args ...string) (string, error) {
	c := exec.CommandContext(r.ctx, "git", args...)
	if stdin != "" {
		c.Stdin = strings.NewReader(stdin)
	}
	c.Dir = r.repo.Dir
	c.Env = append(append([]string{}, r.env...), "GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never", "LC_ALL=C", "LANGUAGE=C", "GIT_PAGER=cat")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if s := strings.TrimSpace(stderr.String()); s != "" {
		r.logf("git %s: %s", args[0], s)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.Is(err, exec.ErrNotFound) || !errors.As(err, &ee) {
			return "", exit.Envf("git could not be run (%v); install git and try again", err)
		}
		return stdout.String(), &gitFailure{args: args, stderr: r.red.Redact(stderr.String())}
	}
	return stdout.String(), nil
}

// gitFailure is a git command that exited non-zero.
type gitFailure struct {
	args   []string
	stderr string
}

func (e *gitFailure) Error() string { return gitReason(e.stderr) }

// gitReason is the part of git's stderr a person needs: the rejection, the hook's words, the
// fatal error.
func gitReason(stderr string) string {
	var keep []string
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "", strings.HasPrefix(line, "To "), strings.HasPrefix(line, "hint:"):
		case strings.HasPrefix(line, "remote:"):
			if s := strings.TrimSpace(strings.TrimPrefix(line, "remote:")); s != "" {
				keep = append(keep, s)
			}
		default:
			keep = append(keep, strings.TrimPrefix(strings.TrimPrefix(line, "fatal: "), "error: "))
		}
	}
	if len(keep) > 4 {
		keep = keep[:4]
	}
	if len(keep) == 0 {
		return "git failed without saying why"
	}
	return strings.Join(keep, "; ")
}

// transientGit are pieces of git's stderr that mean the network failed, not the request.
var transientGit = []string{
	"connection reset", "timed out", "the remote end hung up unexpectedly", "early eof",
	"rpc failed", "returned error: 5", "returned error: 429", "couldn't connect to server",
	"failed to connect", "temporary failure in name resolution", "could not resolve host",
	"connection refused", "gnutls", "ssl_read", "ssl_connect", "http/2 stream", "broken pipe",
	"internal server error", "bad gateway", "service unavailable",
}

func isTransientGit(err error) bool {
	var gf *gitFailure
	if !errors.As(err, &gf) {
		return false
	}
	low := strings.ToLower(gf.stderr)
	for _, s := range transientGit {
		if strings.Contains(low, s) {
			return true
		}
	}
	return false
}

// remoteURL returns the URL of the remote, or a usage error when there is no such remote.
func (r *run) remoteURL() (string, error) {
	out, err := r.gitCmd("remote", "get-url", "--", r.opts.Remote)
	if err != nil {
		if exit.Code(err) == exit.Env {
			return "", err
		}
		return "", exit.Usagef("%q is not a remote of this repository; give --remote the remote to push the tags to", r.opts.Remote)
	}
	return strings.TrimSpace(out), nil
}

// remoteTags reads the release tags on the remote (annotated tags peeled), retrying
// transient failures. Any failure is the environment's: nothing can be decided without it.
func (r *run) remoteTags() (map[string]string, error) {
	args := []string{"ls-remote", "--tags", "--", r.opts.Remote}
	for _, o := range r.res.Releases {
		args = append(args, "refs/tags/"+o.Tag)
	}
	var err error
	for try := 1; try <= r.opts.Attempts; try++ {
		if try > 1 && !r.wait(try, 0) {
			return nil, context.Canceled
		}
		var out string
		out, err = r.gitCmd(args...)
		if err == nil {
			return parseLsRemote(out), nil
		}
		if exit.Code(err) == exit.Env || !isTransientGit(err) {
			break
		}
	}
	return nil, exit.Envf("cannot read the tags of the remote %s (%v); check that it is reachable and that git may read it", r.opts.Remote, err)
}

// parseLsRemote reads `git ls-remote --tags` output into tag → commit.
func parseLsRemote(out string) map[string]string {
	tags := map[string]string{}
	peeled := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		id, ref, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok {
			continue
		}
		name, ok := strings.CutPrefix(ref, "refs/tags/")
		if !ok {
			continue
		}
		if base, ok := strings.CutSuffix(name, "^{}"); ok {
			peeled[base] = id
			continue
		}
		tags[name] = id
	}
	for name, id := range peeled {
		tags[name] = id
	}
	return tags
}

// checkTags fails, before anything is published, the releases whose tag exists at another
// commit on the remote, or only locally at another commit.
func (r *run) checkTags() {
	for _, o := range r.res.Releases {
		if o.Failed() {
			continue
		}
		if id, ok := r.remote[o.Tag]; ok && id != r.res.Head {
			r.fail(o, "tag", false, "the tag %s already exists on %s at %s, not at the plan's head %s; a release is tagged once — find out who made that tag, and write a new version if it is right", o.Tag, r.opts.Remote, short(id), short(r.res.Head))
			continue
		}
		if _, ok := r.remote[o.Tag]; ok {
			continue
		}
		if id, ok := r.local[o.Tag]; ok && id != r.res.Head {
			r.fail(o, "tag", false, "the local tag %s points at %s, not at the plan's head %s, and %s does not have it; delete it (git tag -d %s) if it is stale", o.Tag, short(id), short(r.res.Head), r.opts.Remote, o.Tag)
		}
	}
}

// tagStep tags the releases that are on the registry and pushes the new tags in one push.
func (r *run) tagStep() {
	var push, create []*Outcome
	for _, o := range r.res.Releases {
		if o.Failed() || (o.Registry != StatusPublished && o.Registry != StatusSkipped && o.Registry != StatusWouldPublish) {
			continue
		}
		if r.stopped() {
			r.fail(o, "tag", false, reasonStopped)
			continue
		}
		if r.remote[o.Tag] == r.res.Head {
			o.Tagging = StatusExists
			r.emit(Event{Event: "tag", Name: o.Name, Version: o.Version, Tag: o.Tag, Status: StatusExists, Commit: r.res.Head})
			continue
		}
		if _, ok := r.local[o.Tag]; !ok && !r.opts.DryRun {
			create = append(create, o)
		}
		push = append(push, o)
	}
	r.createTags(create)
	push = slices.DeleteFunc(push, (*Outcome).Failed)
	if len(push) == 0 {
		return
	}
	var tags []string
	for _, o := range push {
		tags = append(tags, o.Tag)
	}
	if r.opts.DryRun {
		for _, o := range push {
			o.Tagging = StatusWouldPush
			r.emit(Event{Event: "tag", Name: o.Name, Version: o.Version, Tag: o.Tag, Status: StatusWouldPush, Commit: r.res.Head})
		}
		r.emit(Event{Event: "push", Remote: r.opts.Remote, Tags: tags, Status: StatusWouldPush})
		return
	}
	r.progress("tag", 0, len(push), "")
	env, err := r.push(tags)
	if err != nil {
		for _, o := range push {
			r.fail(o, "tag", env, "the tag was not pushed: %v", err)
		}
		r.emit(Event{Event: "push", Remote: r.opts.Remote, Tags: tags, Status: StatusFailed, Reason: err.Error()})
		return
	}
	for _, o := range push {
		o.Tagging = StatusPushed
		r.emit(Event{Event: "tag", Name: o.Name, Version: o.Version, Tag: o.Tag, Status: StatusPushed, Commit: r.res.Head})
	}
	r.emit(Event{Event: "push", Remote: r.opts.Remote, Tags: tags, Status: StatusPushed})
	r.progress("tag", len(push), len(push), "")
}

// createTags creates lightweight local tags at the head, only where missing: one
// `git update-ref --stdin` transaction whose "create" refuses an existing ref. When the
// transaction fails, each tag is created alone, so that the failure lands on the right release.
func (r *run) createTags(create []*Outcome) {
	if len(create) == 0 {
		return
	}
	var stdin strings.Builder
	for _, o := range create {
		fmt.Fprintf(&stdin, "create refs/tags/%s %s\n", o.Tag, r.res.Head)
	}
	if _, err := r.gitInput(stdin.String(), "update-ref", "-m", "plaios publish", "--stdin"); err == nil {
		for _, o := range create {
			r.local[o.Tag] = r.res.Head
		}
		return
	}
	for _, o := range create {
		if _, err := r.gitCmd("update-ref", "-m", "plaios publish", "refs/tags/"+o.Tag, r.res.Head, ""); err != nil {
			if exit.Code(err) == exit.Env {
				r.fail(o, "tag", true, "%v", err)
			} else {
				r.fail(o, "tag", false, "git could not create the tag %s (%v)", o.Tag, err)
			}
			continue
		}
		r.local[o.Tag] = r.res.Head
	}
}

// push pushes the tags in one atomic push, retrying transient failures after checking whether
// the failed try reached the remote. env reports whether the failure is the network's.
func (r *run) push(tags []string) (env bool, err error) {
	atomic := true
	for try := 1; try <= r.opts.Attempts; try++ {
		if try > 1 {
			if !r.wait(try, 0) {
				return false, errors.New(reasonStopped)
			}
			if have, err := r.remoteTags(); err == nil && allAt(have, tags, r.res.Head) {
				return false, nil
			}
		}
		args := []string{"push"}
		if atomic {
			args = append(args, "--atomic")
		}
		args = append(args, "--", r.opts.Remote)
		for _, t := range tags {
			args = append(args, "refs/tags/"+t+":refs/tags/"+t)
		}
		_, err = r.gitCmd(args...)
		if err == nil {
			return false, nil
		}
		if exit.Code(err) == exit.Env {
			return true, err
		}
		var gf *gitFailure
		if atomic && errors.As(err, &gf) && strings.Contains(strings.ToLower(gf.stderr), "does not support --atomic") {
			atomic = false
			try--
			continue
		}
		if !isTransientGit(err) {
			return false, fmt.Errorf("git push to %s was rejected (%v)", r.opts.Remote, err)
		}
		r.logf("git push to %s failed (%v); trying again", r.opts.Remote, err)
	}
	return true, fmt.Errorf("%s could not be reached after %d attempts (%v)", r.opts.Remote, r.opts.Attempts, err)
}

func allAt(have map[string]string, tags []string, head string) bool {
	for _, t := range tags {
		if have[t] != head {
			return false
		}
	}
	return true
}
