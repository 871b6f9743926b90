package trust

import (
	"context"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// baseBranches are the branches whose merge base with HEAD holds the
// configuration a person committed when HEAD holds none, in the order
// they are tried: the default base branch, then the local branches a
// project without a remote works from. The project's own base_branch
// cannot be read then: the configuration naming it is what is gone.
var baseBranches = []string{config.DefaultBaseBranch, "main", "master"}

// Base is the commit a project with no record falls back to when HEAD
// holds no configuration of it.
type Base struct {
	// Commit is the merge base of HEAD with Branch, "" for none.
	Commit string
	// Branch is the base branch it was found with.
	Branch string
}

// mergeBase returns the merge base of HEAD with the first of baseBranches
// that shares history with it, the zero Base when none does, HEAD has no
// commit, or the merge base is HEAD itself (HEAD already said). Git's
// failures read as no base: the fallback only ever adds a configuration.
func mergeBase(ctx context.Context, top, head string) Base {
	if head == "" {
		return Base{}
	}
	for _, branch := range baseBranches {
		out, err := runGit(ctx, top, nil, maxSmallOutput, "merge-base", head, "refs/remotes/"+branch+"^{commit}")
		if !strings.Contains(branch, "/") {
			out, err = runGit(ctx, top, nil, maxSmallOutput, "merge-base", head, "refs/heads/"+branch+"^{commit}")
		}
		if err != nil {
			continue
		}
		commit := strings.TrimSpace(string(out))
		if commit == head {
			return Base{}
		}
		return Base{Commit: commit, Branch: branch}
	}
	return Base{}
}

// BaseFiles returns the configuration of the project at p committed at
// the merge base of HEAD (head) with the base branch (mergeBase), for a
// project with no record whose HEAD holds none: what a person committed
// before the agent's commits since. None when there is no such base or
// it holds no configuration either.
func BaseFiles(ctx context.Context, p place.Place, head string) (Committed, Base, error) {
	base := mergeBase(ctx, p.TopLevel, head)
	if base.Commit == "" {
		return Committed{Files: config.Files{}}, base, nil
	}
	c, err := filesAt(ctx, p, base.Commit)
	return c, base, err
}

// MergeBaseWith returns the merge base of the commit head with the branch
// branch (its local ref, else a remote's of that name, else the ref branch
// names under refs/remotes/), "" when there is none or git cannot say.
func MergeBaseWith(ctx context.Context, top, head, branch string) string {
	if head == "" || branch == "" {
		return ""
	}
	for _, ref := range []string{"refs/heads/" + branch, "refs/remotes/origin/" + branch, "refs/remotes/" + branch} {
		if out, err := runGit(ctx, top, nil, maxSmallOutput, "merge-base", head, ref+"^{commit}"); err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	return ""
}
