package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// snapshotMessage is the message of a working-tree snapshot commit.
const snapshotMessage = "agent-gauntlet working tree snapshot"

// snapshotIdentity makes commit-tree work without a configured identity.
var snapshotIdentity = []string{
	"GIT_AUTHOR_NAME=agent-gauntlet", "GIT_AUTHOR_EMAIL=agent-gauntlet@localhost",
	"GIT_COMMITTER_NAME=agent-gauntlet", "GIT_COMMITTER_EMAIL=agent-gauntlet@localhost",
}

// SnapshotTree writes a tree object holding the work tree as it is: tracked
// files with their current content and untracked files that are not
// ignored. It works on a temporary copy of the index (GIT_INDEX_FILE), so the
// user's index, stash and work tree are never touched. Paths under the
// exclude directories (repo-relative, such as the log directory) are left
// out.
func SnapshotTree(ctx context.Context, root string, exclude ...string) (string, error) {
	// The temporary index lives in the git directory: never in the work
	// tree (TMPDIR may point inside it) and on the same file system.
	gitDir, err := line(ctx, root, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	tmp, err := os.MkdirTemp(gitDir, "gauntlet-index-")
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	env := []string{"GIT_INDEX_FILE=" + index}

	seeded, err := copyIndex(ctx, root, index)
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	if !seeded {
		head, err := Head(ctx, root)
		if err != nil {
			return "", fmt.Errorf("snapshot: %w", err)
		}
		if head != "" {
			if _, _, err := run(ctx, call{root: root, env: env, args: []string{"read-tree", head}}); err != nil {
				return "", fmt.Errorf("snapshot: %w", err)
			}
		}
	}
	cfg := []string{"-c", "core.splitIndex=false", "-c", "core.fsmonitor=false"}
	args := append(cfg, "add", "-A", "--", ".")
	for _, x := range exclude {
		// git refuses an exclude pathspec naming an ignored path; an
		// ignored directory is left out anyway.
		_, code, err := run(ctx, call{root: root, args: []string{"check-ignore", "-q", "--", x}, okCodes: []int{1}})
		if err != nil {
			return "", fmt.Errorf("snapshot: %w", err)
		}
		if code != 0 {
			args = append(args, ":(exclude,literal)"+x)
		}
	}
	if _, _, err := run(ctx, call{root: root, env: env, args: args}); err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	out, _, err := run(ctx, call{root: root, env: env, args: []string{"write-tree"}})
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// copyIndex copies the user's index to dst (it caches file stats, which makes
// `git add -A` cheap). It reports false when there is no index yet.
func copyIndex(ctx context.Context, root, dst string) (bool, error) {
	p, err := line(ctx, root, "rev-parse", "--git-path", "index")
	if err != nil {
		return false, err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	src, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("copy index: %w", err)
	}
	defer src.Close()
	out, err := os.Create(dst)
	if err != nil {
		return false, fmt.Errorf("copy index: %w", err)
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return false, fmt.Errorf("copy index %s: %w", p, err)
	}
	if err := out.Close(); err != nil {
		return false, fmt.Errorf("copy index: %w", err)
	}
	return true, nil
}

// baseTrailer records, in a snapshot's message, the base commit at the time
// of the snapshot: auto-clean uses it to tell work that was merged from work
// that sat on the base branch all along.
const baseTrailer = "Gauntlet-Base: "

// CommitTree wraps tree in a dangling commit whose parent is HEAD (none in a
// repository without commits) and returns the commit's SHA. A non-empty base
// (the base branch's commit) is recorded in the message.
func CommitTree(ctx context.Context, root, tree, base string) (string, error) {
	msg := snapshotMessage
	if base != "" {
		msg += "\n\n" + baseTrailer + base
	}
	args := []string{"commit-tree", tree, "-m", msg}
	head, err := Head(ctx, root)
	if err != nil {
		return "", err
	}
	if head != "" {
		args = append(args, "-p", head)
	}
	out, _, err := run(ctx, call{root: root, env: snapshotIdentity, args: args})
	if err != nil {
		return "", fmt.Errorf("snapshot commit: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Snapshot captures the work tree (tracked and untracked, not ignored) as a
// commit object and returns its SHA: the execution state's
// working_tree_ref. base, when not "", is recorded (see SnapshotBase);
// exclude is as for SnapshotTree.
func Snapshot(ctx context.Context, root, base string, exclude ...string) (string, error) {
	tree, err := SnapshotTree(ctx, root, exclude...)
	if err != nil {
		return "", err
	}
	return CommitTree(ctx, root, tree, base)
}

// SnapshotBase returns the base commit recorded in snapshot ref, or "" when
// none was (or ref is not a snapshot of ours, or is gone).
func SnapshotBase(ctx context.Context, root, ref string) (string, error) {
	if ref == "" || checkRef("snapshot", ref) != nil {
		return "", nil
	}
	out, code, err := run(ctx, call{root: root, args: []string{"cat-file", "commit", ref}, okCodes: []int{128}})
	if err != nil || code != 0 {
		return "", err
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, baseTrailer); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", nil
}
