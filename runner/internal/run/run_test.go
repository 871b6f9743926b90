package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// testProject creates a git repository with a gauntlet configuration whose one
// check (src, "lint") runs command, plus an uncommitted change in src.
func testProject(t *testing.T, command string, extraConfig string) string {
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

// A panic inside a run becomes StatusError and still releases the lock.
func TestExecuteRunRecoversPanic(t *testing.T) {
	root := testProject(t, "exit 1", "")
	if res := Execute(context.Background(), Options{Dir: root}); res.Status != outcome.StatusFailed {
		t.Fatalf("first run %+v", res)
	}
	d := realDeps()
	d.previous = func(*services, *project, *begun) *gate.Pending { panic("boom") }
	res := execute(context.Background(), Options{Dir: root}, d)
	if res.Status != outcome.StatusError || !strings.Contains(res.ErrorMessage, "boom") {
		t.Fatalf("result %+v", res)
	}
	if lock.Exists(logDir(root)) {
		t.Fatal("lock left behind after a panic")
	}
}

// What an older version's log directory leaves, as a book is seeded from
// it: the checks whose latest log failed or erred, every slot's latest
// verdict.
func TestLegacyOf(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("check_src_lint.1.log", "x\nResult: pass - ok\n")
	write("check_src_lint.2.log", "x\nResult: fail - Exited with code 1\n\n--- Fix Instructions ---\nRun make fmt.\n")
	write("check_src_test.1.log", "x\nResult: fail - Exited with code 1\n")
	write("check_src_test.3.log", "x\nResult: pass - Command exited with code 0\n")
	write("check_src_err.1.log", "Health check failed\nResult: error - Missing command: x\n")
	write("check_src_my%5Flint.1.log", "x\nResult: fail - Exited with code 1\n")
	write("review_src_q_claude@1.1.json", `{"adapter":"claude","status":"fail","violations":[]}`)
	write("review_src_q_codex@2.3.json", `{"adapter":"codex","status":"pass","violations":[]}`)
	write("console.1.log", "Result: fail - x\n")
	jn := logdir.NewJobNames("check:src:lint", "check:src:test", "check:src:err", "check:src:my_lint", "review:src:q")
	l := legacyOf(dir, jn, false) // no repository: every file is taken as written
	want := verdicts.Legacy{
		Checks: map[string]string{"check:src:err": "", "check:src:lint": "", "check:src:my_lint": ""},
		Slots: []verdicts.LegacySlot{
			{Job: "review:src:q", Slot: 1, Adapter: "claude", Status: verdicts.StatusFail, Run: 1, JSON: "review_src_q_claude@1.1.json"},
			{Job: "review:src:q", Slot: 2, Adapter: "codex", Status: verdicts.StatusPass, Run: 3, JSON: "review_src_q_codex@2.3.json"},
		},
		Run: 3,
	}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("legacyOf = %+v, want %+v", l, want)
	}
}
