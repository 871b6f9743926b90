package git

import (
	"context"
	"slices"
	"strings"
)

// MadeHere returns those of commits that this repository made itself: a
// commit one of the reflogs of HEAD or of a local branch records as made
// by the command that wrote the entry (a commit, an amend, a merge that
// was no fast-forward, a cherry-pick, a revert, a patch applied, a step
// of a rebase). A commit a fetch, a clone or a fast-forward brought here
// is not, nor one made in another clone: such a commit enters a local
// reflog only as the target of a move. One `git log --walk-reflogs` reads
// every such reflog. A reflog git expired or a branch deleted forgets what
// it recorded; HEAD's own reflog keeps a deleted branch's commits.
func MadeHere(ctx context.Context, root string, commits []string) (map[string]bool, error) {
	made := map[string]bool{}
	if len(commits) == 0 {
		return made, nil
	}
	want := make(map[string]bool, len(commits))
	for _, c := range commits {
		want[c] = true
	}
	out, _, err := run(ctx, call{root: root, args: []string{"log", "--walk-reflogs", "--ignore-missing",
		"--format=%H%x1f%gs", "HEAD", "--branches", "--"}})
	if err != nil {
		return nil, err
	}
	for line := range strings.Lines(string(out)) {
		sha, msg, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\x1f")
		if want[sha] && creates(msg) {
			made[sha] = true
		}
	}
	return made, nil
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
