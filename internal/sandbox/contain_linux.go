//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/plaios/plaios/internal/realpath"
)

// contained: on Linux children are contained in namespaces unless the mode is Off.
const contained = true

// unprivilegedID is the host user and group a child runs as when plaios runs as root:
// nobody, which owns nothing a child could use.
const unprivilegedID = 65534

// systemPaths are the host folders every contained child sees, read-only (symbolic links
// among them, as /bin → usr/bin, are made again as links).
var systemPaths = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/nix"}

// cloneFlags are the namespaces of a contained child.
func cloneFlags(network bool) uintptr {
	f := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP)
	if !network {
		f |= syscall.CLONE_NEWNET
	}
	return f
}

// childIDs is the host uid and gid a contained child runs as, and whether plaios is
// privileged (root).
func childIDs() (uid, gid int, privileged bool) {
	if os.Geteuid() == 0 {
		return unprivilegedID, unprivilegedID, true
	}
	return os.Getuid(), os.Getgid(), false
}

// namespaceAttr starts the init in new namespaces as user 0 of its user namespace. As root,
// user 0 is root (so that the init can reach every folder it must show) and user 1 is nobody,
// whom the program runs as; otherwise user 0 is this user, the only one there is.
func namespaceAttr(flags uintptr) *syscall.SysProcAttr {
	uid, gid, privileged := childIDs()
	attr := &syscall.SysProcAttr{
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}},
		Credential:  &syscall.Credential{Uid: 0, Gid: 0, NoSetGroups: true},
		Setpgid:     true,
		Pdeathsig:   syscall.SIGKILL,
	}
	if privileged {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: 1, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: 1, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = true
		attr.Credential = &syscall.Credential{Uid: 0, Gid: 0}
	}
	return attr
}

// programID is the user of the child's namespace the program runs as: nobody (1) when plaios
// is root, else user 0 (this user).
func programID() int {
	if _, _, privileged := childIDs(); privileged {
		return 1
	}
	return 0
}

// containedCommand makes c.Cmd: this binary as the child's init, in namespaces unless the
// mode is Off, told what to mount and run.
func (s *Sandbox) containedCommand(c *Child, spec Spec, name, argv0 string, env []string, files []*os.File) error {
	is := initSpec{
		Contained: s.mode != Off,
		Path:      name,
		Argv:      append([]string{argv0}, spec.Args...),
		Dir:       spec.Dir,
		Memory:    c.memory,
		Processes: c.processes,
		Fds:       len(files),
	}
	if is.Dir == "" {
		is.Dir = "/"
	}
	extra := append([]*os.File(nil), files...)
	if is.Contained {
		env = append(env, "HOME=/tmp/home", "TMPDIR=/tmp")
		mounts, err := s.mounts(spec, name)
		if err != nil {
			return err
		}
		for _, m := range mounts {
			src := m.Source
			if src == "" {
				src = m.Path
			}
			st, err := os.Stat(src)
			if err != nil {
				return fmt.Errorf("the sandbox cannot show %s to the child: %w", src, err)
			}
			if m.Write {
				if err := giveToChild(src); err != nil {
					return err
				}
			}
			im := initMount{Path: m.Path, Source: src, Write: m.Write, File: !st.IsDir()}
			if m.Scratch && !m.Write && st.IsDir() {
				if im.Upper, im.Work, err = c.scratchLayer(s.dir); err != nil {
					return err
				}
			}
			is.Mounts = append(is.Mounts, im)
		}
		is.Root = s.rootDir()
		is.ProgramID = programID()
		is.Links = systemLinks()
		if spec.Network {
			// The resolver's configuration may live outside /etc (/run/systemd/resolve).
			if p, err := realpath.Resolve("/etc/resolv.conf"); err == nil && !strings.HasPrefix(p, "/etc/") && !underAny(p, systemPaths) {
				is.Mounts = append(is.Mounts, initMount{Path: p, Source: p, File: true})
			}
		}
	} else {
		home := filepath.Join(c.tmp, "home")
		if err := os.MkdirAll(home, 0o700); err != nil {
			return err
		}
		env = append(env, "HOME="+home, "TMPDIR="+c.tmp)
	}
	is.Env = env
	stR, stW, err := os.Pipe()
	if err != nil {
		return err
	}
	extra = append(extra, stW)
	c.closeMe = append(c.closeMe, stW)
	c.status = stR
	is.StatusFD = 2 + len(extra)
	data, err := json.Marshal(is)
	if err != nil {
		return err
	}
	initPath, err := initExecutable()
	if err != nil {
		return err
	}
	cmd := &exec.Cmd{Path: initPath, Args: []string{initName}, Env: initEnviron(string(data)), ExtraFiles: extra}
	if is.Contained {
		cmd.SysProcAttr = namespaceAttr(cloneFlags(spec.Network))
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		c.gentle = true
	}
	cmd.WaitDelay = 5 * time.Second
	c.Cmd = cmd
	return nil
}

// initEnviron is the init's whole environment: its instructions, and GORACE when plaios has
// one. The init is this binary; a race-built plaios (the tests' binaries are) reads GORACE at
// start and would otherwise sleep a second at every exit of an init (GORACE's default
// atexit_sleep_ms). A release build ignores it; the program the init starts never sees it.
func initEnviron(instructions string) []string {
	env := []string{initEnv + "=" + instructions}
	if v, ok := os.LookupEnv("GORACE"); ok {
		env = append(env, "GORACE="+v)
	}
	return env
}

// mounts lists what the child sees besides the system: the sandbox's scripts, the program's
// installation and node's, and what spec names; paths resolved, nothing shown twice.
func (s *Sandbox) mounts(spec Spec, program string) ([]Mount, error) {
	var out []Mount
	add := func(m Mount) error {
		if !filepath.IsAbs(m.Path) {
			return fmt.Errorf("the sandbox shows only absolute paths, not %s", m.Path)
		}
		if m.Source == "" {
			real, err := realpath.Resolve(m.Path)
			if err != nil {
				return fmt.Errorf("the sandbox cannot show %s to the child: %w", m.Path, err)
			}
			m.Path = real
		} else if real, err := realpath.Resolve(m.Source); err == nil {
			m.Source = real
		}
		if !m.Write && m.Source == "" && underAny(m.Path, systemPaths) {
			return nil
		}
		if !m.Write {
			if err := readableByChild(m.Path); err != nil {
				return err
			}
		}
		out = append(out, m)
		return nil
	}
	if err := add(Mount{Path: filepath.Join(s.dir, "node")}); err != nil {
		return nil, err
	}
	for _, p := range []string{program, s.node} {
		if root := installRoot(p); root != "" {
			if err := add(Mount{Path: root}); err != nil {
				return nil, err
			}
		}
	}
	for _, m := range spec.Mounts {
		if err := add(m); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	// A read-only path inside another read-only one of the same source adds nothing, unless
	// a mount between them hides what the outer one shows there.
	var kept []Mount
	for _, m := range out {
		// The innermost mount kept so far that holds m decides; of two at the same path, the
		// later, which lies on top (a package folder's writable copy over the read-only
		// workspace, when the package is the workspace root).
		var holder *Mount
		for i := range kept {
			k := &kept[i]
			if m.Path == k.Path || strings.HasPrefix(m.Path, k.Path+"/") {
				if holder == nil || len(k.Path) >= len(holder.Path) {
					holder = k
				}
			}
		}
		if holder != nil && !m.Write && !m.Scratch && !holder.Write && !holder.Scratch && m.Source == "" && holder.Source == "" {
			continue
		}
		kept = append(kept, m)
	}
	return kept, nil
}

// installRoot is the folder holding a program's installation: for a script of a node
// package (npm-cli.js, pnpm.cjs) the package's folder, for a binary the folder above its bin/.
func installRoot(program string) string {
	real, err := realpath.Resolve(program)
	if err != nil {
		return ""
	}
	dir := filepath.Dir(real)
	for d, i := dir, 0; i < 4 && d != "/"; d, i = filepath.Dir(d), i+1 {
		if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
			return d
		}
	}
	if filepath.Base(dir) == "bin" {
		return filepath.Dir(dir)
	}
	return dir
}

func underAny(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// systemLinks lists the system paths of this host: a folder to show read-only, or a
// symbolic link to make again.
func systemLinks() []initLink {
	var out []initLink
	for _, p := range systemPaths {
		st, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			if target, err := os.Readlink(p); err == nil {
				out = append(out, initLink{Path: p, Target: target})
			}
			continue
		}
		if st.IsDir() {
			out = append(out, initLink{Path: p})
		}
	}
	return out
}

// scratchLayer makes the upper and work folders of an overlay in the child's own temporary
// folder (removed by Close): the upper, where the child's writes land, is the child's.
func (c *Child) scratchLayer(sandboxDir string) (upper, work string, err error) {
	if c.tmp == "" {
		if c.tmp, err = os.MkdirTemp(sandboxDir, "child-"); err != nil {
			return "", "", err
		}
	}
	layer, err := os.MkdirTemp(c.tmp, "scratch-")
	if err != nil {
		return "", "", err
	}
	upper, work = filepath.Join(layer, "upper"), filepath.Join(layer, "work")
	for _, d := range []string{upper, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return "", "", err
		}
	}
	if err := os.Chmod(layer, 0o755); err != nil {
		return "", "", err
	}
	return upper, work, giveToChild(upper)
}

// giveToChild makes a folder the child may write writable by the unprivileged user it runs
// as (when plaios runs as root; otherwise the child is this user already).
func giveToChild(dir string) error {
	uid, gid, privileged := childIDs()
	if !privileged {
		return nil
	}
	return chownTree(dir, uid, gid)
}

// Reclaim gives back to this process's user what a child wrote into a writable folder, so
// that the files plaios keeps (tarballs in --out) are not left to the unprivileged user.
func Reclaim(dir string) error {
	if _, _, privileged := childIDs(); !privileged {
		return nil
	}
	return chownTree(dir, os.Getuid(), os.Getgid())
}

func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := os.Lchown(p, uid, gid); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("give %s to the sandboxed child: %w", p, err)
		}
		return nil
	})
}

// stopGrace is how long an init without namespaces has, once asked, to end what the child
// started before it is killed itself.
const stopGrace = 5 * time.Second

// stop ends the child: a contained one by killing its init, which takes its PID namespace
// with it; one without namespaces by asking its init, which ends the program's group and
// every process left to it (a detached grandchild leads a group of its own), and killing the
// init if it has not ended within stopGrace.
func (c *Child) stop() {
	if !c.gentle {
		killTree(c.Cmd.Process.Pid)
		return
	}
	select {
	case <-c.ended:
		return // the init has ended, and ended everything before it did
	default:
	}
	_ = c.Cmd.Process.Signal(syscall.SIGTERM)
	go func() {
		t := time.NewTimer(stopGrace)
		defer t.Stop()
		select {
		case <-c.ended:
		case <-t.C:
			killTree(c.Cmd.Process.Pid)
		}
	}()
}

// killTree ends a child's init, and with it (as the init of its PID namespace, or the
// leader of its process group) everything it started.
func killTree(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// readStatus reads the init's report after it ended.
func (c *Child) readStatus() {
	if c.status == nil {
		return
	}
	data, _ := io.ReadAll(io.LimitReader(c.status, 1<<16))
	c.status.Close()
	c.status = nil
	var st initStatus
	if json.Unmarshal(bytes.TrimSpace(data), &st) != nil {
		return
	}
	c.st.Memory, c.st.Processes, c.st.PeakMemory = st.Memory, st.Processes, st.PeakMemory
	if st.Error != "" {
		c.setupErr = fmt.Errorf("%w: %s", ErrUnavailable, st.Error)
	}
}

// probe starts an init that builds the whole containment and exits at once; when the kernel
// refuses a layer it says which.
func probe(ctx context.Context, s *Sandbox) error {
	c, err := s.Command(Spec{Name: s.node, Args: []string{"--version"}})
	if err != nil {
		return err
	}
	defer c.Close()
	var out bytes.Buffer
	c.Cmd.Stdout, c.Cmd.Stderr = &out, &out
	if err := c.Start(); err != nil {
		return fmt.Errorf("%w: %s", ErrUnavailable, refusedLayer(c.Cmd.Path, err))
	}
	go func() {
		<-ctx.Done()
		c.Kill()
	}()
	_, _ = io.Copy(io.Discard, c.Events)
	st := c.Wait()
	if c.setupErr != nil {
		return c.setupErr
	}
	if st.ExitCode != 0 {
		return fmt.Errorf("%w: node --version exited with code %d inside it: %s", ErrUnavailable, st.ExitCode, strings.TrimSpace(out.String()))
	}
	return nil
}

// refusedLayer names the namespace the kernel refused when the init (initPath) could not
// start, by trying them one at a time.
func refusedLayer(initPath string, startErr error) string {
	layers := []struct {
		name string
		flag uintptr
	}{
		{"a user namespace", syscall.CLONE_NEWUSER},
		{"a PID namespace", syscall.CLONE_NEWPID},
		{"a mount namespace", syscall.CLONE_NEWNS},
		{"a network namespace", syscall.CLONE_NEWNET},
		{"an IPC namespace", syscall.CLONE_NEWIPC},
		{"a UTS namespace", syscall.CLONE_NEWUTS},
		{"a cgroup namespace", syscall.CLONE_NEWCGROUP},
	}
	var flags uintptr
	for _, l := range layers {
		flags |= l.flag
		cmd := &exec.Cmd{Path: initPath, Args: []string{initName}, Env: initEnviron(`{"fds":0,"statusFd":0,"probeOnly":true}`)}
		cmd.SysProcAttr = namespaceAttr(flags)
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				return fmt.Sprintf("the kernel refused %s (%v)", l.name, err)
			}
		}
	}
	return fmt.Sprintf("the child could not be started in its namespaces (%v)", startErr)
}

// readableByChild refuses, in one sentence, a folder or file the child could not read: as
// root plaios runs a pack's code as nobody, so a folder only its owner may enter (a 0700
// folder from mktemp or a umask of 077) would surface later as a module node cannot find.
// Only the path itself is looked at; the folders above it are the new root's own.
func readableByChild(path string) error {
	uid, gid, privileged := childIDs()
	if !privileged {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil // the mount itself reports it
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	mode := st.Mode().Perm()
	var bits fs.FileMode
	switch {
	case int(sys.Uid) == uid:
		bits = mode >> 6
	case int(sys.Gid) == gid:
		bits = mode >> 3
	default:
		bits = mode
	}
	need := fs.FileMode(4)
	if st.IsDir() {
		need = 5
	}
	if bits&need != need {
		return fmt.Errorf("%s (mode %04o) cannot be read by the user the sandbox runs a pack's code as (nobody, because plaios runs as root): make it readable to others (chmod o+rX), or run plaios as an ordinary user", path, mode)
	}
	return nil
}
