package stophook

import (
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
)

// Git opens its own files in the git directory (HEAD, the index, the
// configuration, the packed refs, the shallow and grafts lists, the
// alternates) with a blocking open too: a FIFO planted at one holds the
// first git command of the stop until its deadline. They are looked at,
// without an open and without running git, before anything runs git.

// gitDirFiles are git's fixed files of a work tree's git directory
// (perWorktree) and of the common directory.
var (
	gitDirFiles    = []string{"HEAD", "index"}
	commonDirFiles = []string{"config", "packed-refs", "shallow", filepath.Join("info", "grafts"),
		filepath.Join("objects", "info", "alternates")}
)

// gitFileProblems names each of git's fixed files of the repository
// holding root that is, or links to, what no open should wait on (a FIFO,
// a socket, a device), as "path (what it is)"; nil when root is in no
// repository git's files show.
func gitFileProblems(root string) []string {
	d, ok := gitdir.Find(root)
	if !ok {
		return nil
	}
	var paths []string
	for _, f := range gitDirFiles {
		paths = append(paths, filepath.Join(d.GitDir, f))
	}
	for _, f := range commonDirFiles {
		paths = append(paths, filepath.Join(d.CommonDir, f))
	}
	var found []string
	for _, p := range paths {
		if what := oddRuleFile(p, false); what != "" {
			found = append(found, p+" ("+what+")")
		}
	}
	return found
}

// gitFileBlock is the answer for git's files named by found
// (gitFileProblems): a block once per turn (configBlock), the stop right
// after it let go.
func (h *hook) gitFileBlock(found []string) Outcome {
	if h.afterConfigBlock {
		return h.answer(runner.StatusStopHookActive, "Where git reads its own files there is what is not a file ("+
			strings.Join(found, ", ")+"), and the stop right after such a block is allowed: the gates did not run.")
	}
	return h.notAFileBlock("Where git reads its own files", found, "restore the file git had there")
}

// gitWaitBlock is the answer when a git call of the stop waited to open a
// FIFO (found, recorded by gitcmd's watch of every git process): the
// same as for one of git's fixed files (gitFileBlock), whatever file it
// was, at once rather than at the deadline.
func (h *hook) gitWaitBlock(found []*gitcmd.WaitError) Outcome {
	names := make([]string, 0, len(found))
	for _, w := range found {
		names = append(names, w.Named())
	}
	return h.gitFileBlock(names)
}
