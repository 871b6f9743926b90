package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// MadeHere returns those of commits that this repository made itself: a
// commit one of its reflogs records as made by the command that wrote the
// entry (a commit, an amend, a merge that was no fast-forward, a
// cherry-pick, a revert, a patch applied, a step of a rebase), reading
// the HEAD of every worktree (the main one's and each linked one's: a
// commit made on a detached HEAD in a linked worktree enters no other
// reflog) and every local branch, or one the made record kept from a
// linked worktree since removed (RememberMade). A commit a fetch, a clone
// or a fast-forward brought here is not, nor one made in another clone:
// such a commit enters a local reflog only as the target of a move. One
// `git log --walk-reflogs` reads every such reflog. A reflog git expired,
// a branch deleted or a worktree removed before any stop saw it forgets
// what it recorded; HEAD's own reflog keeps a deleted branch's commits.
func MadeHere(ctx context.Context, root string, commits []string) (map[string]bool, error) {
	made := map[string]bool{}
	if len(commits) == 0 {
		return made, nil
	}
	want := make(map[string]bool, len(commits))
	for _, c := range commits {
		want[c] = true
	}
	revs := []string{"HEAD", "--branches"}
	if loc, err := Locate(ctx, root); err == nil {
		revs = append(revs, worktreeHeads(loc.CommonDir)...)
		for _, c := range readMadeRecord(loc.CommonDir).Made {
			if want[c] {
				made[c] = true
			}
		}
	}
	found, err := createdIn(ctx, root, revs)
	if err != nil {
		return nil, err
	}
	for _, c := range found {
		if want[c] {
			made[c] = true
		}
	}
	return made, nil
}

// createdIn lists the commits the reflogs of revs record as made by the
// command that wrote the entry (creates), in the order git walks them.
func createdIn(ctx context.Context, root string, revs []string) ([]string, error) {
	args := append([]string{"log", "--walk-reflogs", "--ignore-missing", "--format=%H%x1f%gs"}, revs...)
	out, _, err := run(ctx, call{root: root, args: append(args, "--")})
	if err != nil {
		return nil, err
	}
	var found []string
	for line := range strings.Lines(string(out)) {
		sha, msg, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\x1f")
		if creates(msg) {
			found = append(found, sha)
		}
	}
	return found, nil
}

// worktreeHeads names the HEAD of every worktree of the repository whose
// common directory is common, as any worktree's git reads it:
// main-worktree/HEAD and worktrees/<id>/HEAD for each linked worktree
// whose administrative directory holds a HEAD.
func worktreeHeads(common string) []string {
	heads := []string{"main-worktree/HEAD"}
	for _, id := range linkedWorktreeIDs(common) {
		heads = append(heads, "worktrees/"+id+"/HEAD")
	}
	return heads
}

// linkedWorktreeIDs lists the ids of the linked worktrees of the
// repository whose common directory is common: the directories under
// worktrees/ that hold a HEAD, with a name git takes in a ref.
func linkedWorktreeIDs(common string) []string {
	entries, err := fsread.Dir(filepath.Join(common, "worktrees"))
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range entries {
		id := e.Name()
		if !e.IsDir() || !plainRefComponent(id) {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(common, "worktrees", id, "HEAD")); err == nil && fi.Mode().IsRegular() {
			ids = append(ids, id)
		}
	}
	return ids
}

// plainRefComponent reports whether name may stand as one component of a
// ref name (git check-ref-format's rules, more strictly: printable ASCII
// with none of the characters a revision's syntax gives a meaning).
func plainRefComponent(name string) bool {
	if name == "" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "-") ||
		strings.HasSuffix(name, ".lock") || strings.Contains(name, "..") || strings.Contains(name, "@{") {
		return false
	}
	for _, r := range name {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`~^:?*[\/`, r) {
			return false
		}
	}
	return true
}

// creatingActions are the commands whose reflog entry names a commit they
// made (reflogAction): "commit: ...", "commit (amend): ...", "merge
// topic: Merge made by ...", "cherry-pick: ...", "rebase (pick): ...".
var creatingActions = []string{"commit", "merge", "pull", "cherry-pick", "revert", "am", "rebase"}

// creates reports whether a reflog message records a commit made by its
// command, not a move to one that exists (a fast-forward, the start,
// finish or abort of a rebase, a checkout, a reset, a fetch).
func creates(msg string) bool {
	action, rest, _ := strings.Cut(msg, ":")
	if !slices.Contains(creatingActions, reflogAction(action)) || strings.Contains(strings.ToLower(rest), "fast-forward") {
		return false
	}
	for _, step := range []string{"(start)", "(finish)", "(abort)", "(quit)", "finished"} {
		if strings.Contains(action, step) {
			return false
		}
	}
	// A rebase's first and last entries (git before 2.26 words them
	// "rebase: checkout <onto>" and "rebase finished: returning to ...").
	rebase := reflogAction(action) == "rebase" || strings.Contains(action, "--rebase")
	return !rebase || !strings.HasPrefix(rest, " checkout ") && !strings.HasPrefix(rest, " returning to ")
}
