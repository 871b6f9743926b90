package trust

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// Bounds of the git processes of this package.
const (
	// gitTimeout bounds one git process when ctx has no earlier deadline.
	gitTimeout = 30 * time.Second
	// gitWaitDelay bounds the wait for git's output after its context ends.
	gitWaitDelay = 2 * time.Second
	// maxSmallOutput bounds the answer of rev-parse and ls-tree.
	maxSmallOutput = 4 << 20
)

// errOutputTooLarge is runGit's error for an answer over its bound.
var errOutputTooLarge = errors.New("git's answer is larger than expected")

// runGit runs git with args in dir, stdin fed from in (nil: none), and
// returns its standard output, at most limit bytes (more is an error). It
// runs in its own process group, killed when ctx ends or gitTimeout
// passes, with optional locks off and git's messages in English.
func runGit(ctx context.Context, dir string, in io.Reader, limit int, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append(append([]string{"-C", dir}, gitcmd.SafeArgs...), args...)...)
	cmd.Env = append(append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"), gitcmd.SafeEnv...)
	procgroup.Set(cmd)
	cmd.WaitDelay = gitWaitDelay
	out := &boundedBuffer{max: limit}
	var stderr boundedBuffer
	stderr.max = 4 << 10
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, &stderr
	err := gitcmd.Exec(ctx, cmd)
	name := "git " + strings.Join(args, " ")
	var waited *gitcmd.WaitError
	switch {
	case errors.As(err, &waited):
		return nil, fmt.Errorf("%s: %w", name, err)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", name, ctx.Err())
	case out.over:
		return nil, fmt.Errorf("%s: %w (over %d bytes)", name, errOutputTooLarge, limit)
	case err != nil:
		if rerr := gitcmd.RepoProblem(dir, stderr.buf.String()); rerr != nil {
			return nil, rerr
		}
		if msg := strings.TrimSpace(stderr.buf.String()); msg != "" {
			return nil, fmt.Errorf("%s: %w: %s", name, err, firstLine(msg))
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out.buf.Bytes(), nil
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// boundedBuffer keeps at most max bytes and notes that more came; it
// accepts (and drops) the rest so that git never blocks on a full pipe.
type boundedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

// Write keeps what fits.
func (b *boundedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - b.buf.Len(); n > room {
		b.over = true
		p = p[:max(room, 0)]
	}
	b.buf.Write(p)
	return n, nil
}
