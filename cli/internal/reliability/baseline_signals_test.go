//go:build unix

package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// baselineGateFiles is a project whose check (baseline: true) fails at
// once in the work tree and, in the temporary worktree of the base, starts
// a background grandchild (its pid in $MARKS/grandchild), writes the
// worktree's directory to $MARKS/basedir, marks its start and waits,
// bounded, for $MARKS/release before failing the same way.
var baselineGateFiles = map[string]string{
	".gauntlet/config.yml": "base_branch: main\ncli:\n  default_preference: [claude]\n" +
		"stop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: src\n    checks: [lint]\n",
	".gauntlet/checks/lint.yml": "command: sh gate.sh\nworking_directory: .\nbaseline: true\n",
	".gitignore":                "gauntlet_logs/\n",
	"gate.sh": `echo "src/main.txt:1: error: an old problem"
case "$(pwd)" in
*agent-gauntlet-base-*)
	sleep 120 &
	echo $! > "$MARKS/grandchild.tmp" && mv "$MARKS/grandchild.tmp" "$MARKS/grandchild"
	pwd > "$MARKS/basedir.tmp" && mv "$MARKS/basedir.tmp" "$MARKS/basedir"
	touch "$MARKS/started"
	i=0
	while [ ! -f "$MARKS/release" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
	;;
esac
exit 1
`,
	"src/main.txt": "hello\n",
}

// TestSignalsMidBaseline sends each ending signal to a runner (run, and
// the stop hook) while the check runs again in the temporary worktree of
// the base: the process ends on its own, kills the base run's whole process
// group, releases the lock, and removes the worktree (the repository lists
// only its own again, the temporary directory is gone).
func TestSignalsMidBaseline(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		for _, tc := range []struct {
			name  string
			args  []string
			stdin string
		}{
			{"run", []string{"run"}, ""},
			{"stop-hook", []string{"stop-hook"}, `{"hook_event_name":"Stop","stop_hook_active":false}` + "\n"},
		} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, sig), func(t *testing.T) {
				signalMidBaseline(t, sig, tc.args, tc.stdin)
			})
		}
	}
}

// signalMidBaseline is one case of TestSignalsMidBaseline.
func signalMidBaseline(t *testing.T, sig syscall.Signal, args []string, stdin string) {
	s := newSandbox(t, "", baselineGateFiles)
	s.write(map[string]string{"src/new.txt": "a change\n"})
	p := s.start(stdin, nil, nil, args...)
	defer func() {
		_ = os.WriteFile(s.mark("release"), nil, 0o644)
		p.wait()
	}()
	grandchild, baseDir := waitBaseRun(t, s, p)
	defer func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) }()

	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	r := p.wait()
	if r.waitErr != nil || r.signal != 0 {
		t.Fatalf("the process did not end on its own after %v:\n%v", sig, r)
	}
	noGoDump(t, "output", r.stdout+r.stderr)
	if exists(s.lockPath()) {
		t.Errorf("lock %s left behind after %v", s.lockPath(), sig)
	}
	if !waitFor(10*time.Second, func() bool { return processGone(grandchild) }) {
		t.Errorf("the base run's background grandchild %d outlived the run", grandchild)
	}
	noBaseWorktree(t, s, baseDir)
	if args[0] == "run" {
		if r.code != 128+int(sig) {
			t.Errorf("want exit %d:\n%v", 128+int(sig), r)
		}
		return
	}
	if a, err := parseHookAnswer(r.stdout); err != nil || r.code != 0 || a.Decision != "approve" {
		t.Errorf("want one approve line and exit 0: %v\n%v", err, r)
	}
}

// TestSIGKILLMidBaseline kills a runner with SIGKILL while the base runs
// in its temporary private checkout (no handler runs: the checkout stays,
// marked for the dead process); the next run removes it, compares with a
// fresh one and finds the failure pre-existing.
func TestSIGKILLMidBaseline(t *testing.T) {
	s := newSandbox(t, "", baselineGateFiles)
	s.write(map[string]string{"src/new.txt": "a change\n"})
	p := s.start("", nil, nil, "run")
	defer func() {
		_ = os.WriteFile(s.mark("release"), nil, 0o644)
		p.wait()
	}()
	grandchild, baseDir := waitBaseRun(t, s, p)
	defer func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) }()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if r := p.wait(); r.signal != syscall.SIGKILL {
		t.Fatalf("want death by SIGKILL:\n%v", r)
	}
	if !exists(baseDir) {
		t.Fatalf("the killed run's private checkout %s is gone before any run removed it", baseDir)
	}
	// The killed run's base check lives on (nobody killed its group).
	if err := os.WriteFile(s.mark("release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(grandchild, syscall.SIGKILL)

	r := s.run("", "run")
	if r.code != 0 || !strings.Contains(r.stderr, "[PRE-EXISTING] check:src:lint") || !strings.Contains(r.stderr, "Status: Passed") {
		t.Errorf("want the failure pre-existing and a pass:\n%v", r)
	}
	noBaseWorktree(t, s, baseDir)
}

// waitBaseRun waits until the check runs in the base worktree and returns
// the pid of its grandchild and the worktree's directory.
func waitBaseRun(t *testing.T, s *sandbox, p *proc) (int, string) {
	t.Helper()
	if !waitFor(60*time.Second, func() bool { return exists(s.mark("started")) || p.exited() }) || p.exited() {
		t.Fatalf("the base run did not start:\n%v", p.wait())
	}
	data, err := os.ReadFile(s.mark("grandchild"))
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("grandchild pid %q: %v", data, err)
	}
	dir, err := os.ReadFile(s.mark("basedir"))
	if err != nil {
		t.Fatal(err)
	}
	return grandchild, strings.TrimSpace(string(dir))
}

// noBaseWorktree fails the test when the base worktree at dir, or its
// temporary directory, is still there, or the repository lists a worktree
// besides its own.
func noBaseWorktree(t *testing.T, s *sandbox, dir string) {
	t.Helper()
	if list := strings.TrimSpace(s.git("worktree", "list", "--porcelain")); strings.Count(list, "worktree ") != 1 {
		t.Errorf("worktrees left:\n%s", list)
	}
	if exists(dir) || exists(filepath.Dir(dir)) {
		t.Errorf("the temporary worktree %s is still there", dir)
	}
}
