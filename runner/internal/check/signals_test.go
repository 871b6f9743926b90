//go:build unix

package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Who ends a check with a signal decides what its end means. The class's
// invariant: a check whose process died of a signal agent-gauntlet did not
// send (the command itself, a process it started, a person or the system
// aiming at it alone) reached a verdict: a failure that names the signal
// and says agent-gauntlet did not send it, never an infrastructure error
// (which approves). Only when agent-gauntlet itself received an ending
// signal, or its own deadline ended the check, is the end its own:
// canceled, or timed out. The table crosses every signal that ends a
// process from outside with every sender, on real processes.
func TestSignalSenders(t *testing.T) {
	signals := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}
	type sender struct {
		name string
		// run runs the check that sig ends, and returns its result.
		run func(t *testing.T, sig syscall.Signal) gate.Result
		// verdict: the check's failure naming sig; else its end is
		// agent-gauntlet's (status and message).
		verdict bool
		status  gate.Status
		message string
	}
	senders := []sender{
		{name: "the command itself", verdict: true, run: func(t *testing.T, sig syscall.Signal) gate.Result {
			return Run(context.Background(), job(fmt.Sprintf("echo failing; kill -%s $$; sleep 5", sigName(sig)), nil), env(t))
		}},
		{name: "a plain program killing itself", verdict: true, run: func(t *testing.T, sig syscall.Signal) gate.Result {
			e := env(t)
			script := fmt.Sprintf("#!/bin/sh\nkill -%s $$\nsleep 5\n", sigName(sig))
			if err := os.WriteFile(filepath.Join(e.Root, "sub dir", "t.sh"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			return Run(context.Background(), job("./t.sh", nil), e)
		}},
		{name: "a process it started", verdict: true, run: func(t *testing.T, sig syscall.Signal) gate.Result {
			return Run(context.Background(), job(fmt.Sprintf("sh -c 'kill -%s $PPID'; sleep 5", sigName(sig)), nil), env(t))
		}},
		{name: "a person, at the check alone", verdict: true, run: func(t *testing.T, sig syscall.Signal) gate.Result {
			e := env(t)
			return killWhileRunning(t, context.Background(), e, func(pid int) { _ = syscall.Kill(pid, sig) })
		}},
		{name: "agent-gauntlet's deadline", status: gate.StatusFail, message: "Timed out after 0.3s", run: func(t *testing.T, sig syscall.Signal) gate.Result {
			return Run(context.Background(), job(fmt.Sprintf("trap 'exit 9' %s; sleep 30", sigName(sig)),
				func(c *config.Check) { c.Timeout = 300 * time.Millisecond }), env(t))
		}},
		{name: "agent-gauntlet receiving it first", status: gate.StatusError, message: msgCanceled, run: func(t *testing.T, sig syscall.Signal) gate.Result {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			return killWhileRunning(t, ctx, env(t), func(pid int) { cancel(); _ = syscall.Kill(pid, sig) })
		}},
		{name: "agent-gauntlet receiving it just after the check", status: gate.StatusError, message: msgCanceled, run: func(t *testing.T, sig syscall.Signal) gate.Result {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			return killWhileRunning(t, ctx, env(t), func(pid int) {
				_ = syscall.Kill(pid, sig)
				time.AfterFunc(20*time.Millisecond, cancel)
			})
		}},
	}
	for _, sig := range signals {
		for _, s := range senders {
			t.Run(sigName(sig)+"/"+s.name, func(t *testing.T) {
				t.Parallel()
				res := s.run(t, sig)
				if !s.verdict {
					if res.Status != s.status || res.Message != s.message || res.Infrastructure {
						t.Errorf("status %s, infrastructure %v, %q; want %s, %q", res.Status, res.Infrastructure, res.Message, s.status, s.message)
					}
					return
				}
				want := fmt.Sprintf(msgKilled, "SIG"+sigName(sig))
				if res.Status != gate.StatusFail || res.Infrastructure || res.Message != want || !strings.Contains(want, "not sent by agent-gauntlet") {
					t.Errorf("status %s, infrastructure %v, %q; want a failure, %q", res.Status, res.Infrastructure, res.Message, want)
				}
				if !res.Exited || res.ExitCode != 128+int(sig) {
					t.Errorf("exited %v with %d; want %d, as the shell reports it", res.Exited, res.ExitCode, 128+int(sig))
				}
			})
		}
	}
}

// sigName is the name of sig as kill(1) takes it (TERM, INT, HUP).
func sigName(sig syscall.Signal) string {
	return map[syscall.Signal]string{syscall.SIGTERM: "TERM", syscall.SIGINT: "INT", syscall.SIGHUP: "HUP"}[sig]
}

// killWhileRunning runs a check that writes its pid and waits, calls kill
// with that pid once it is written, and returns the check's result.
func killWhileRunning(t *testing.T, ctx context.Context, e gate.Env, kill func(pid int)) gate.Result {
	t.Helper()
	pidFile := filepath.Join(e.Root, "pid")
	done := make(chan gate.Result, 1)
	go func() { done <- Run(ctx, job("echo $$ > ../pid; exec sleep 60", nil), e) }()
	for range 1000 {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			kill(pid)
			return <-done
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the check never started")
	return gate.Result{}
}
