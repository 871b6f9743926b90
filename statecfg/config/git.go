package config

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/procgroup"
)

// gitProgram is the git executable, looked up in PATH.
const gitProgram = "git"

// gitWaitDelay bounds the wait for git's output after its context ends.
const gitWaitDelay = 2 * time.Second

// maxTrackedOutput is what trackedFile keeps of git's answer: one name is
// enough to say the directory holds tracked files.
const maxTrackedOutput = 4 << 10

// trackedFile returns a file that git tracks in the directory dir (its
// path relative to the top of dir's work tree) and true, or "" and true
// when git tracks nothing there. ok is false when git cannot tell (git
// missing, dir in no work tree, any failure): the check is then skipped,
// and Clean still moves only the gauntlet's own files.
func trackedFile(ctx context.Context, dir string) (file string, ok bool) {
	cmd := exec.CommandContext(ctx, gitProgram, "-C", dir, "ls-files", "-z", "--full-name", "--", ".")
	out := &headBuffer{max: maxTrackedOutput}
	cmd.Stdout = out
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	// Its own process group, killed whole when ctx ends.
	procgroup.Set(cmd)
	cmd.WaitDelay = gitWaitDelay
	if err := cmd.Run(); err != nil {
		return "", false
	}
	first, _, _ := strings.Cut(out.buf.String(), "\x00")
	return first, true
}

// headBuffer keeps the first max bytes written and accepts (and drops) the
// rest, so git never blocks on a full pipe.
type headBuffer struct {
	buf bytes.Buffer
	max int
}

// Write keeps what fits.
func (b *headBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
