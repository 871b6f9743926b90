package gitcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// Git opens its files with a blocking open: a FIFO put at any one of them
// (its configuration or one an include names, a loose ref, the commit
// graph, the attributes file the configuration names, the HEAD of a
// repository inside the work tree...) holds git until its context ends.
// Which files git opens depends on its version, its configuration and
// the command, so no list of them is whole. Instead every git process
// still running after watchAfter is looked at every watchEvery (watch):
// one that waits to open a FIFO, or any process of its group that does,
// is stopped with its group, and the call ends with a *WaitError naming
// the file where the system shows it. So is one that holds open, where
// it expects a regular file, a device (a link to /dev/zero or
// /dev/urandom reads without end while git's memory grows) or a named
// FIFO: git reads its files to their end, so one still open when the
// watch looks is such a read; the error names the link to it in the
// repository when one is found. A git that ends sooner costs one timer.

// Bounds of the watch of a running git.
var (
	// watchAfter is how long git runs before it is first looked at.
	watchAfter = 500 * time.Millisecond
	// watchEvery is how often it is looked at after that.
	watchEvery = 250 * time.Millisecond
)

// ErrWaitedOnFile is wrapped by every *WaitError.
var ErrWaitedOnFile = errors.New("git waited to open what is not a file")

// WaitError is a git process (or a process it started) that was stopped
// while it waited to open a FIFO, or while it held open a device or a
// FIFO where it expects a regular file (an endless read: /dev/zero).
type WaitError struct {
	// Path is the file it waited on, absolute; "" when the system did not
	// show it.
	Path string
	// Kind is what is at Path (fsread.Kind), "" when Path is.
	Kind string
	// Device is the device git held open and read from (/dev/zero...),
	// "" for a wait to open a FIFO; Path is then the link to it found in
	// the repository, or Device itself.
	Device string
}

// Error names the file, or says that its name could not be read.
func (e *WaitError) Error() string {
	if e.Path == "" {
		return "git waited to open a named pipe (FIFO), whose name could not be read, and was stopped: " +
			"something put a FIFO where git reads one of its files"
	}
	if e.Device != "" {
		return fmt.Sprintf("git kept reading %s and was stopped: something put it where git reads one of its files", e.Named())
	}
	return fmt.Sprintf("git waited to open %s (%s) and was stopped: something put it where git reads one of its files", e.Path, e.Kind)
}

// Unwrap returns ErrWaitedOnFile.
func (e *WaitError) Unwrap() error { return ErrWaitedOnFile }

// Named is the file as "path (what it is)", for a list of such files.
func (e *WaitError) Named() string {
	if e.Path == "" {
		return "a file git opened, whose name the system did not show (a named pipe (FIFO))"
	}
	if e.Device != "" && e.Path != e.Device {
		return e.Path + " (a link to " + e.Device + ", " + e.Kind + ")"
	}
	return e.Path + " (" + e.Kind + ")"
}

// Waits records the waits of every git call made under a context
// (WithWaits): once one is found, the later calls end at once with it
// (the FIFO is still there: each would wait out watchAfter again).
type Waits struct {
	mu    sync.Mutex
	found []*WaitError
}

type waitsKey struct{}

// WithWaits returns ctx with a new record of git's waits.
func WithWaits(ctx context.Context) (context.Context, *Waits) {
	w := &Waits{}
	return context.WithValue(ctx, waitsKey{}, w), w
}

// Found lists the waits recorded so far, each file once.
func (w *Waits) Found() []*WaitError {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*WaitError(nil), w.found...)
}

func (w *Waits) add(e *WaitError) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range w.found {
		if f.Path == e.Path {
			return
		}
	}
	w.found = append(w.found, e)
}

func (w *Waits) first() *WaitError {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.found) == 0 {
		return nil
	}
	return w.found[0]
}

func waitsOf(ctx context.Context) *Waits {
	w, _ := ctx.Value(waitsKey{}).(*Waits)
	return w
}

// Exec runs cmd, a git command its caller built (procgroup.Set, a
// WaitDelay), to its end, watched as Run's are: a wait on a FIFO kills its
// group and is the error (a *WaitError, recorded in ctx's Waits); so is a
// wait ctx recorded earlier, without starting cmd. Otherwise it returns
// cmd.Run's error.
func Exec(ctx context.Context, cmd *exec.Cmd) error {
	if e := waitsOf(ctx).first(); e != nil {
		return e
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	stop := watch(cmd.Process)
	err := cmd.Wait()
	if e := stop(); e != nil {
		waitsOf(ctx).add(e)
		return e
	}
	return err
}

// watch looks at p's process group after watchAfter, then every
// watchEvery, until the returned stop is called; a process of the group
// waiting to open a FIFO (blockedOpen) has the group killed. stop ends the
// watch and returns what it found. A git that ends sooner costs a timer
// that never fires: no goroutine, no wait for one to be scheduled.
func watch(p *os.Process) (stop func() *WaitError) {
	var (
		mu      sync.Mutex
		stopped bool
		found   *WaitError
		t       *time.Timer
	)
	mu.Lock()
	defer mu.Unlock()
	t = time.AfterFunc(watchAfter, func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		if found = blockedOpen(p.Pid); found != nil {
			_ = procgroup.Kill(p)
			return
		}
		t.Reset(watchEvery)
	})
	return func() *WaitError {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		t.Stop()
		return found
	}
}
