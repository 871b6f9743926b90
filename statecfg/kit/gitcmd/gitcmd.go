// Package gitcmd runs git, for every module: one process per call, `git -C
// <dir> <args>`, under the caller's context, in a process group of its own
// (procgroup) that is killed whole when the context ends or the process
// exits, with a bounded wait for its output after that; stdout is bounded
// when the caller asks, stderr always. git runs in the C locale, takes no
// optional lock and never prompts.
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// Program is the git executable, looked up in PATH.
const Program = "git"

// WaitDelay is how long a call waits for git's output once its context
// ended or git exited, before the pipes are closed.
const WaitDelay = 2 * time.Second

// EmptyTree is the id of git's empty tree: the "parent" of a root commit,
// and the point where the work of a repository without a commit begins.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// MaxStderr bounds the stderr a Result keeps.
const MaxStderr = 4 << 10

// env is what every call adds to the environment: messages in English
// (callers read them), no optional lock taken in the user's repository, no
// credential prompt, and SafeEnv.
var env = append([]string{"GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"}, SafeEnv...)

// SafeArgs and SafeEnv are what every git command of agent-gauntlet runs
// with, whoever runs it (this package, or a caller that starts git itself):
// no hook and no file system monitor the repository's configuration names
// runs (the agent's shell can name them, and git would run them inside the
// gauntlet's own commands: a trigger in the middle of a run), and no
// replace ref swaps an object for another (`git replace` could make the
// agent's work read as the base's, or a file's content as another's).
var (
	SafeArgs = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}
	SafeEnv  = []string{"GIT_NO_REPLACE_OBJECTS=1"}
)

// Call is one git invocation.
type Call struct {
	// Dir is the directory git runs in (-C).
	Dir string
	// Args follow `git -C <dir>` and SafeArgs.
	Args []string
	// Env is added to the environment (after the parent's and the fixed
	// variables).
	Env []string
	// Stdin, when not "", is git's standard input.
	Stdin string
	// Limit, when positive, bounds the stdout kept (Result.Truncated tells
	// whether git wrote more).
	Limit int
	// Unset names variables of the parent's environment git does not get.
	Unset []string
}

// Result is what a git process that ran left.
type Result struct {
	Stdout []byte
	// Truncated is true when stdout exceeded Call.Limit.
	Truncated bool
	// Stderr is the start of git's stderr (at most MaxStderr bytes).
	Stderr string
	// ExitCode is git's exit code.
	ExitCode int
}

// defaultTimeout bounds a call whose context has no deadline of its own
// (a person's command: status, detect, clean, cache clear...): git waits
// forever on a FIFO put at a file it opens (HEAD, the index, its config,
// packed-refs), and the command must answer all the same. It is long
// enough for git's slowest work on a large repository.
var defaultTimeout = 2 * time.Minute

// routed is list (arguments or variables) with each path below a held
// directory given as an option's or a variable's value routed through it
// for the child (owned.Child.Arg). A bare path is left as it is: it may
// be a pathspec, or a path git records (`worktree add`), which must stay
// the caller's.
func routed(child *owned.Child, list []string) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a
		if !filepath.IsAbs(a) {
			out[i] = child.Arg(a)
		}
	}
	return out
}

// beforeStart, when set (by a test), runs just before git starts.
var beforeStart func()

// Run runs git. A non-zero exit is not an error (see Result.ExitCode); an
// error is a git that could not start (errors.Is exec.ErrNotFound when it
// is not on PATH), a *WaitError (git waited to open a FIFO: watch; or
// one was recorded in ctx before), a context that ended (wrapping
// ctx.Err()) or the defaultTimeout that passed, or a wait that failed.
func Run(ctx context.Context, c Call) (Result, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultTimeout)
		defer cancel()
	}
	out := &boundedBuffer{max: c.Limit}
	errBuf := &boundedBuffer{max: MaxStderr}
	// The paths git writes below a directory the gauntlet holds open (a
	// temporary index, a checkout's prefix, a private git directory
	// below its store) reach it through the held directory itself, never
	// through a name that may lead elsewhere by the time git resolves it.
	var child owned.Child
	defer child.Close()
	args := routed(&child, c.Args)
	cmd := exec.CommandContext(ctx, Program, append(append([]string{"-C", c.Dir}, SafeArgs...), args...)...)
	cmd.Env = append(append(parentEnv(c.Unset), env...), routed(&child, c.Env)...)
	cmd.ExtraFiles = child.Files()
	cmd.Stdout, cmd.Stderr = out, errBuf
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	tag := procgroup.Set(cmd)
	cmd.WaitDelay = WaitDelay
	if e := waitsOf(ctx).first(); e != nil {
		return Result{ExitCode: -1}, e
	}
	if beforeStart != nil {
		beforeStart()
	}
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("start %s: %w", Program, err)
	}
	stop := watch(cmd.Process)
	err := cmd.Wait()
	waited := stop()
	// Whatever happened, nothing git started (a hook, a filter) may
	// outlive it, in its group or detached from it.
	_ = procgroup.Kill(cmd.Process)
	procgroup.KillStrays(tag, cmd.Process.Pid)
	res := Result{Stdout: out.buf.Bytes(), Truncated: out.overflow, Stderr: child.Named(errBuf.buf.String()), ExitCode: cmd.ProcessState.ExitCode()}
	if waited != nil {
		waitsOf(ctx).add(waited)
		return res, waited
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("%s: %w", Program, ctx.Err())
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return res, fmt.Errorf("wait %s: %w", Program, err)
	}
	return res, nil
}

// boundedBuffer keeps at most max bytes (all when max <= 0).
type boundedBuffer struct {
	buf      bytes.Buffer
	max      int
	overflow bool
}

// Write keeps what fits and reports everything written, so that git never
// blocks or fails on a full buffer.
func (b *boundedBuffer) Write(p []byte) (int, error) {
	if b.max <= 0 {
		return b.buf.Write(p)
	}
	room := b.max - b.buf.Len()
	if len(p) > room {
		b.overflow = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// parentEnv is the parent's environment without the variables named in unset.
func parentEnv(unset []string) []string {
	all := os.Environ()
	if len(unset) == 0 {
		return all
	}
	return slices.DeleteFunc(all, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(unset, name)
	})
}
