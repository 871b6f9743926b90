//go:build unix

package reliability

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user the read-only case runs as when the tests run as root
// (root writes to read-only directories).
const nobody = 65534

// unwritableFiles is a project with a change to verify; log_dir is set per
// case.
func unwritableFiles(logDir string) map[string]string {
	return map[string]string{
		".gauntlet/config.yml": "base_branch: main\nlog_dir: " + logDir + "\ncli:\n  default_preference: [claude]\n" +
			"stop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: src\n    checks: [lint]\n",
		".gauntlet/checks/lint.yml": "command: \"true\"\n",
		"blocker":                   "a file where a directory is expected\n",
		"src/main.txt":              "hello\n",
	}
}

// TestUnwritableLogDir runs `run` and the stop hook with a log directory
// they cannot write to: a read-only directory, and a log_dir whose parent
// is a regular file. run fails (exit 1) with one clear error naming the
// directory and the reason; the hook still answers one JSON line letting
// the agent stop, with status error or infrastructure_error. Neither leaves
// a lock or dumps a Go error.
func TestUnwritableLogDir(t *testing.T) {
	t.Run("read-only directory", func(t *testing.T) {
		var attr *syscall.SysProcAttr
		base := ""
		if os.Geteuid() == 0 {
			// Run as nobody, in a tree nobody owns and can reach.
			var err error
			base, err = os.MkdirTemp("", "gauntlet-readonly-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(base) })
			if err := os.Chmod(base, 0o755); err != nil {
				t.Fatal(err)
			}
			attr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		}
		s := newSandbox(t, base, unwritableFiles("logs"))
		s.write(map[string]string{"src/new.txt": "a change\n"})
		logDir := filepath.Join(s.repo, "logs")
		if err := os.Mkdir(logDir, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(logDir, 0o555); err != nil { // whatever the umask
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(logDir, 0o755) })
		if attr != nil {
			chownTree(t, base, nobody)
		}
		probe := exec.Command("sh", "-c", `touch "$1/probe"`, "sh", logDir)
		probe.SysProcAttr = attr
		if err := probe.Run(); err == nil {
			t.Fatalf("could not make %s unwritable for the test process", logDir)
		}
		checkUnwritable(t, s, attr, logDir, "permission denied")
	})

	// A log_dir below a regular file can never be created: it is a
	// configuration error (exit 2) naming the field and the file in
	// the way, reported before anything runs.
	t.Run("log_dir below a file", func(t *testing.T) {
		s := newSandbox(t, "", unwritableFiles("blocker/logs"))
		s.write(map[string]string{"src/new.txt": "a change\n"})
		const problem = ".gauntlet/config.yml: log_dir: must be a path of directories (blocker is a regular file)"
		r := s.start("", nil, nil, "run").wait()
		noGoDump(t, "run", r.stdout+r.stderr)
		if r.waitErr != nil || r.code != 2 || !strings.Contains(r.stderr, problem) {
			t.Errorf("run: want exit 2 and %q:\n%v", problem, r)
		}
		r = s.start(`{"hook_event_name":"Stop","stop_hook_active":false}`+"\n", nil, nil, "stop-hook").wait()
		noGoDump(t, "stop-hook", r.stdout+r.stderr)
		a, err := parseHookAnswer(r.stdout)
		if err != nil || r.code != 0 || a.Decision != "approve" || a.Status != "error" || !strings.Contains(a.Message, problem) {
			t.Errorf("stop-hook: want approve, error, %q: %v\n%v", problem, err, r)
		}
	})
}

// chownTree gives everything under root to uid (group uid too).
func chownTree(t *testing.T, root string, uid int) {
	t.Helper()
	err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkUnwritable runs `run` and the stop hook as attr says and checks
// their answers: both name path and say why (reason, case-insensitive).
func checkUnwritable(t *testing.T, s *sandbox, attr *syscall.SysProcAttr, path, reason string) {
	t.Helper()
	r := s.start("", nil, attr, "run").wait()
	noGoDump(t, "run", r.stdout+r.stderr)
	if r.waitErr != nil || r.code != 1 {
		t.Errorf("run: want exit 1:\n%v", r)
	}
	low := strings.ToLower(r.stderr)
	if !strings.Contains(r.stderr, path) || !strings.Contains(low, reason) {
		t.Errorf("run: want an error naming %s and saying %q:\n%v", path, reason, r)
	}
	if n := strings.Count(r.stderr, filepath.Join(path, ".gauntlet-run.lock")); n > 1 {
		t.Errorf("run: the error names the lock file %d times:\n%v", n, r)
	}
	if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n > 0 {
		t.Errorf("run: want one error line, got %d lines:\n%v", n+1, r)
	}

	hookInput := `{"hook_event_name":"Stop","stop_hook_active":false}` + "\n"
	r = s.start(hookInput, nil, attr, "stop-hook").wait()
	noGoDump(t, "stop-hook", r.stdout+r.stderr)
	a, err := parseHookAnswer(r.stdout)
	if err != nil || r.code != 0 || a.Decision != "approve" {
		t.Errorf("stop-hook: want one approve line and exit 0: %v\n%v", err, r)
	}
	if a.Status != "error" && a.Status != "infrastructure_error" {
		t.Errorf("stop-hook: status %q, want error or infrastructure_error\n%v", a.Status, r)
	}
	if !strings.Contains(strings.ToLower(a.Message), reason) {
		t.Errorf("stop-hook: message %q does not say %q", a.Message, reason)
	}
	if exists(filepath.Join(s.repo, "logs", ".gauntlet-run.lock")) {
		t.Errorf("lock left behind")
	}
}
