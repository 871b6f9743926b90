package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// EndingSignals are the signals that end the program, all the same way:
// the context is canceled, children's process groups are
// killed, the lock is released, prompts stop, and nothing half-done is
// left behind. On Windows, where os/signal emulates them, Ctrl-C and
// Ctrl-Break arrive as SIGINT, and closing the console window, logging off
// or shutting down as SIGTERM (Windows then ends the process shortly
// whatever it does); SIGHUP and SIGQUIT never arrive there.
var EndingSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// SignalError is the cause of a context that NotifyContext canceled: the
// signal that arrived. Its exit code is 128+n, as a shell reports a
// process that a signal ended.
type SignalError struct {
	Signal syscall.Signal
}

// Error names the signal.
func (e *SignalError) Error() string {
	return fmt.Sprintf("interrupted by %s", signalName(e.Signal))
}

// ExitCode returns 128 plus the signal number (130 for SIGINT).
func (e *SignalError) ExitCode() int { return 128 + int(e.Signal) }

// signalName is the conventional name of s (SIGINT, SIGTERM, ...).
func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return s.String()
}

// NotifyContext returns a copy of parent that is canceled, with a
// *SignalError as its context.Cause, when one of EndingSignals arrives.
// Until stop is called, later signals are swallowed too: the program ends
// on its own, through its usual exit paths. stop unregisters the handler.
func NotifyContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	unregister := cancelOnSignal(cancel)
	return ctx, func() {
		unregister()
		cancel(context.Canceled)
	}
}

// cancelOnSignal calls cancel with a *SignalError when one of EndingSignals
// arrives, swallowing the later ones, until unregister is called.
func cancelOnSignal(cancel context.CancelCauseFunc) (unregister func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, EndingSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			sig, _ := s.(syscall.Signal)
			cancel(&SignalError{Signal: sig})
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// signalDelay is how long a hook runs before it installs its signal
// handlers (RunProcess): longer than its fast paths take, a blink for
// anything that waits.
const signalDelay = 5 * time.Millisecond

// RunProcess is the program as a process (cmd/agent-gauntlet's main, and
// the test binary's agent-gauntlet command): it sets up the signal handling,
// runs Main with args on the standard streams and returns the exit code.
//
// A closed stdout (an agent that went away, `| head`) must give write
// errors, not kill the process before it releases its lock: SIGPIPE is
// caught (signal.Notify), not ignored, since an ignored signal would be
// inherited by the gates. Windows has no SIGPIPE (a write to a closed pipe
// fails): there the SIGPIPE calls do nothing. The EndingSignals cancel
// Main's context (NotifyContext).
//
// The hook commands (stop-hook, start-hook) defer this by signalDelay:
// their fast paths answer in about two milliseconds, and os/signal takes a
// quarter of that to install the handlers (it starts threads of its own
// and waits on one of them for each signal; BENCHMARKS.md). Until then
// SIGPIPE is ignored and an ending signal ends the process, as one
// arriving before main does. The stop hook installs them at once when it
// decides to run the gates (Env.HandleSignals).
//
// It sets the process's soft memory limit and, for a hook, the
// collector's pace first (limitMemory).
func RunProcess(args []string) int {
	limitMemory(isHook(args))
	seal()
	// Whatever a gate started and left behind, detached or not, ends with
	// the program.
	_ = procgroup.AdoptStrays()
	defer procgroup.KillStrays("", 0)
	if !isHook(args) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		ctx, stop := NotifyContext(context.Background())
		defer stop()
		return Main(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	}
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(context.Canceled)
	// In place until the process exits, which follows Main at once. SIGPIPE
	// comes last: once it is no longer ignored, every handler is in place.
	install := sync.OnceFunc(func() {
		cancelOnSignal(cancel)
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	})
	time.AfterFunc(signalDelay, install)
	return mainWith(ctx, install, args, os.Stdin, os.Stdout, os.Stderr)
}
