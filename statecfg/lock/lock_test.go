package lock

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// Environment of the helper process (see TestMain).
const (
	helperEnv      = "GAUNTLET_LOCK_TEST_HELPER" // "acquire" or "exit"
	helperDirEnv   = "GAUNTLET_LOCK_TEST_DIR"
	helperStartEnv = "GAUNTLET_LOCK_TEST_START"
	// noRaceExitSleep stops a -race helper from sleeping a second at exit.
	noRaceExitSleep = "GORACE=atexit_sleep_ms=0"
)

// TestMain turns the test binary into a helper process when helperEnv is
// set: "exit" exits at once (its pid is then dead); "sleep" lives a
// minute (unless killed); "acquire" waits for the
// start file, acquires the lock of the log directory, prints "won <warning>"
// or "held" or "error <msg>", holds the lock until stdin closes, then
// releases it.
func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "exit":
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "acquire":
		os.Exit(helperAcquire())
	}
	os.Exit(3)
}

func helperAcquire() int {
	start := os.Getenv(helperStartEnv)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(start); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Println("error start file never appeared")
			return 1
		}
		time.Sleep(time.Millisecond)
	}
	l, err := Acquire(os.Getenv(helperDirEnv))
	var held *HeldError
	switch {
	case errors.As(err, &held):
		fmt.Println("held")
	case err != nil:
		fmt.Println("error", err)
	default:
		fmt.Println("won", l.Warning)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := l.Release(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=exit", noRaceExitSleep)
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	return cmd.Process.Pid
}

func hostname(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil || h == "" {
		t.Skipf("no hostname: %v", err)
	}
	return h
}

// lockJSON is a lock file as this package writes it, taken now: after any
// live process started (an older lock of a live pid names a process that
// started after it: its pid was reused).
func lockJSON(pid int, host string) string {
	return lockJSONAt(pid, host, time.Now())
}

// lockJSONAt is a lock file as this package writes it, taken at.
func lockJSONAt(pid int, host string, at time.Time) string {
	return fmt.Sprintf(`{"pid":%d,"host":%q,"started_at":%q}`+"\n", pid, host, at.UTC().Format(time.RFC3339Nano))
}

func TestAcquireRelease(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs") // created by Acquire
	if Exists(dir) {
		t.Fatal("Exists before Acquire")
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	if l.Path != filepath.Join(dir, File) || l.Warning != "" {
		t.Errorf("Lock = %+v", l)
	}
	if !Exists(dir) {
		t.Error("Exists after Acquire = false")
	}
	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		PID       int       `json:"pid"`
		Host      string    `json:"host"`
		StartedAt time.Time `json:"started_at"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatalf("lock content %q: %v", data, err)
	}
	if o.PID != os.Getpid() || o.Host != hostname(t) || time.Since(o.StartedAt) > time.Minute {
		t.Errorf("lock content = %+v", o)
	}

	_, err = Acquire(dir)
	var held *HeldError
	if !errors.As(err, &held) || held.Path != l.Path {
		t.Fatalf("second Acquire = %v, want HeldError for %s", err, l.Path)
	}

	if err := l.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if Exists(dir) {
		t.Error("lock file left after Release")
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	var nilLock *Lock
	if err := nilLock.Release(); err != nil {
		t.Errorf("nil Release: %v", err)
	}

	l2, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	if err := l.Release(); err != nil { // the old lock must not remove the new one
		t.Fatal(err)
	}
	if !Exists(dir) {
		t.Error("a released Lock removed a later lock")
	}
	if err := l2.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestAcquireRelativeDir(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	l, err := Acquire("logs")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if want := filepath.Join(root, "logs", File); l.Path != want {
		t.Errorf("Path = %q, want %q", l.Path, want)
	}
}

func TestHeldErrorMessage(t *testing.T) {
	err := &HeldError{Path: "/abs/logs/.gauntlet-run.lock"}
	want := "a gauntlet run is already in progress (lock file: /abs/logs/.gauntlet-run.lock); if no run is in progress, remove that file"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestAcquireRespectsExistingLock(t *testing.T) {
	host := hostname(t)
	dead := deadPID(t)
	tests := []struct {
		name    string
		content string
	}{
		{"empty file", ""},
		{"TypeScript plain pid of a dead process", strconv.Itoa(dead) + "\n"},
		{"TypeScript plain pid", strconv.Itoa(os.Getpid())},
		{"foreign text", "locked by me\n"},
		{"other host, dead pid", lockJSON(dead, host+"-elsewhere")},
		{"our host, live pid", lockJSON(os.Getpid(), host)},
		{"our host, live parent pid", lockJSON(os.Getppid(), host)},
		{"no host", lockJSON(dead, "")},
		{"pid zero", lockJSON(0, host)},
		{"negative pid", lockJSON(-1, host)},
		{"extra field", fmt.Sprintf(`{"pid":%d,"host":%q,"started_at":"2026-01-27T10:00:00Z","tool":"x"}`, dead, host)},
		{"no start time", fmt.Sprintf(`{"pid":%d,"host":%q}`, dead, host)},
		{"trailing data", lockJSON(dead, host) + "{}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, File)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := Acquire(dir)
			var held *HeldError
			if !errors.As(err, &held) {
				l.Release()
				t.Fatalf("Acquire = %v, %v; want HeldError", l, err)
			}
			if held.Path != path {
				t.Errorf("HeldError.Path = %q, want %q", held.Path, path)
			}
			if data, _ := os.ReadFile(path); string(data) != tc.content {
				t.Errorf("lock file changed to %q", data)
			}
		})
	}
}

func TestAcquireTakesOverStaleLock(t *testing.T) {
	dir := t.TempDir()
	dead := deadPID(t)
	path := filepath.Join(dir, File)
	if err := os.WriteFile(path, []byte(lockJSON(dead, hostname(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	defer l.Release()
	want := fmt.Sprintf("took over the stale lock file %s of process %d, which is no longer running", path, dead)
	if l.Warning != want {
		t.Errorf("Warning = %q, want %q", l.Warning, want)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), fmt.Sprintf(`"pid":%d`, os.Getpid())) {
		t.Errorf("lock content after takeover = %q", data)
	}
	assertNoTempFiles(t, dir)
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	tmps, _ := filepath.Glob(filepath.Join(dir, File+".*.tmp"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

func TestReleaseLeavesAForeignLock(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.Path, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(l.Path); err != nil || string(data) != "12345" {
		t.Errorf("foreign lock = %q, %v; want it untouched", data, err)
	}
	if err := os.Remove(l.Path); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil { // idempotent when the file is gone
		t.Fatal(err)
	}
}

func TestAcquireErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var held *HeldError
	if _, err := Acquire(filepath.Join(file, "logs")); err == nil || errors.As(err, &held) {
		t.Errorf("Acquire under a file = %v, want a plain error", err)
	}
}

// TestConcurrentGoroutines: 20 goroutines acquire at once, with no lock and
// with a stale lock present; exactly one wins each time.
func TestConcurrentGoroutines(t *testing.T) {
	for _, stale := range []bool{false, true} {
		t.Run(fmt.Sprintf("stale=%v", stale), func(t *testing.T) {
			dir := t.TempDir()
			if stale {
				if err := os.WriteFile(filepath.Join(dir, File), []byte(lockJSON(deadPID(t), hostname(t))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			const n = 20
			var (
				wg       sync.WaitGroup
				start    = make(chan struct{})
				mu       sync.Mutex
				winners  []*Lock
				warnings int
			)
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					l, err := Acquire(dir)
					var held *HeldError
					if err != nil && !errors.As(err, &held) {
						t.Error(err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					if l != nil {
						winners = append(winners, l)
						if l.Warning != "" {
							warnings++
						}
					}
				}()
			}
			close(start)
			wg.Wait()
			if len(winners) != 1 {
				t.Fatalf("%d winners, want exactly 1", len(winners))
			}
			if stale && warnings != 1 || !stale && warnings != 0 {
				t.Errorf("%d takeover warnings", warnings)
			}
			if err := winners[0].Release(); err != nil {
				t.Fatal(err)
			}
			if Exists(dir) {
				t.Error("lock left after the winner released it")
			}
			assertNoTempFiles(t, dir)
		})
	}
}

// TestConcurrentProcesses: separate processes (this test binary re-run as a
// helper) acquire at once; exactly one wins, with and without a stale lock.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, stale := range []bool{false, true} {
		t.Run(fmt.Sprintf("stale=%v", stale), func(t *testing.T) {
			dir := t.TempDir()
			logDir := filepath.Join(dir, "logs")
			startFile := filepath.Join(dir, "start")
			if stale {
				if err := os.MkdirAll(logDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(logDir, File), []byte(lockJSON(deadPID(t), hostname(t))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			const n = 8
			type proc struct {
				cmd   *exec.Cmd
				stdin io.WriteCloser
				out   *bufio.Reader
			}
			procs := make([]proc, n)
			for i := range procs {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), helperEnv+"=acquire", helperDirEnv+"="+logDir, helperStartEnv+"="+startFile, noRaceExitSleep)
				cmd.Stderr = os.Stderr
				stdin, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				procs[i] = proc{cmd, stdin, bufio.NewReader(stdout)}
			}
			defer func() {
				for _, p := range procs {
					p.stdin.Close()
					_ = p.cmd.Wait()
				}
			}()
			if err := os.WriteFile(startFile, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			var won, warned int
			for i, p := range procs {
				line, err := p.out.ReadString('\n')
				if err != nil {
					t.Fatalf("helper %d: %v", i, err)
				}
				line = strings.TrimSpace(line)
				switch {
				case line == "held":
				case strings.HasPrefix(line, "won"):
					won++
					if strings.Contains(line, "stale lock") {
						warned++
					}
				default:
					t.Errorf("helper %d: %s", i, line)
				}
			}
			if won != 1 {
				t.Errorf("%d processes won the lock, want exactly 1", won)
			}
			if stale && warned != 1 || !stale && warned != 0 {
				t.Errorf("%d takeover warnings", warned)
			}
			for i, p := range procs {
				p.stdin.Close()
				if err := p.cmd.Wait(); err != nil {
					t.Errorf("helper %d: %v", i, err)
				}
			}
			if Exists(logDir) {
				t.Error("lock left after every helper released")
			}
			assertNoTempFiles(t, logDir)
		})
	}
}

// Release leaves alone a lock file replaced by a FIFO (not ours any more),
// and never blocks on it.
func TestReleaseReplacedByFIFO(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(l.Path); err != nil {
		t.Fatal(err)
	}
	fifotest.Create(t, l.Path)
	if err := l.Release(); err != nil {
		t.Errorf("Release = %v", err)
	}
	if fi, err := os.Lstat(l.Path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is gone or changed: %v, %v", fi, err)
	}
}
