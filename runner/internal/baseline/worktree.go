package baseline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	// lockPrefix starts what the owner file of every checkout the
	// gauntlet makes says: `agent-gauntlet baseline: pid <pid> on <host>`
	// (earlier versions locked worktrees with the same words).
	lockPrefix = "agent-gauntlet baseline: "
	// ownerFile is the file beside the checkout that names its owner.
	ownerFile = "owner"
)

// NoteWorktree is the Note of a result the worktree source ran.
const NoteWorktree = "run in a temporary worktree"

// Worktrees is the Source that runs a check on the base commit in a
// temporary private checkout of it (git.PrivateCheckout, in the system's
// temporary directory): a repository of its own that borrows the user's
// objects read-only, made on first use and shared by every check of the
// run, removed by Close. The base run's world is private (private.go):
// copies of the dependency directories and an environment whose paths into
// the project name the checkout. The user's work tree, index, refs, stash,
// config, hooks and worktree list are never touched; a checkout left by a
// process that died (SIGKILL, a power cut) is removed by the next run
// (PruneStale).
type Worktrees struct {
	root string
	mu   sync.Mutex
	// trees maps a commit to its worktree, or to why there is none.
	trees map[string]*tree
}

// tree is one temporary private checkout.
type tree struct {
	// parent is the temporary directory; dir the checkout in it; root the
	// project root inside the checkout; workTop the top of the user's work
	// tree, which dir stands for.
	parent, dir, root, workTop string
	err                        error
	// reloc is the mapping of the user's paths to the checkout's, which
	// the dependency copies extend (see relocation).
	mu    sync.Mutex
	reloc *relocation
	// copies are the dependency directories copied into the checkout,
	// each with why it is no evidence ("" when verified): see
	// copyDependencies, which holds copying while it works.
	copying sync.Mutex
	copies  map[string]string
}

// dependencies gives the checkout the dependency directories the working
// directory wd sees (copyDependencies), once for the run; it returns why
// any of them does not hold what was installed.
func (t *tree) dependencies(ctx context.Context, workRoot, wd string) []string {
	t.copying.Lock()
	defer t.copying.Unlock()
	if t.copies == nil {
		t.copies = map[string]string{}
	}
	return copyDependencies(ctx, workRoot, t.root, wd, t.relocation(), t.copies)
}

// relocation is t's mapping from the user's paths to the checkout's.
func (t *tree) relocation() *relocation {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.reloc == nil {
		t.reloc = newRelocation(t.workTop, t.dir)
	}
	return t.reloc
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
	unverified := t.dependencies(ctx, w.root, wd)
	reloc := t.relocation()
	fmt.Fprintf(req.Log, "\n--- The same check on the base (commit %s, in a temporary worktree) ---\n", short(req.Commit))
	cmd := check.Command(job, req.BaseBranch)
	x := check.Exec{Command: cmd, Dir: dir, Env: reloc.environ(check.Environ(req.BaseBranch)),
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
	return Result{ExitCode: out.ExitCode, Findings: found, Note: NoteWorktree, Unverified: unverified}, nil
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

// add makes the private checkout of commit into t, in a temporary
// directory that names its owner (ownerFile), so that one a killed
// gauntlet left is removed by the next run.
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
	if err := os.WriteFile(filepath.Join(parent, ownerFile), []byte(ownerText()), 0o644); err != nil {
		w.remove(t)
		return fmt.Errorf("cannot make a worktree of the base: %w", err)
	}
	if err := git.PrivateCheckout(ctx, w.root, t.dir, commit); err != nil {
		w.remove(t)
		t.parent = ""
		return fmt.Errorf("%w: %w", ErrNoWorktree, err)
	}
	t.root = filepath.Join(t.dir, filepath.FromSlash(prefix))
	t.workTop = w.root
	for range strings.Split(strings.Trim(prefix, "/"), "/") {
		if prefix != "" {
			t.workTop = filepath.Dir(t.workTop)
		}
	}
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
	_ = removeAll(t.parent)
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

// ownerText is what the owner file of this process's checkouts says:
// `agent-gauntlet baseline: pid <pid> on <host>` (the lock reason the
// worktrees of earlier versions had).
func ownerText() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%spid %d on %s", lockPrefix, os.Getpid(), host)
}

// PruneStale removes the gauntlet's temporary checkouts of the repository
// at root whose process is gone (it died before removing them): the
// directories of its name in the temporary directory whose owner file
// names a pid on this host that no longer runs, and the worktrees that
// earlier versions made, locked with the same words. Checkouts of running
// gauntlets and everybody else's directories are left alone. Errors are
// ignored: the next run tries again.
func PruneStale(ctx context.Context, root string) {
	host, _ := os.Hostname()
	dirs, _ := filepath.Glob(filepath.Join(tempDir(ctx, root), tempPattern+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err == nil && staleOwner(string(b), host) {
			_ = removeAll(d)
		}
	}
	list, err := git.Worktrees(ctx, root)
	if err != nil {
		return
	}
	for _, wt := range list {
		if !wt.Locked || !staleOwner(wt.LockReason, host) {
			continue
		}
		if err := git.RemoveWorktree(ctx, root, wt.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if parent := filepath.Dir(wt.Path); filepath.Base(wt.Path) == treeName && strings.HasPrefix(filepath.Base(parent), tempPattern) {
			_ = removeAll(parent)
		}
	}
}

// staleOwner reports whether owner (an owner file's text, or a worktree's
// lock reason) names a process on host that no longer exists.
func staleOwner(owner, host string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(owner), lockPrefix)
	if !ok {
		return false
	}
	var pid int
	var on string
	if _, err := fmt.Sscanf(rest, "pid %d on %s", &pid, &on); err != nil || pid <= 0 || on != host {
		return false
	}
	return processGone(pid)
}

// removeAll removes the directory tree p, whatever the modes its
// directories were left with (a Go module cache is read-only).
func removeAll(p string) error {
	if err := os.RemoveAll(p); err == nil {
		return nil
	}
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(q, 0o700)
		}
		return nil
	})
	return os.RemoveAll(p)
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
