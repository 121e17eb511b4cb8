//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The init is this binary started as initName with its orders in the initEnv variable.
const (
	initName = "plaios-sandbox-init"
	initEnv  = "PLAIOS_SANDBOX_INIT"
)

// initProgram, when set, is the init's executable instead of this binary. Only a link can
// set it (-X), and no build plaios ships does: the init is then the very binary that runs
// (/proc/self/exe). make test sets it to a build of ./internal/sandbox/initbin without the
// race detector, as the init of every race-built test binary and of the plaios they run: such
// a binary costs 80–100 ms of CPU at every start before its first line runs, the plain init
// under 20, and a test run starts about 1,150 inits.
var initProgram string

// initExecutable is the file the init is started from.
func initExecutable() (string, error) {
	if initProgram == "" {
		return "/proc/self/exe", nil
	}
	if _, err := os.Stat(initProgram); err != nil {
		return "", fmt.Errorf("the sandbox's init, %s, which this build was linked to start, cannot be started: %w", initProgram, err)
	}
	return initProgram, nil
}

// initSpec is what the init is told to do.
type initSpec struct {
	Contained bool        `json:"contained"`
	Root      string      `json:"root"`      // an empty host folder to build the new root on
	ProgramID int         `json:"programId"` // the user and group the program runs as
	Mounts    []initMount `json:"mounts"`
	Links     []initLink  `json:"links"`
	Path      string      `json:"path"`
	Argv      []string    `json:"argv"`
	Env       []string    `json:"env"`
	Dir       string      `json:"dir"`
	Memory    int64       `json:"memory"`
	Processes int         `json:"processes"`
	Fds       int         `json:"fds"`      // fds 3… passed on to the program
	StatusFD  int         `json:"statusFd"` // where the init reports
	ProbeOnly bool        `json:"probeOnly"`
}

// initMount is one host file or folder shown to the child.
type initMount struct {
	Path   string `json:"path"`
	Source string `json:"source"`
	Write  bool   `json:"write"`
	File   bool   `json:"file"`
	// Upper and Work, when set, make it an overlay over Source whose writes land in Upper.
	Upper string `json:"upper,omitempty"`
	Work  string `json:"work,omitempty"`
}

// initLink is a system path: a folder shown read-only, or (Target set) a symbolic link.
type initLink struct {
	Path   string `json:"path"`
	Target string `json:"target,omitempty"`
}

// initStatus is the init's report.
type initStatus struct {
	Error      string `json:"error,omitempty"`
	Exit       int    `json:"exit"`
	Memory     bool   `json:"memory,omitempty"`
	Processes  bool   `json:"processes,omitempty"`
	PeakMemory int64  `json:"peakMemory,omitempty"`
}

func init() {
	if len(os.Args) > 0 && os.Args[0] == initName && os.Getenv(initEnv) != "" {
		os.Exit(runInit())
	}
}

// The page size for /proc's statm.
var pageSize = int64(os.Getpagesize())

// runInit is the init: it builds the child's world, drops what the child must not hold,
// runs the program and watches it.
func runInit() int {
	runtime.LockOSThread() // credentials, capabilities and no_new_privs are per thread
	var spec initSpec
	if err := json.Unmarshal([]byte(os.Getenv(initEnv)), &spec); err != nil {
		fmt.Fprintf(os.Stderr, "plaios sandbox init: %v\n", err)
		return 125
	}
	os.Unsetenv(initEnv)
	if spec.ProbeOnly {
		return 0
	}
	status := os.NewFile(uintptr(spec.StatusFD), "status")
	unix.CloseOnExec(spec.StatusFD)
	report := func(st initStatus) {
		data, _ := json.Marshal(st)
		_, _ = status.Write(data)
	}
	fail := func(layer string, err error) int {
		report(initStatus{Error: fmt.Sprintf("the kernel refused %s (%v)", layer, err)})
		return 125
	}
	if spec.Contained {
		if layer, err := buildRoot(&spec); err != nil {
			return fail(layer, err)
		}
	} else {
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	if err := os.Chdir(spec.Dir); err != nil {
		report(initStatus{Error: fmt.Sprintf("the working folder %s is not among what the child sees (%v)", spec.Dir, err)})
		return 125
	}
	if layer, err := limit(&spec); err != nil {
		return fail(layer, err)
	}
	if layer, err := dropPrivileges(); err != nil {
		return fail(layer, err)
	}
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	for fd := 3; fd < 3+spec.Fds; fd++ {
		files = append(files, os.NewFile(uintptr(fd), "fd"))
	}
	attr := &os.ProcAttr{Dir: spec.Dir, Env: spec.Env, Files: files}
	if !spec.Contained {
		// Without namespaces the program leads a process group of its own, and dies with the init.
		attr.Sys = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	} else if spec.ProgramID != 0 {
		id := uint32(spec.ProgramID)
		attr.Sys = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: id, Gid: id, Groups: []uint32{}}}
	}
	proc, err := os.StartProcess(spec.Path, spec.Argv, attr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "plaios: cannot start %s in the sandbox: %v\n", spec.Path, err)
		report(initStatus{Exit: 127})
		return 127
	}
	for _, f := range files[3:] {
		f.Close()
	}
	w := &watcher{spec: &spec, pid: proc.Pid}
	if !spec.Contained {
		// Without a PID namespace to end, plaios stops a child by asking its init (SIGTERM),
		// which ends the program's group and everything else it started (endAll).
		term := make(chan os.Signal, 1)
		signal.Notify(term, unix.SIGTERM)
		go func() {
			<-term
			w.endAll()
		}()
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.watch(stop)
	}()
	code := w.reap()
	close(stop)
	wg.Wait()
	report(initStatus{Exit: code, Memory: w.overMemory.Load(), Processes: w.overProcesses.Load(), PeakMemory: w.peak.Load()})
	return code
}

// buildRoot makes the child's root: a tmpfs holding the system folders (read-only), the
// mounts, a private /tmp, devices and a /proc of the new PID namespace; then pivots into it.
// It returns the layer that failed.
func buildRoot(spec *initSpec) (string, error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return "a mount namespace", err
	}
	root := spec.Root
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=16m"); err != nil {
		return "a tmpfs for the new root", err
	}
	for _, l := range spec.Links {
		target := root + l.Path
		if l.Target != "" {
			if err := os.Symlink(l.Target, target); err != nil {
				return "a link to " + l.Path, err
			}
			continue
		}
		if err := os.MkdirAll(target, 0o755); err != nil {
			return "a folder for " + l.Path, err
		}
		if err := bindReadOnly(l.Path, target); err != nil {
			return "a read-only view of " + l.Path, err
		}
	}
	if err := os.MkdirAll(root+"/tmp", 0o755); err != nil {
		return "a private /tmp", err
	}
	if err := unix.Mount("tmpfs", root+"/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=1g,nr_inodes=262144"); err != nil {
		return "a private /tmp", err
	}
	if err := os.MkdirAll(root+"/tmp/home", 0o700); err != nil {
		return "a private HOME", err
	}
	if err := os.Chown(root+"/tmp/home", spec.ProgramID, spec.ProgramID); err != nil {
		return "a private HOME", err
	}
	if layer, err := makeDev(root); err != nil {
		return layer, err
	}
	if err := os.MkdirAll(root+"/proc", 0o555); err != nil {
		return "a private /proc", err
	}
	if err := unix.Mount("proc", root+"/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return "a /proc of the child's own PID namespace", err
	}
	sort.SliceStable(spec.Mounts, func(i, j int) bool { return spec.Mounts[i].Path < spec.Mounts[j].Path })
	for _, m := range spec.Mounts {
		target := root + m.Path
		if m.File {
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return "a folder for " + m.Path, err
			}
			if f, err := os.OpenFile(target, os.O_CREATE|os.O_RDONLY, 0o644); err == nil {
				f.Close()
			}
		} else if err := os.MkdirAll(target, 0o755); err != nil {
			if _, serr := os.Stat(target); serr != nil {
				return "a folder for " + m.Path, err
			}
		}
		if m.Upper != "" {
			opts := "lowerdir=" + overlayEscape(m.Source) + ",upperdir=" + overlayEscape(m.Upper) + ",workdir=" + overlayEscape(m.Work)
			if err := unix.Mount("overlay", target, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts); err == nil {
				continue
			}
			// A kernel that refuses overlays in a user namespace (before 5.11): read-only.
		}
		// Not recursive: what is mounted below a folder the step names (the sandbox's own new
		// root, when the temporary folder lies inside the workspace) stays out of sight.
		if err := unix.Mount(m.Source, target, "", unix.MS_BIND, ""); err != nil {
			return "a view of " + m.Path, err
		}
		if m.Write {
			_ = setMountAttr(target, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
		} else if err := readOnly(target); err != nil {
			return "a read-only view of " + m.Path, err
		}
	}
	if err := os.MkdirAll(root+"/.oldroot", 0o700); err != nil {
		return "pivot_root", err
	}
	if err := unix.PivotRoot(root, root+"/.oldroot"); err != nil {
		return "pivot_root", err
	}
	if err := os.Chdir("/"); err != nil {
		return "pivot_root", err
	}
	if err := unix.Unmount("/.oldroot", unix.MNT_DETACH); err != nil {
		return "hiding the host's root", err
	}
	_ = os.Remove("/.oldroot")
	if err := unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return "a read-only root", err
	}
	return "", nil
}

// overlayEscape escapes what overlayfs's options give a meaning to: the option separator, the
// lower layers' separator and the escape itself.
func overlayEscape(p string) string {
	return strings.NewReplacer(`\`, `\\`, `,`, `\,`, `:`, `\:`).Replace(p)
}

// makeDev gives the child the harmless devices, bound from the host's, and the usual links.
func makeDev(root string) (string, error) {
	dev := root + "/dev"
	if err := os.MkdirAll(dev, 0o755); err != nil {
		return "a /dev", err
	}
	for _, d := range []string{"null", "zero", "full", "random", "urandom"} {
		target := dev + "/" + d
		f, err := os.OpenFile(target, os.O_CREATE|os.O_RDONLY, 0o644)
		if err != nil {
			return "/dev/" + d, err
		}
		f.Close()
		if err := unix.Mount("/dev/"+d, target, "", unix.MS_BIND, ""); err != nil {
			return "/dev/" + d, err
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, dev+"/"+name); err != nil {
			return "/dev/" + name, err
		}
	}
	if err := os.MkdirAll(dev+"/shm", 0o1777); err != nil {
		return "/dev/shm", err
	}
	if err := unix.Mount("tmpfs", dev+"/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=1777,size=64m"); err != nil {
		return "/dev/shm", err
	}
	return "", nil
}

func bindReadOnly(src, target string) error {
	if err := unix.Mount(src, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	return readOnly(target)
}

// readOnly makes a mount and every mount below it read-only (and nosuid, nodev).
func readOnly(target string) error {
	err := setMountAttr(target, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err == nil {
		return nil
	}
	// Before Linux 5.12: remount the top mount, keeping the flags it may not lose.
	var st unix.Statfs_t
	if serr := unix.Statfs(target, &st); serr != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st.Flags&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	return unix.Mount("", target, "", flags, "")
}

// setMountAttr sets attributes on a mount and those below it (mount_setattr, Linux 5.12+).
func setMountAttr(target string, attr uint64) error {
	return unix.MountSetattr(unix.AT_FDCWD, target, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: attr})
}

// limit sets the limits a single process cannot pass: its data segment (a backstop to the
// watcher's sum), the number of tasks of the child's user, core dumps.
func limit(spec *initSpec) (string, error) {
	data := uint64(spec.Memory) + 512<<20
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: data, Max: data}); err != nil {
		return "a memory limit (RLIMIT_DATA)", err
	}
	if spec.Contained {
		// Threads count: node runs about ten per process.
		tasks := uint64(spec.Processes) * 16
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: tasks, Max: tasks}); err != nil {
			return "a process limit (RLIMIT_NPROC)", err
		}
	}
	if err := unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{}); err != nil {
		return "no core dumps (RLIMIT_CORE)", err
	}
	return "", nil
}

// The securebits that keep user 0 of the child's namespace from regaining capabilities.
const (
	secbitNoroot                  = 1 << 0
	secbitNorootLocked            = 1 << 1
	secbitKeepCapsLocked          = 1 << 5
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7
)

// dropPrivileges keeps the program the init starts from ever holding a capability: the
// bounding set emptied, user 0 given no capability by exec (securebits), ambient capabilities
// cleared and locked, no_new_privs. The init's own thread keeps its effective capabilities,
// which it needs to end the program and what it leaves; the program, started as another user
// or as a user 0 that exec gives nothing, holds none.
func dropPrivileges() (string, error) {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	bits := secbitNoroot | secbitNorootLocked | secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return "locking the securebits", err
	}
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if err == unix.EINVAL {
				break
			}
			return "dropping the capability bounding set", err
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return "clearing the ambient capabilities", err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return "reading the capabilities", err
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return "clearing the inheritable capabilities", err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return "no_new_privs", err
	}
	return "", nil
}

func isPermission(err error) bool { return err == unix.EPERM }

// watcher follows the program and everything in the child's namespace.
type watcher struct {
	spec          *initSpec
	pid           int
	exited        atomic.Bool
	overMemory    atomic.Bool
	overProcesses atomic.Bool
	peak          atomic.Int64
}

// reap waits for the program, then ends and reaps whatever it left, and returns its exit
// code (128+signal when a signal ended it).
func (w *watcher) reap() int {
	code := -1
	for {
		var ws unix.WaitStatus
		var ru unix.Rusage
		pid, err := unix.Wait4(-1, &ws, 0, &ru)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			break // no child left
		}
		if rss := ru.Maxrss * 1024; rss > w.peak.Load() {
			w.peak.Store(rss)
		}
		if pid == w.pid {
			w.exited.Store(true)
			switch {
			case ws.Exited():
				code = ws.ExitStatus()
			case ws.Signaled():
				code = 128 + int(ws.Signal())
			}
			if w.spec.Contained {
				// Whatever the program left behind goes with it: the whole namespace.
				_ = unix.Kill(-1, unix.SIGKILL)
			}
		}
		if !w.spec.Contained && w.exited.Load() {
			w.endAll() // what the program left, and what that left in turn as it died
		}
	}
	return code
}

// endAll ends, without a PID namespace, the program's process group and every child of the
// init: the init is a subreaper, so what a process leaves when it dies (a detached daemon, which
// leads a group of its own) becomes the init's child. reap calls it again after every process it
// reaps once the program has ended, until no child is left.
func (w *watcher) endAll() {
	_ = unix.Kill(-w.pid, unix.SIGKILL)
	for _, pid := range initChildren() {
		_ = unix.Kill(-pid, unix.SIGKILL) // its group, when it leads one
		_ = unix.Kill(pid, unix.SIGKILL)
	}
}

// initChildren lists the init's children, from every one of its threads.
func initChildren() []int {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var out []int
	for _, f := range tasks {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(field); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

// watch samples, every few milliseconds, the resident memory and the number of the
// processes in the child's namespace (the program alone when not contained), and ends them
// all when a limit is passed.
func (w *watcher) watch(stop <-chan struct{}) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	buf := make([]byte, 256)
	for {
		var total int64
		n := 0
		pids := []int{w.pid}
		if w.spec.Contained {
			pids = namespacePids()
		}
		for _, pid := range pids {
			rss := residentOf(pid, buf)
			if rss < 0 {
				continue
			}
			total += rss
			n++
		}
		if total > w.peak.Load() {
			w.peak.Store(total)
		}
		over := ""
		if total > w.spec.Memory {
			w.overMemory.Store(true)
			over = "memory"
		} else if w.spec.Contained && n > w.spec.Processes {
			w.overProcesses.Store(true)
			over = "processes"
		}
		if over != "" && !w.exited.Load() {
			if w.spec.Contained {
				_ = unix.Kill(-1, unix.SIGKILL)
			} else {
				_ = unix.Kill(-w.pid, unix.SIGKILL)
			}
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// namespacePids lists the processes of the child's PID namespace but the init.
func namespacePids() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var out []int
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pid != 1 {
			out = append(out, pid)
		}
	}
	return out
}

// residentOf reads a process's resident memory from /proc (bytes; -1 when it is gone).
func residentOf(pid int, buf []byte) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return -1
	}
	n, _ := f.Read(buf)
	f.Close()
	fields := strings.Fields(string(buf[:n]))
	if len(fields) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return -1
	}
	return pages * pageSize
}
