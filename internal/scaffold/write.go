package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plaios/plaios/internal/exit"
)

// fsOps are the file system calls Write makes, replaceable so that tests can fail one of them
// half way and check that nothing is left behind.
type fsOps struct {
	MkdirAll  func(string, fs.FileMode) error
	MkdirTemp func(dir, pattern string) (string, error)
	WriteFile func(string, []byte, fs.FileMode) error
	Rename    func(string, string) error
	RemoveAll func(string) error
	Remove    func(string) error
}

var osOps = fsOps{
	MkdirAll: os.MkdirAll, MkdirTemp: os.MkdirTemp, WriteFile: os.WriteFile,
	Rename: os.Rename, RemoveAll: os.RemoveAll, Remove: os.Remove,
}

// Write puts the package on disk: every file is first written into a staging folder next to
// the package folder, which is then renamed into place (or, with --force into an existing
// folder, each file is moved in after the file it replaces is put aside). The role map is
// changed last. When any step fails, everything done so far is undone: the folders created,
// the files moved in, the files put aside, and the role map.
func (s *Scaffold) Write() error { return s.write(osOps) }

func (s *Scaffold) write(ops fsOps) (err error) {
	var undo []func()
	var scratch []string // the staging folder and the folder of replaced files
	var created []string // the parent folders this write made
	defer func() {
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		}
		for _, d := range scratch {
			ops.RemoveAll(d)
		}
		if err != nil {
			removeEmpty(ops, created)
			err = exit.EnvErr(fmt.Errorf("%w; nothing was written", err))
		}
	}()

	parent := filepath.Dir(s.Dir)
	created, err = mkdirs(ops, parent)
	if err != nil {
		return fmt.Errorf("create %s: %w", parent, unwrapPath(err))
	}
	stage, err := ops.MkdirTemp(parent, ".plaios-create-"+s.Name+"-")
	if err != nil {
		return fmt.Errorf("create a staging folder in %s: %w", parent, unwrapPath(err))
	}
	scratch = append(scratch, stage)
	// MkdirTemp makes the folder 0700; the package folder it becomes takes the mode every
	// other folder gets (0777 less the umask), so that others — guard's sandbox, which runs
	// a pack's code as nobody when plaios is root — can read it.
	if err := os.Chmod(stage, folderMode(stage)); err != nil {
		return fmt.Errorf("create a staging folder in %s: %w", parent, unwrapPath(err))
	}
	for _, f := range s.Files {
		p := filepath.Join(stage, filepath.FromSlash(f.Path))
		if err := ops.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, unwrapPath(err))
		}
		if err := ops.WriteFile(p, f.Data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, unwrapPath(err))
		}
	}

	if _, statErr := os.Lstat(s.Dir); errors.Is(statErr, fs.ErrNotExist) {
		if err := ops.Rename(stage, s.Dir); err != nil {
			return fmt.Errorf("move the package into %s: %w", s.Dir, unwrapPath(err))
		}
		undo = append(undo, func() { ops.RemoveAll(s.Dir) })
	} else {
		// An existing folder (empty, or --force): move each file in, keeping what it replaces.
		aside, err := ops.MkdirTemp(parent, ".plaios-replaced-"+s.Name+"-")
		if err != nil {
			return fmt.Errorf("create a folder for replaced files in %s: %w", parent, unwrapPath(err))
		}
		scratch = append(scratch, aside)
		for _, f := range s.Files {
			rel := filepath.FromSlash(f.Path)
			target := filepath.Join(s.Dir, rel)
			dirs, err := mkdirs(ops, filepath.Dir(target))
			undo = append(undo, func() { removeEmpty(ops, dirs) })
			if err != nil {
				return fmt.Errorf("write %s: %w", f.Path, unwrapPath(err))
			}
			if _, err := os.Lstat(target); err == nil {
				kept := filepath.Join(aside, rel)
				if err := ops.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
					return fmt.Errorf("put %s aside: %w", f.Path, unwrapPath(err))
				}
				if err := ops.Rename(target, kept); err != nil {
					return fmt.Errorf("put %s aside: %w", f.Path, unwrapPath(err))
				}
				undo = append(undo, func() { ops.Remove(target); ops.Rename(kept, target) })
			}
			if err := ops.Rename(filepath.Join(stage, rel), target); err != nil {
				return fmt.Errorf("write %s: %w", f.Path, unwrapPath(err))
			}
			undo = append(undo, func() { ops.Remove(target) })
		}
	}

	if rm := s.RoleMap; rm != nil {
		tmp := rm.Path + ".plaios-tmp"
		if err := ops.WriteFile(tmp, rm.New, 0o644); err != nil {
			ops.Remove(tmp)
			return fmt.Errorf("update %s: %w", rm.Path, unwrapPath(err))
		}
		if err := ops.Rename(tmp, rm.Path); err != nil {
			ops.Remove(tmp)
			return fmt.Errorf("update %s: %w", rm.Path, unwrapPath(err))
		}
		undo = append(undo, func() { ops.WriteFile(rm.Path, rm.Old, 0o644) })
	}
	return nil
}

// mkdirs creates dir and its missing parents, returning the ones it created, deepest last.
func mkdirs(ops fsOps, dir string) ([]string, error) {
	var missing []string
	for cur := dir; ; cur = filepath.Dir(cur) {
		if _, err := os.Lstat(cur); err == nil {
			break
		}
		missing = append(missing, cur)
		if filepath.Dir(cur) == cur {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := ops.MkdirAll(missing[i], 0o755); err != nil {
			return created, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// removeEmpty removes the folders mkdirs created, deepest first, when they are empty.
func removeEmpty(ops fsOps, dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		ops.Remove(dirs[i])
	}
}

// unwrapPath keeps the reason of a *fs.PathError: the path is already in the message.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// RelDir is the package folder relative to base, in slash form (absolute when there is no
// relative path, as between drives).
func (s *Scaffold) RelDir(base string) string {
	r, err := filepath.Rel(base, s.Dir)
	if err != nil {
		return filepath.ToSlash(s.Dir)
	}
	return strings.TrimSuffix(filepath.ToSlash(r), "/")
}

// folderMode is the mode os.Mkdir gives a new folder here (0777 less the umask), read from a
// folder made for the purpose inside dir, so as not to change the process's umask.
func folderMode(dir string) fs.FileMode {
	probe := filepath.Join(dir, ".mode")
	if err := os.Mkdir(probe, 0o777); err != nil {
		return 0o755
	}
	defer os.Remove(probe)
	st, err := os.Stat(probe)
	if err != nil {
		return 0o755
	}
	return st.Mode().Perm()
}
