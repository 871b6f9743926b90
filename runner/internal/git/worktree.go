package git

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// Worktree is one entry of `git worktree list --porcelain`.
type Worktree struct {
	// Path is the worktree's directory.
	Path string
	// Locked is true for a locked worktree; LockReason is its reason.
	Locked     bool
	LockReason string
}

// Worktrees lists the worktrees of the repository at root, the main one
// first. Entries whose path git had to quote (a newline in it) are left
// out: none of the gauntlet's own is ever named so.
func Worktrees(ctx context.Context, root string) ([]Worktree, error) {
	out, err := output(ctx, root, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	return parseWorktrees(string(out)), nil
}

// parseWorktrees reads `git worktree list --porcelain`: blank-line separated
// records of "key value" lines.
func parseWorktrees(out string) []Worktree {
	var list []Worktree
	var cur *Worktree
	for _, l := range strings.Split(out, "\n") {
		key, value, _ := strings.Cut(l, " ")
		switch key {
		case "worktree":
			list = append(list, Worktree{Path: value})
			cur = &list[len(list)-1]
			if strings.HasPrefix(value, `"`) {
				cur.Path = ""
			}
		case "locked":
			if cur != nil {
				cur.Locked, cur.LockReason = true, value
			}
		case "":
			cur = nil
		}
	}
	kept := list[:0]
	for _, w := range list {
		if w.Path != "" {
			kept = append(kept, w)
		}
	}
	return kept
}

// AddWorktree checks out commit, detached, into a new worktree at dir (an
// absolute path that does not exist or is an empty directory), locked with
// reason so that no `git worktree prune` takes it away while it is used.
// The user's hooks do not run (core.hooksPath is emptied): the checkout is
// ours, not theirs. The user's work tree, index and branches are untouched;
// the repository gains the worktree's administrative entry until
// RemoveWorktree.
func AddWorktree(ctx context.Context, root, dir, commit, reason string) error {
	if err := checkRef("commit", commit); err != nil {
		return err
	}
	_, _, err := run(ctx, call{root: root, args: []string{"-c", "core.hooksPath=/dev/null", "worktree", "add",
		"--detach", "--lock", "--reason", reason, "--", dir, commit}})
	if err != nil {
		return fmt.Errorf("create a worktree of %s: %w", commit, err)
	}
	return nil
}

// RemoveWorktree deletes the worktree at dir and its administrative entry,
// locked, modified or already deleted.
func RemoveWorktree(ctx context.Context, root, dir string) error {
	_, _, err := run(ctx, call{root: root, args: []string{"worktree", "remove", "--force", "--force", "--", dir}})
	if err != nil {
		return fmt.Errorf("remove the worktree %s: %w", dir, err)
	}
	return nil
}

// Prefix is the project root's path below the top level of its work tree,
// slash-separated with a trailing slash ("" at the top level).
func Prefix(ctx context.Context, root string) (string, error) { return showPrefix(ctx, root) }

// BaseCommit is the commit a change set of spec started from: what
// baselines compare with. Local and CI changes: the merge base of the base
// branch and HEAD (CI: Head); uncommitted changes: HEAD; one commit: its
// parent; the previous run's change set (verification, when only it is
// left): where it started (FixBase). The error says why there is none (no
// merge base, a root commit, no commits, changes that began before the
// first commit: ErrNoBase).
func BaseCommit(ctx context.Context, root string, spec gate.DiffSpec) (string, error) {
	switch spec.Mode {
	case gate.DiffUncommitted:
		head, err := Head(ctx, root)
		if err == nil && head == "" {
			err = ErrNoCommits
		}
		return head, err
	case gate.DiffCommit:
		_, _, label, err := commitRange(ctx, root, spec.Commit)
		if err != nil {
			return "", err
		}
		if label == "root" {
			return "", fmt.Errorf("commit %s has no parent to compare with", spec.Commit)
		}
		return ResolveCommit(ctx, root, spec.Commit+"^")
	case gate.DiffFixBase:
		if spec.FixBase == EmptyTree {
			return "", ErrNoBase
		}
		c, err := ResolveCommit(ctx, root, spec.FixBase)
		if err == nil && c == "" {
			err = fmt.Errorf("%s names no commit", spec.FixBase)
		}
		return c, err
	case gate.DiffCI:
		head, err := ciHead(ctx, root, spec)
		if err != nil {
			return "", err
		}
		return mergeBaseOf(ctx, root, spec.BaseBranch, head)
	case gate.DiffLocal, "":
		head, err := Head(ctx, root)
		if err != nil {
			return "", err
		}
		if head == "" {
			return "", ErrNoCommits
		}
		return mergeBaseOf(ctx, root, spec.BaseBranch, head)
	}
	return "", fmt.Errorf("no base commit for diff mode %q", spec.Mode)
}

// mergeBaseOf is the merge base of the base branch and head, an error
// naming the problem when there is none.
func mergeBaseOf(ctx context.Context, root, base, head string) (string, error) {
	sha, err := ResolveBase(ctx, root, base)
	if err != nil {
		return "", err
	}
	mb, err := MergeBase(ctx, root, sha, head)
	if err != nil {
		return "", err
	}
	if mb == "" {
		shallow := false
		if out, serr := line(ctx, root, "rev-parse", "--is-shallow-repository"); serr == nil {
			shallow = out == "true"
		}
		return "", &NoMergeBaseError{Branch: base, Shallow: shallow}
	}
	return mb, nil
}

// CommonDir is the absolute git directory shared by every worktree of the
// repository at root (where `git worktree add` keeps its entries).
func CommonDir(ctx context.Context, root string) (string, error) {
	dir, err := line(ctx, root, "rev-parse", "--git-common-dir")
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return dir, nil
}

// PrivateCheckout makes dir (an absolute path that does not exist) a
// repository of its own checked out, detached, at commit: it borrows the
// objects of the repository at root read-only (objects/info/alternates),
// holds a copy of its branches, tags and remote-tracking refs (its stash
// left out), its shallow boundary and the settings that decide how files
// are checked out (object format, line endings, filters); its refs,
// stash, config, hooks, index and objects written are its own, and it has
// no remote. Nothing done in dir (a commit, a stash, `git config`, a
// push, a hook installed) reaches root's repository, whose worktree list
// stays as it was. The user's hooks do not run.
func PrivateCheckout(ctx context.Context, root, dir, commit string) error {
	if err := checkRef("commit", commit); err != nil {
		return err
	}
	common, err := CommonDir(ctx, root)
	if err != nil {
		return fmt.Errorf("a private checkout of %s: %w", commit, err)
	}
	format, err := line(ctx, root, "rev-parse", "--show-object-format")
	if err != nil || format == "" {
		format = "sha1"
	}
	refs, err := output(ctx, root, "for-each-ref", "--format=create %(refname) %(objectname)")
	if err != nil {
		return fmt.Errorf("a private checkout of %s: %w", commit, err)
	}
	settings, _ := output(ctx, root, "config", "--local", "--null", "--get-regexp", checkoutSettings)
	env := ownRepository(dir)
	in := func(args []string, stdin string) error {
		_, _, err := run(ctx, call{root: dir, args: args, env: env, stdin: stdin})
		return err
	}
	steps := []func() error{
		func() error { return os.Mkdir(dir, 0o700) },
		func() error { return in([]string{"init", "-q", "--object-format=" + format}, "") },
		func() error { return borrowObjects(common, filepath.Join(dir, ".git")) },
		func() error { return copySettings(settings, in) },
		func() error { return in([]string{"update-ref", "--stdin"}, keptRefs(string(refs))) },
		func() error {
			return in([]string{"-c", "core.hooksPath=/dev/null", "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", commit, "--"}, "")
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("a private checkout of %s: %w", commit, err)
		}
	}
	return nil
}

// checkoutSettings are the repository settings that decide what a
// checkout writes (a pattern of `git config --get-regexp`).
const checkoutSettings = `^(core\.(autocrlf|eol|safecrlf|symlinks|ignorecase|precomposeunicode|checkroundtripencoding)|filter\..*|lfs\..*)$`

// borrowObjects points the new git directory gitDir at the objects of the
// repository whose common directory is common, and copies its shallow
// boundary (history beyond it is absent, not lost).
func borrowObjects(common, gitDir string) error {
	objects := filepath.Join(common, "objects")
	if err := os.WriteFile(filepath.Join(gitDir, "objects", "info", "alternates"), []byte(objects+"\n"), 0o644); err != nil {
		return err
	}
	shallow, err := fsread.File(filepath.Join(common, "shallow"), maxGitFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(gitDir, "shallow"), shallow, 0o644)
}

// ownRepository is the environment of git commands in the repository at
// dir: whatever GIT_DIR and the like say in the gauntlet's environment
// (they name the user's repository), git works on dir's own.
func ownRepository(dir string) []string {
	gitDir := filepath.Join(dir, ".git")
	return []string{"GIT_DIR=" + gitDir, "GIT_WORK_TREE=" + dir, "GIT_INDEX_FILE=" + filepath.Join(gitDir, "index"),
		"GIT_COMMON_DIR=" + gitDir, "GIT_OBJECT_DIRECTORY=" + filepath.Join(gitDir, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=", "GIT_NAMESPACE="}
}

// copySettings sets with git (in) the settings listed (the NUL-separated
// output of `git config --null --get-regexp`).
func copySettings(list []byte, in func(args []string, stdin string) error) error {
	for _, entry := range splitZ(list) {
		key, value, _ := strings.Cut(entry, "\n")
		if err := in([]string{"config", "--local", "--add", key, value}, ""); err != nil {
			return err
		}
	}
	return nil
}

// keptRefs are the update-ref commands of a private checkout: every ref
// but the stash.
func keptRefs(list string) string {
	var b strings.Builder
	for _, l := range strings.Split(list, "\n") {
		if l == "" || strings.HasPrefix(l, "create refs/stash ") {
			continue
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}
