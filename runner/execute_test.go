package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// project creates a git repository with a gauntlet configuration whose one
// check (src, "lint") runs command, plus an uncommitted change in src.
func project(t *testing.T, command string, extraConfig string) string {
	t.Helper()
	testenv.Setenv(t)
	root := t.TempDir()
	files := map[string]string{
		".gauntlet/config.yml":      "base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: src\n    checks: [lint]\n" + extraConfig,
		".gauntlet/checks/lint.yml": "command: " + command + "\n",
		".gitignore":                "gauntlet_logs/\n",
		"src/main.txt":              "main\n",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "src", "new.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func logDir(root string) string { return filepath.Join(root, config.DefaultLogDir) }

func TestExecuteRunSilentFailure(t *testing.T) {
	root := project(t, "echo broken; exit 3", "")
	var stderr, stdout bytes.Buffer
	res := ExecuteRun(context.Background(), Options{Dir: filepath.Join(root, "src"), Silent: true, Stderr: &stderr, Stdout: &stdout})
	if res.Status != StatusFailed || res.Message != Message(StatusFailed, "1 of 1 gates failed.") || res.GatesRun != 1 || res.GatesFailed != 1 {
		t.Fatalf("result %+v", res)
	}
	if stderr.Len()+stdout.Len() != 0 {
		t.Fatalf("silent run printed %q %q", stdout.String(), stderr.String())
	}
	if len(res.Gates) != 1 {
		t.Fatalf("gates %+v", res.Gates)
	}
	g := res.Gates[0]
	if g.JobID != "check:src:lint" || g.Kind != "check" || g.Gate != "lint" || g.EntryPoint != "src" || g.WorkingDir != "src" || g.File != ".gauntlet/checks/lint.yml" ||
		g.Status != GateFail || g.Open != 1 || g.LogPath != filepath.Join(logDir(root), "check_src_lint.1.log") ||
		!g.Exited || g.ExitCode != 3 || g.TimedOut {
		t.Errorf("gate result %+v", g)
	}
	if res.Root != root || res.Base != "main" || res.RunNumber != 1 || !res.ChangesListed || res.ChangedFiles != 1 || res.Verification {
		t.Errorf("run description %+v", res)
	}
	want := filepath.Join(logDir(root), "console.1.log")
	if res.ConsoleLogPath != want || !filepath.IsAbs(res.ConsoleLogPath) {
		t.Fatalf("ConsoleLogPath = %q, want %q", res.ConsoleLogPath, want)
	}
	data, err := os.ReadFile(want)
	if err != nil || !strings.Contains(string(data), "Status: Failed") || !strings.Contains(string(data), "[FAIL]  check:src:lint") {
		t.Fatalf("console log %q, %v", data, err)
	}
	st, err := state.Read(logDir(root))
	if err != nil || st == nil || st.Branch != "main" || len(st.Commit) != 40 || len(st.WorkingTreeRef) != 40 {
		t.Fatalf("state %+v, %v", st, err)
	}
	if lock.Exists(logDir(root)) {
		t.Fatal("lock left behind")
	}
}

func TestExecuteRunPassArchives(t *testing.T) {
	root := project(t, `"true"`, "")
	var stderr bytes.Buffer
	res := ExecuteRun(context.Background(), Options{Dir: root, Stderr: &stderr})
	if res.Status != StatusPassed || res.Message != Message(StatusPassed, "") {
		t.Fatalf("result %+v\n%s", res, stderr.String())
	}
	if res.ConsoleLogPath != filepath.Join(logDir(root), "previous", "console.1.log") {
		t.Fatalf("ConsoleLogPath = %s", res.ConsoleLogPath)
	}
	if _, err := os.Stat(res.ConsoleLogPath); err != nil {
		t.Fatal(err)
	}
	// The gate's log moved with the console log: its path follows it.
	if len(res.Gates) != 1 || res.Gates[0].LogPath != filepath.Join(logDir(root), "previous", "check_src_lint.1.log") {
		t.Fatalf("gates %+v", res.Gates)
	}
	if _, err := os.Stat(res.Gates[0].LogPath); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "\nStatus: Passed\n") {
		t.Fatalf("stderr %q", stderr.String())
	}
	if st, _ := state.Read(logDir(root)); st == nil {
		t.Fatal("state not kept after the pass")
	}
}

// Canceling the context kills the running gate, releases the lock and
// writes no state.
func TestExecuteRunCanceled(t *testing.T) {
	root := project(t, "touch started; sleep 30", "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan RunResult)
	go func() { done <- ExecuteRun(ctx, Options{Dir: root}) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(root, "src", "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the check never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	res := <-done
	if res.Status != StatusError || !strings.HasPrefix(res.ErrorMessage, "run interrupted: ") || res.Message != Message(StatusError, res.ErrorMessage) {
		t.Fatalf("result %+v", res)
	}
	if lock.Exists(logDir(root)) {
		t.Fatal("lock left behind")
	}
	if st, _ := state.Read(logDir(root)); st != nil {
		t.Fatalf("state written for an interrupted run: %+v", st)
	}
}

func TestExecuteRunGitMissing(t *testing.T) {
	root := project(t, `"true"`, "")
	t.Setenv("PATH", t.TempDir())
	res := ExecuteRun(context.Background(), Options{Dir: root})
	if res.Status != StatusInfrastructureError || !strings.Contains(res.ErrorMessage, "git") || !strings.Contains(res.Message, res.ErrorMessage) {
		t.Fatalf("result %+v", res)
	}
	if lock.Exists(logDir(root)) {
		t.Fatal("lock left behind")
	}
}

func TestExecuteRunNoConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := ExecuteRun(context.Background(), Options{Dir: dir})
	if res.Status != StatusNoConfig || !errors.Is(res.ConfigErr, config.ErrNotFound) {
		t.Fatalf("result %+v", res)
	}
}

func TestExecuteRunDebugLog(t *testing.T) {
	root := project(t, "exit 1", "debug_log:\n  enabled: true\n")
	res := ExecuteRun(context.Background(), Options{Dir: root, Command: "check -g lint", Kinds: KindsChecks, Gate: "lint"})
	if res.Status != StatusFailed {
		t.Fatalf("result %+v", res)
	}
	data, err := os.ReadFile(filepath.Join(logDir(root), ".debug.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"] COMMAND check -g lint\n",
		"] RUN_START mode=full base_ref=main files_changed=1 files_new=1 files_modified=0 files_deleted=0 lines_added=1 lines_removed=0 gates=1\n",
		"] GATE_RESULT check:src:lint status=fail duration=0.",
		"] RUN_END status=failed fixed=0 skipped=0 failed=1 iterations=1\n",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("debug log lacks %q:\n%s", want, data)
		}
	}
}
