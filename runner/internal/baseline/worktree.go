package baseline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
)

// Names of the temporary worktrees, one source of truth.
const (
	// tempPattern names the temporary directory holding a worktree.
	tempPattern = "agent-gauntlet-base-"
	// treeName is the worktree's directory inside it.
	treeName = "tree"
	// lockPrefix starts the lock reason of every worktree the gauntlet
	// makes: `agent-gauntlet baseline: pid <pid> on <host>`.
	lockPrefix = "agent-gauntlet baseline: "
)

// NoteWorktree is the Note of a result the worktree source ran.
const NoteWorktree = "run in a temporary worktree"

// removeTimeout bounds the removal of a worktree, which happens after the
// run's context may have ended.
const removeTimeout = 30 * time.Second

// Worktrees is the Source that runs a check on the base commit in a
// temporary detached worktree of it (`git worktree add --detach`, in the
// system's temporary directory), made on first use and shared by every
// check of the run, removed by Close. The user's work tree, index,
// branches and other worktrees are never touched; the worktree is locked
// while it exists, and one left by a process that died (SIGKILL, a power
// cut) is removed by the next run (PruneStale).
type Worktrees struct {
	root string
	mu   sync.Mutex
	// trees maps a commit to its worktree, or to why there is none.
	trees map[string]*tree
}

// tree is one temporary worktree.
type tree struct {
	// parent is the temporary directory; dir the worktree in it; root the
	// project root inside the worktree.
	parent, dir, root string
	err               error
}

// ErrNoWorktree is matched by the error of a base that could not be checked
// out into a temporary worktree (git failing, a full disk): nothing the
// change can fix, so the failure it was to judge reached no verdict (see
// Judge.unavailable).
var ErrNoWorktree = errors.New("cannot make a worktree of the base")

// NewWorktrees returns the worktree source of the project at root.
func NewWorktrees(root string) *Worktrees {
	return &Worktrees{root: root, trees: map[string]*tree{}}
}

// Base runs req's check on req.Commit: the same command, working directory,
// environment and timeout, with the changed files that exist at the base;
// its output is appended to req.Log between two marker lines.
func (w *Worktrees) Base(ctx context.Context, req Request) (Result, error) {
	t, err := w.tree(ctx, req.Commit)
	if err != nil {
		return Result{}, err
	}
	job := req.Job
	wd := job.WorkingDir
	if wd == "" {
		wd = "."
	}
	dir := filepath.Join(t.root, filepath.FromSlash(wd))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return Result{}, fmt.Errorf("the base has no working directory %s", wd)
	}
	files := presentFiles(t.root, job.Changed)
	if files != nil && len(files) == 0 && job.Check.Scoped() {
		return Result{Passed: true, Note: "none of its changed files exists on the base"}, nil
	}
	linkDependencies(w.root, t.root, wd)
	fmt.Fprintf(req.Log, "\n--- The same check on the base (commit %s, in a temporary worktree) ---\n", short(req.Commit))
	cmd := check.Command(job, req.BaseBranch)
	x := check.Exec{Command: cmd, Dir: dir, Env: check.Environ(req.BaseBranch),
		Files: check.GivenFiles(job, files), Timeout: job.Check.Timeout, Log: req.Log}
	began := time.Now()
	out := x.Run(ctx)
	fmt.Fprintf(req.Log, "\n--- End of the base run: %s ---\n", out.Message)
	switch {
	case out.TimedOut:
		return Result{}, fmt.Errorf("the base run did not finish: %s", out.Message)
	case out.Status == gate.StatusError:
		return Result{}, fmt.Errorf("the check could not run on the base: %s", out.Message)
	case out.Status == gate.StatusPass:
		return Result{Passed: true, Note: NoteWorktree}, nil
	}
	found, _ := check.ReadFindings(job, cmd, t.root, dir, out, req.Log, began)
	return Result{ExitCode: out.ExitCode, Findings: found, Note: NoteWorktree}, nil
}

// DependencyDirs are the directories of installed dependencies that a
// project keeps untracked beside its files (npm's node_modules, Python's
// virtual environments): a fresh checkout of the base has none, and a
// check run there would fail for want of its tools (eslint, pytest), not
// for the code. See linkDependencies.
var DependencyDirs = []string{"node_modules", ".venv", "venv"}

// linkDependencies gives the base worktree (the project at base) the
// dependency directories of the work tree (the project at work) that it
// lacks, in the project root and every directory down to the check's
// working directory wd (relative, slash-separated), as private copies
// (privateCopy): whatever the base run does to them (npm ci empties
// node_modules, pip installs into a virtual environment) stays in the
// worktree, removed with it.
func linkDependencies(work, base, wd string) {
	dirs := []string{"."}
	if wd != "." && wd != "" {
		parts := strings.Split(path.Clean(wd), "/")
		for i := range parts {
			dirs = append(dirs, strings.Join(parts[:i+1], "/"))
		}
	}
	for _, d := range dirs {
		for _, name := range DependencyDirs {
			src := filepath.Join(work, filepath.FromSlash(d), name)
			dst := filepath.Join(base, filepath.FromSlash(d), name)
			if st, err := os.Lstat(src); err != nil || !st.IsDir() {
				continue
			}
			if _, err := os.Lstat(dst); err == nil || !isDir(filepath.Dir(dst)) {
				continue // the base has its own, or not that directory
			}
			if err := privateCopy(src, dst); err != nil {
				_ = os.RemoveAll(dst) // the run goes on without it
			}
		}
	}
}

// maxCopiedBytes bounds what privateCopy copies: beyond it the base run
// goes without the dependency directory (and fails, saying so, if it
// needs it).
const maxCopiedBytes = 1 << 30

// privateCopy makes dst a copy of the directory tree src that nothing done
// in dst can change src through: directories and files are copied (the
// kernel copies file data itself, sharing blocks where the file system
// can), symbolic links made anew with the same target, or with dst in
// place of src when they point into src. Small files in bin/ that name
// src by its absolute path (a virtual environment's scripts, whose #!
// line would run the work tree's interpreter and install there) and
// pyvenv.cfg get dst's path instead. Hard links are not used: a write
// into a linked file would reach the work tree's.
func privateCopy(src, dst string) error {
	copied, real := int64(0), resolved(src)
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			for _, s := range []string{src, real} {
				if rest, ok := strings.CutPrefix(target, s+string(filepath.Separator)); ok && filepath.IsAbs(target) {
					target = filepath.Join(dst, rest)
					break
				}
			}
			return os.Symlink(target, to)
		case !info.Mode().IsRegular():
			return nil // sockets, fifos: nothing a check reads
		}
		if copied += info.Size(); copied > maxCopiedBytes {
			return fmt.Errorf("more than %d MB to copy", maxCopiedBytes>>20)
		}
		for _, s := range []string{src, real} {
			if namesSource(p, s, info) {
				return copyReplacing(p, to, s, dst, info.Mode().Perm())
			}
		}
		return copyFile(p, to, info.Mode().Perm())
	})
}

// copyFile copies the file from to a new file to with mode.
func copyFile(from, to string, mode fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// maxScriptBytes bounds the files namesSource reads: scripts, not data.
const maxScriptBytes = 64 << 10

// namesSource reports whether the file p (below src) is a small script or
// configuration file that holds src's absolute path: the scripts and
// activate files of a virtual environment.
func namesSource(p, src string, info fs.FileInfo) bool {
	if info.Size() > maxScriptBytes || filepath.Base(filepath.Dir(p)) != "bin" && filepath.Base(p) != "pyvenv.cfg" {
		return false
	}
	b, err := os.ReadFile(p)
	return err == nil && strings.Contains(string(b), src)
}

// copyReplacing copies the file from to to with mode, every occurrence of
// old replaced by new (none when old is "").
func copyReplacing(from, to, old, new string, mode fs.FileMode) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if old != "" {
		b = []byte(strings.ReplaceAll(string(b), old, new))
	}
	return os.WriteFile(to, b, mode)
}

// isDir reports whether p is a directory.
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// presentFiles are the files (relative to root) that exist there as
// files; nil for nil.
func presentFiles(root string, files []string) []string {
	if files == nil {
		return nil
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		if st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f))); err == nil && !st.IsDir() {
			out = append(out, f)
		}
	}
	return out
}

// tree returns the worktree of commit, made on the first call; its error
// is remembered (a failed checkout is not tried again by every check).
func (w *Worktrees) tree(ctx context.Context, commit string) (*tree, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t, ok := w.trees[commit]; ok {
		return t, t.err
	}
	t := &tree{}
	t.err = w.add(ctx, t, commit)
	if t.err != nil && ctx.Err() != nil {
		return t, t.err // canceled: not remembered
	}
	w.trees[commit] = t
	return t, t.err
}

// add makes the worktree of commit into t.
func (w *Worktrees) add(ctx context.Context, t *tree, commit string) error {
	PruneStale(ctx, w.root)
	prefix, err := git.Prefix(ctx, w.root)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoWorktree, err)
	}
	parent, err := os.MkdirTemp(tempDir(ctx, w.root), tempPattern)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoWorktree, err)
	}
	t.parent, t.dir = parent, filepath.Join(parent, treeName)
	if err := git.AddWorktree(ctx, w.root, t.dir, commit, lockReason()); err != nil {
		w.remove(t)
		t.parent = ""
		return fmt.Errorf("%w: %w", ErrNoWorktree, err)
	}
	t.root = filepath.Join(t.dir, filepath.FromSlash(prefix))
	return nil
}

// Close removes every worktree made, whatever state it is in.
func (w *Worktrees) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for c, t := range w.trees {
		w.remove(t)
		delete(w.trees, c)
	}
}

// remove deletes t's worktree (and its administrative entry) and its
// temporary directory.
func (w *Worktrees) remove(t *tree) {
	if t.parent == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	_ = git.RemoveWorktree(ctx, w.root, t.dir)
	_ = os.RemoveAll(t.parent)
	t.parent = ""
}

// tempDir is where temporary worktrees go: the system's temporary
// directory, unless it lies inside the project (TMPDIR pointing there),
// where a worktree would show as a change of the work tree; then the
// repository's git directory, which no change detection looks into.
func tempDir(ctx context.Context, root string) string {
	tmp := resolved(os.TempDir())
	rel, err := filepath.Rel(resolved(root), tmp)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return tmp
	}
	if dir, err := git.CommonDir(ctx, root); err == nil {
		return dir
	}
	return tmp
}

// lockReason is the lock reason of this process's worktrees.
func lockReason() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%spid %d on %s", lockPrefix, os.Getpid(), host)
}

// PruneStale removes the gauntlet's worktrees of the repository at root
// whose process is gone (it died before removing them): locked with our
// reason, on this host, by a pid that no longer runs. Worktrees of running
// gauntlets and everybody else's are left alone. Errors are ignored: the
// next run tries again.
func PruneStale(ctx context.Context, root string) {
	list, err := git.Worktrees(ctx, root)
	if err != nil {
		return
	}
	host, _ := os.Hostname()
	for _, wt := range list {
		if !staleWorktree(wt, host) {
			continue
		}
		if err := git.RemoveWorktree(ctx, root, wt.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if parent := filepath.Dir(wt.Path); filepath.Base(wt.Path) == treeName && strings.HasPrefix(filepath.Base(parent), tempPattern) {
			_ = os.RemoveAll(parent)
		}
	}
}

// staleWorktree reports whether wt is a worktree the gauntlet made on host
// for a process that no longer exists.
func staleWorktree(wt git.Worktree, host string) bool {
	rest, ok := strings.CutPrefix(wt.LockReason, lockPrefix)
	if !wt.Locked || !ok {
		return false
	}
	var pid int
	var on string
	if _, err := fmt.Sscanf(rest, "pid %d on %s", &pid, &on); err != nil || pid <= 0 || on != host {
		return false
	}
	return processGone(pid)
}

// short is a commit's abbreviation for messages.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// resolved is p with symbolic links resolved (p when that fails).
func resolved(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p
	}
	return r
}
