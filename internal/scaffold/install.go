package scaffold

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/plaios/plaios/internal/exit"
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
