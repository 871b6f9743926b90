package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// EndingSignals are the signals that end the program, all the same way
// (DESIGN §7): the context is canceled, children's process groups are
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
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
}
