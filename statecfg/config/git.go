package config

import (
	"context"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
)

// maxTrackedOutput is what trackedFile keeps of git's answer: one name is
// enough to say the directory holds tracked files.
const maxTrackedOutput = 4 << 10

// trackedFile returns a file that git tracks in the directory dir (its
// path relative to the top of dir's work tree) and true, or "" and true
// when git tracks nothing there. ok is false when git cannot tell (git
// missing, dir in no work tree, any failure): the check is then skipped,
// and Clean still moves only the gauntlet's own files.
func trackedFile(ctx context.Context, dir string) (file string, ok bool) {
	res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: dir, Args: []string{"ls-files", "-z", "--full-name", "--", "."}, Limit: maxTrackedOutput})
	if err != nil || res.ExitCode != 0 {
		return "", false
	}
	first, _, _ := strings.Cut(string(res.Stdout), "\x00")
	return first, true
}
