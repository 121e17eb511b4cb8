package bridge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/sandbox"
	"github.com/plaios/plaios/internal/workspace"
)

// Target is the package `plaios mcp serve` and `plaios export` work on, as the command line
// names it. Its methods give their errors the exit code the command ends with.
type Target struct {
	// WorkDir is the working directory (after -C): Path and the files an export names are
	// relative to it.
	WorkDir string
	// Path is the package folder as the user gave it ("." by default).
	Path string
	// Runtime, when not None, forces the pack's runtime (--runtime or the configuration's).
	Runtime pack.Runtime
	// Fixtures are the configuration's `fixtures:`, laid over the role map's
	// (workspace.FixtureOf), as guard reads them.
	Fixtures map[string]workspace.Fixture
}

// dir is Path as an absolute, clean folder.
func (t Target) dir() string {
	p := t.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.WorkDir, p)
	}
	return filepath.Clean(p)
}

// rel names file for the reader: relative to WorkDir when it is inside it, else as it is.
func (t Target) rel(file string) string {
	if rel, err := filepath.Rel(t.WorkDir, file); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return file
}

// open opens the package, refusing (exit 2) what is not one. force, when not None, is the
// runtime to read it as (export openclaw and pi read their runtime whatever Runtime says).
func (t Target) open(force pack.Runtime) (*Pack, error) {
	dir := t.dir()
	p, err := Open(dir, force, t.Fixtures)
	if err != nil {
		return nil, exit.UsageErr(err)
	}
	if p.Runtime() == pack.None && EntryFile(p, "openclaw") != "" {
		// An OpenClaw plugin whose manifest export openclaw has not written yet.
		if p, err = Open(dir, pack.OpenClaw, t.Fixtures); err != nil {
			return nil, exit.UsageErr(err)
		}
	}
	t.standaloneFixture(p)
	return p, nil
}

// standaloneFixture gives a pack that is no package of a workspace around it (one installed in
// a project's node_modules, a folder of its own) the fixtures keyed by its path from the
// working directory, where a user's .plaios.yaml names it (node_modules/@framers/agentos-ext-
// telegram), laid over those its own folder's key (".") gave it.
func (t Target) standaloneFixture(p *Pack) {
	if p.Pack.Dir != "." || len(t.Fixtures) == 0 {
		return
	}
	rel, err := filepath.Rel(t.WorkDir, p.Dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return
	}
	p.Fixture = workspace.MergeFixtures(p.Fixture, workspace.FixtureOf(nil, filepath.ToSlash(rel), t.Fixtures))
}

// OpenRuntime opens the package and refuses (exit 2) a package of no runtime plaios knows: the
// tools of `mcp serve` and `export hermes` come from a runtime's contract. A pack that is not
// built fails (exit 1) before any node process starts.
func (t Target) OpenRuntime() (*Pack, error) {
	p, err := t.open(t.Runtime)
	if err != nil {
		return nil, err
	}
	if p.Runtime() == pack.None {
		return nil, exit.Usagef("%s is not a pack of a runtime plaios knows: it has no agent-os.package.yaml, no manifest.json declaring extensions and no dependency on @framers/agentos, no openclaw.plugin.json and no pi field in package.json; give --runtime to force one", t.Path)
	}
	if err := refuseUnbuilt(p, t.Path); err != nil {
		return nil, err
	}
	return p, nil
}

// openBuiltEntry opens the package as rt (OpenClaw or Pi) and checks that the entry the
// runtime loads exists: an unknown entry is a usage mistake (the message of noEntry), a pack
// that is not built or an entry that is missing fails.
func (t Target) openBuiltEntry(rt pack.Runtime, entryOf func(*Pack) string, noEntry, what string) (*Pack, string, error) {
	p, err := t.open(rt)
	if err != nil {
		return nil, "", err
	}
	entry := entryOf(p)
	if entry == "" {
		return nil, "", exit.Usagef("%s", noEntry)
	}
	if err := refuseUnbuilt(p, t.Path); err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(filepath.Join(p.Dir, filepath.FromSlash(entry))); err != nil {
		return nil, "", exit.Failf("the built entry %s does not exist; build the %s first", entry, what)
	}
	return p, entry, nil
}

// refuseUnbuilt fails (exit 1) a pack whose runtime would load a file its build makes and that
// is not there yet, saying so and how to build it, before any node process is started.
func refuseUnbuilt(p *Pack, path string) error {
	if msg := NotBuilt(p, path); msg != "" {
		return exit.Failf("%s", msg)
	}
	return nil
}

// loadFailure gives a loader's failure its exit code: a pack that did not load fails (1),
// node or the sandbox missing is the environment (3).
func loadFailure(err error) error {
	var le *LoadError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &le):
		return exit.Failf("the pack did not load: %s", le.Reason)
	case errors.Is(err, context.Canceled):
		return exit.Failf("interrupted")
	case errors.Is(err, sandbox.ErrUnavailable), strings.Contains(err.Error(), "node is not on PATH"):
		return exit.EnvErr(err)
	}
	var ee *exit.Error
	if errors.As(err, &ee) {
		return err
	}
	return exit.EnvErr(err)
}

// exportLoadTimeout bounds loading a pack for an export.
const exportLoadTimeout = 60 * time.Second

// loadInert loads the pack once with guard's inert inputs, so that every tool shows, and
// refuses (exit 1) tool names MCP clients would refuse. The loader is returned closed: what
// it knows (EnvNames) stays readable.
func loadInert(ctx context.Context, p *Pack, secrets map[string]string) (*Loader, *Loaded, error) {
	l, err := NewLoader(ctx, &Loader{Pack: p, SecretEnv: secrets, Timeout: exportLoadTimeout})
	if err != nil {
		return nil, nil, loadFailure(err)
	}
	res, err := Load(ctx, l)
	l.Close()
	if err != nil {
		return nil, nil, loadFailure(err)
	}
	if err := CheckNames(res.Tools); err != nil {
		return nil, nil, exit.FailErr(err)
	}
	return l, res, nil
}
