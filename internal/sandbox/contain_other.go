//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
)

// contained: only Linux has the namespaces.
const contained = false

// probe fails: the namespaces exist only on Linux.
func probe(ctx context.Context, s *Sandbox) error {
	return fmt.Errorf("%w: user, PID, mount and network namespaces exist only on Linux", ErrUnavailable)
}

// containedCommand runs the program directly, in a process group of its own (Mode Off).
func (s *Sandbox) containedCommand(c *Child, spec Spec, name, argv0 string, env []string, files []*os.File) error {
	home, err := os.MkdirTemp(c.tmp, "home-")
	if err != nil {
		return err
	}
	cmd := exec.Command(name, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = append(env, "HOME="+home, "TMPDIR="+c.tmp)
	cmd.ExtraFiles = files
	cmd.SysProcAttr = groupAttr()
	cmd.WaitDelay = 5e9
	c.Cmd = cmd
	return nil
}

// stop ends the program's process group.
func (c *Child) stop() { killTree(c.Cmd.Process.Pid) }

// Reclaim has nothing to give back where children run as this user.
func Reclaim(dir string) error { return nil }

// readStatus: there is no init to report.
func (c *Child) readStatus() {}
