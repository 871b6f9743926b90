package baseline

import (
	"context"
	"errors"
	"fmt"
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
		Files: check.RelFiles(job.WorkingDir, files), Timeout: job.Check.Timeout, Log: req.Log}
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
// lacks, as symbolic links: in the project root and every directory down
// to the check's working directory wd (relative, slash-separated). The
// links are removed with the worktree; what they point to is not.
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
			if st, err := os.Stat(src); err != nil || !st.IsDir() {
				continue
			}
			if _, err := os.Lstat(dst); err == nil || !isDir(filepath.Dir(dst)) {
				continue // the base has its own, or not that directory
			}
			_ = os.Symlink(src, dst) // a concurrent check may have made it
		}
	}
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
		return fmt.Errorf("cannot make a worktree of the base: %w", err)
	}
	parent, err := os.MkdirTemp(tempDir(ctx, w.root), tempPattern)
	if err != nil {
		return fmt.Errorf("cannot make a worktree of the base: %w", err)
	}
	t.parent, t.dir = parent, filepath.Join(parent, treeName)
	if err := git.AddWorktree(ctx, w.root, t.dir, commit, lockReason()); err != nil {
		w.remove(t)
		t.parent = ""
		return fmt.Errorf("cannot make a worktree of the base: %w", err)
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
