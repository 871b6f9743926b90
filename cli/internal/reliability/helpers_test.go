//go:build unix

package reliability

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/testbin"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// processTimeout bounds every process a test starts; a process still running
// then is killed and the test fails (it measures no time).
const processTimeout = 90 * time.Second

// TestMain removes the binary built by the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Remove()
	os.Exit(code)
}

// binary returns the agent-gauntlet binary (testbin.Path).
func binary(t *testing.T) string {
	t.Helper()
	bin, err := testbin.Path()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// sandbox is one throwaway git repository with a hermetic environment.
type sandbox struct {
	t *testing.T
	// base holds home/, repo/ and marks/.
	base string
	// home is $HOME, with the git configuration.
	home string
	// repo is the repository root (the project root).
	repo string
	// marks is a directory outside the repository for the gates' markers,
	// passed to them as $MARKS.
	marks string
	env   []string
}

// newSandbox writes files (relative paths to contents) into a new
// repository, commits them on main, and returns the sandbox. base is the
// parent directory to use ("" for a fresh test directory).
func newSandbox(t *testing.T, base string, files map[string]string) *sandbox {
	t.Helper()
	if base == "" {
		base = t.TempDir()
	}
	s := &sandbox{t: t, base: base,
		home:  filepath.Join(base, "home"),
		repo:  filepath.Join(base, "repo"),
		marks: filepath.Join(base, "marks"),
	}
	for _, d := range []string{s.home, s.repo, s.marks} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env, err := testenv.New(s.home)
	if err != nil {
		t.Fatal(err)
	}
	s.env = env.Environ(os.Getenv("PATH"), "LC_ALL=C", "MARKS="+s.marks)
	s.write(files)
	s.git("init", "-q")
	s.git("add", "-A")
	s.git("commit", "-q", "-m", "base")
	s.git("branch", "-M", "main")
	return s
}

// write writes files (paths relative to the repository).
func (s *sandbox) write(files map[string]string) {
	s.t.Helper()
	for rel, content := range files {
		p := filepath.Join(s.repo, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
}

// git runs git in the repository and fails the test on error.
func (s *sandbox) git(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = s.repo, s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// logDir is the repository's log directory (the default gauntlet_logs).
func (s *sandbox) logDir() string { return filepath.Join(s.repo, "gauntlet_logs") }

// lockPath is the absolute path of the run lock.
func (s *sandbox) lockPath() string { return filepath.Join(s.logDir(), ".gauntlet-run.lock") }

// mark is the path of a gate marker.
func (s *sandbox) mark(name string) string { return filepath.Join(s.marks, name) }

// proc is one started agent-gauntlet process.
type proc struct {
	args           []string
	cmd            *exec.Cmd
	cancel         context.CancelFunc
	stdout, stderr bytes.Buffer
	done           chan struct{}
	res            result
}

// result is what a finished process left.
type result struct {
	// code is the exit code, -1 when killed by a signal.
	code int
	// signal is the signal that ended the process, if any.
	signal syscall.Signal
	stdout string
	stderr string
	// maxRSS is the peak resident set size in bytes of the process and its
	// waited-for descendants (getrusage semantics: the largest, not a sum).
	maxRSS int64
	// waitErr is an error other than a non-zero exit (a start or I/O error,
	// the process timeout).
	waitErr error
}

// start starts agent-gauntlet with args in the repository, stdin as its
// input. Extra env entries override the sandbox's.
func (s *sandbox) start(stdin string, extraEnv []string, attr *syscall.SysProcAttr, args ...string) *proc {
	s.t.Helper()
	return s.startReading(strings.NewReader(stdin), extraEnv, attr, args...)
}

// startReading is start with stdin read from r (an *os.File is the
// process's own stdin).
func (s *sandbox) startReading(r io.Reader, extraEnv []string, attr *syscall.SysProcAttr, args ...string) *proc {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	p := &proc{args: args, cancel: cancel, done: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, binary(s.t), args...)
	p.cmd.Dir = s.repo
	p.cmd.Env = append(append([]string{}, s.env...), extraEnv...)
	p.cmd.Stdin = r
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.SysProcAttr = attr
	p.cmd.WaitDelay = 5 * time.Second
	if err := p.cmd.Start(); err != nil {
		cancel()
		s.t.Fatalf("start agent-gauntlet %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		defer close(p.done)
		defer cancel()
		err := p.cmd.Wait()
		p.res = result{stdout: p.stdout.String(), stderr: p.stderr.String(), code: p.cmd.ProcessState.ExitCode()}
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.res.signal = ws.Signal()
		}
		if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			p.res.maxRSS = int64(ru.Maxrss) * 1024 // kilobytes on Linux
		}
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			p.res.waitErr = err
		}
		if ctx.Err() != nil {
			p.res.waitErr = fmt.Errorf("killed after the %s process timeout: %w", processTimeout, ctx.Err())
		}
	}()
	return p
}

// run starts agent-gauntlet and waits for it.
func (s *sandbox) run(stdin string, args ...string) result {
	s.t.Helper()
	return s.start(stdin, nil, nil, args...).wait()
}

// wait waits for the process (bounded by processTimeout).
func (p *proc) wait() result {
	<-p.done
	return p.res
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// String describes the result for failure messages.
func (r result) String() string {
	return fmt.Sprintf("exit %d (signal %v, wait error %v)\n--- stdout\n%s--- stderr\n%s", r.code, r.signal, r.waitErr, r.stdout, r.stderr)
}

// waitFor polls cond every 20 ms until it holds or timeout passes, and
// reports whether it held. It bounds a wait; it measures nothing.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exists reports whether path exists (without following a final symlink).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// processGone reports whether no live process pid exists: none at all, or
// a zombie waiting to be reaped by whichever process inherited it.
func processGone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	// The state follows the command name, which is in parentheses.
	i := bytes.LastIndexByte(data, ')')
	return i >= 0 && i+2 < len(data) && data[i+2] == 'Z'
}

// noGoDump fails t when out holds a Go panic or goroutine dump.
func noGoDump(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range []string{"panic:", "goroutine ", "runtime error"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s holds %q:\n%s", what, bad, out)
		}
	}
}
