package scaffold

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/semver"
	"github.com/plaios/plaios/internal/workspace"
)

// Install is how the package's dependencies get installed: the command and where it runs.
type Install struct {
	Tool string   // npm or pnpm
	Args []string // install …
	Dir  string   // the repository root when the package is one of its workspace packages, else the package folder
}

// String is the command line a person would type.
func (in Install) String() string {
	s := in.Tool
	for _, a := range in.Args {
		s += " " + a
	}
	return s
}

// InstallPlan decides how to install: pnpm when the repository has pnpm-workspace.yaml or
// packManager says so (config `packManager`), else npm; at the root when the new package is
// one of the repository's workspace packages, else in the package folder. Call it after Write.
func (s *Scaffold) InstallPlan(packManager string) Install {
	tool := packManager
	if tool == "" {
		tool = "npm"
		if _, err := os.Stat(filepath.Join(s.Root, "pnpm-workspace.yaml")); err == nil {
			tool = "pnpm"
		}
	}
	dir := s.Dir
	if rel, err := filepath.Rel(s.Root, s.Dir); err == nil && s.Root != s.Dir {
		if ws, err := workspace.Open(s.Root); err == nil && ws.Source != "single" && ws.Package(filepath.ToSlash(rel)) != nil {
			dir = s.Root
		}
	}
	args := []string{"install"}
	if tool == "npm" {
		args = append(args, "--no-audit", "--no-fund")
	}
	return Install{Tool: tool, Args: args, Dir: dir}
}

// Run runs the install with its output on w. A failure is an environment error (exit 3) that
// says the package was written and how to install by hand.
func (in Install) Run(ctx context.Context, w io.Writer, where string) error {
	path, err := exec.LookPath(in.Tool)
	if err != nil {
		return exit.Envf("the package was written to %s, but %s is not installed; install it, then run `%s` in %s", where, in.Tool, in.String(), in.Dir)
	}
	cmd := exec.CommandContext(ctx, path, in.Args...)
	cmd.Dir = in.Dir
	cmd.Stdout = w
	cmd.Stderr = w
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		reason := err.Error()
		if errors.As(err, &ee) {
			reason = fmt.Sprintf("it exited with status %d", ee.ExitCode())
		}
		return exit.Envf("the package was written to %s, but `%s` failed (%s); fix the cause and run it by hand in %s", where, in.String(), reason, in.Dir)
	}
	return nil
}

// NodeNeed is the Node a runtime's packs need for their install, when the machine's Node 20
// is not enough: the engines of a peer the install brings in.
type NodeNeed struct {
	Peer    string // the package that needs it
	Pack    string // what the runtime's packs are called: "an OpenClaw plugin"
	Range   string // its engines.node
	Minimum string // the same, for a person: "24.16"
}

// NodeNeeds returns what the install of a runtime's pack needs of Node, nil when any Node
// plaios supports will do. OpenClaw plugins take `openclaw` as a peer, which npm installs with
// them and whose preinstall refuses a Node older than its engines (>=24.16.0 <25 || >=26.1.0).
func NodeNeeds(runtime string) *NodeNeed {
	if runtime == OpenClaw {
		return &NodeNeed{Peer: "openclaw", Pack: "an OpenClaw plugin", Range: DefaultVersions.OpenClawNode, Minimum: "24.16"}
	}
	return nil
}

// CheckNode refuses, before anything is written or installed, to install a pack of runtime
// with a node (the one on PATH when empty) its peer does not run on: the install would spend a
// minute and then fail. It says nothing when the runtime needs no particular Node or when
// there is no node to ask (the install then says what is missing).
func CheckNode(ctx context.Context, runtime, node string) error {
	need := NodeNeeds(runtime)
	if need == nil {
		return nil
	}
	if node == "" {
		p, err := exec.LookPath("node")
		if err != nil {
			return nil
		}
		node = p
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return nil
	}
	have := strings.TrimSpace(string(out))
	v, err := semver.ParseLoose(strings.TrimPrefix(have, "v"))
	r, rerr := semver.ParseRange(need.Range)
	if err != nil || rerr != nil || r.Contains(v) {
		return nil
	}
	return exit.Envf("the `%s` peer of %s needs Node %s or later (its engines: %s) and node here is %s, so its install would fail; switch to Node 24 (for example `nvm install 24`) and run create again, or add --no-install to write the pack now and install it with Node 24 later",
		need.Peer, need.Pack, need.Minimum, need.Range, have)
}
