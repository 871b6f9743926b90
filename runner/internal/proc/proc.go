// Package proc runs child processes the one safe way: with a context
// deadline, in their own process group and session (no controlling
// terminal), unattended (see procgroup.Unattended), a Cancel that signals
// the whole group, a WaitDelay, and output streamed to the caller's
// writers.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// DefaultWaitDelay is how long Wait waits after the group was signalled
// before the pipes are closed and the process is killed.
const DefaultWaitDelay = 2 * time.Second

// Spec describes one child process.
type Spec struct {
	// Path is the program (looked up in PATH when it has no slash).
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Dir is the working directory.
	Dir string
	// Env is the full environment; nil means the parent's. Either way the
	// variables of procgroup.Unattended are set over it.
	Env []string
	// Stdin, Stdout and Stderr may be nil; a nil Stdin reads the null
	// device (a program that reads its input gets end-of-file at once).
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Timeout, when positive, bounds the run; the whole group is killed at the deadline.
	Timeout time.Duration
	// WaitDelay overrides DefaultWaitDelay when positive.
	WaitDelay time.Duration
}

// Result is what a finished child left.
type Result struct {
	// ExitCode is the exit status, or -1 when the child was killed by a signal
	// or never started.
	ExitCode int
	// Signal is the signal that killed the child (ExitCode -1), else 0.
	Signal syscall.Signal
	// Started is false when the child could not be started.
	Started bool
	// TimedOut is true when Spec.Timeout ended the run.
	TimedOut bool
	// Canceled is true when the parent context was canceled.
	Canceled bool
	// Duration is the wall time from start to exit.
	Duration time.Duration
}

// ErrTimeout is wrapped by Run's error when the child hit Spec.Timeout.
var ErrTimeout = errors.New("timed out")

// Run starts the child in its own process group and waits for it. A non-zero
// exit is not an error (see Result.ExitCode); failing to start is, and so is
// a timeout or cancellation, reported as such and never as "exit status -1".
func Run(ctx context.Context, s Spec) (Result, error) {
	runCtx := ctx
	var cancel context.CancelFunc = func() {}
	if s.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, s.Timeout)
	}
	defer cancel()

	cmd := exec.CommandContext(runCtx, s.Path, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	cmd.Stdin = s.Stdin
	cmd.Stdout = s.Stdout
	cmd.Stderr = s.Stderr
	tag := procgroup.Set(cmd)
	cmd.WaitDelay = DefaultWaitDelay
	if s.WaitDelay > 0 {
		cmd.WaitDelay = s.WaitDelay
	}

	start := time.Now()
	err := cmd.Start()
	if err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("start %s: %w", s.Path, err)
	}
	// Recorded while it runs, so that the next run kills the group if this
	// process is killed outright (procgroup.Reap).
	unregister := procgroup.Register(ctx, cmd.Process.Pid)
	err = cmd.Wait()
	// Whatever happened, no member of the group may outlive the run, nor
	// any process it started that left the group.
	_ = KillGroup(cmd.Process)
	procgroup.KillStrays(tag, cmd.Process.Pid)
	unregister()
	res := Result{ExitCode: cmd.ProcessState.ExitCode(), Duration: time.Since(start), Started: true}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = ws.Signal()
	}
	switch {
	case s.Timeout > 0 && errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		res.TimedOut = true
		return res, fmt.Errorf("%s: %w after %s", s.Path, ErrTimeout, s.Timeout)
	case ctx.Err() != nil:
		res.Canceled = true
		return res, fmt.Errorf("%s: %w", s.Path, ctx.Err())
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return res, fmt.Errorf("wait %s: %w", s.Path, err)
	}
	return res, nil
}

// KillGroup kills the process group led by p (see procgroup.Kill for what that
// means on each system). It is a no-op for a nil process and ignores a
// group that is already gone.
func KillGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	return procgroup.Kill(p)
}
