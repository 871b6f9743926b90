//go:build unix

package reliability

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// grandchildGateFiles is a project whose one check starts a background
// grandchild (its pid written to $MARKS/grandchild), marks its start and
// waits, bounded, for $MARKS/release.
var grandchildGateFiles = map[string]string{
	".gauntlet/config.yml": "base_branch: main\ncli:\n  default_preference: [claude]\n" +
		"stop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: src\n    checks: [lint]\n",
	".gauntlet/checks/lint.yml": "command: sh gate.sh\nworking_directory: .\n",
	".gitignore":                "gauntlet_logs/\n",
	"gate.sh": `sleep 120 &
echo $! > "$MARKS/grandchild.tmp" && mv "$MARKS/grandchild.tmp" "$MARKS/grandchild"
touch "$MARKS/started"
i=0
while [ ! -f "$MARKS/release" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
`,
	"src/main.txt": "hello\n",
}

// TestSignalsMidGate sends each ending signal (SIGINT, SIGTERM, SIGHUP,
// SIGQUIT) to a runner (run, and the stop hook) while its gate runs. The
// process ends on its own, releases the lock, and kills the gate's whole
// process group: the gate's background grandchild is gone too. The run
// exits 128+n saying it was interrupted, the same way for every signal; the
// hook still answers one JSON line that lets the agent stop (exit 0).
func TestSignalsMidGate(t *testing.T) {
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
				signalMidGate(t, sig, tc.args, tc.stdin)
			})
		}
	}
}

// signalMidGate is one case of TestSignalsMidGate.
func signalMidGate(t *testing.T, sig syscall.Signal, args []string, stdin string) {
	s := newSandbox(t, "", grandchildGateFiles)
	s.write(map[string]string{"src/new.txt": "a change\n"})
	p := s.start(stdin, nil, nil, args...)
	defer func() {
		_ = os.WriteFile(s.mark("release"), nil, 0o644)
		p.wait()
	}()
	if !waitFor(60*time.Second, func() bool { return exists(s.mark("started")) || p.exited() }) || p.exited() {
		t.Fatalf("the gate did not start:\n%v", p.wait())
	}
	data, err := os.ReadFile(s.mark("grandchild"))
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("grandchild pid %q: %v", data, err)
	}
	defer func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) }()
	if !exists(s.lockPath()) {
		t.Errorf("no lock %s while the gate runs", s.lockPath())
	}

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
		t.Errorf("the gate's background grandchild %d outlived the run", grandchild)
	}
	if args[0] == "run" {
		if r.code != 128+int(sig) || !strings.Contains(strings.ToLower(r.stderr), "interrupted") {
			t.Errorf("want exit %d saying the run was interrupted:\n%v", 128+int(sig), r)
		}
		return
	}
	a, err := parseHookAnswer(r.stdout)
	if err != nil || r.code != 0 || a.Decision != "approve" {
		t.Errorf("want one approve line and exit 0: %v\n%v", err, r)
	}
	if a.Status != "infrastructure_error" && a.Status != "error" {
		t.Errorf("hook status %q, want infrastructure_error or error\n%v", a.Status, r)
	}
}

// TestSIGKILLTakeover kills a runner with SIGKILL mid-gate (no handler
// runs, the lock stays), then starts the next run: it takes the stale lock
// over with a warning naming the dead process, runs its gate and passes.
// (testdata/script/reliability_stale_lock.txtar pins the same through the
// testscript runner; this one uses the real binary.)
func TestSIGKILLTakeover(t *testing.T) {
	s := newSandbox(t, "", grandchildGateFiles)
	s.write(map[string]string{"src/new.txt": "a change\n"})
	p := s.start("", nil, nil, "run")
	defer func() {
		_ = os.WriteFile(s.mark("release"), nil, 0o644)
		p.wait()
	}()
	if !waitFor(60*time.Second, func() bool { return exists(s.mark("started")) || p.exited() }) || p.exited() {
		t.Fatalf("the gate did not start:\n%v", p.wait())
	}
	if data, err := os.ReadFile(s.mark("grandchild")); err == nil {
		if orphan, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			defer func() { _ = syscall.Kill(orphan, syscall.SIGKILL) }()
		}
	}
	pid := p.cmd.Process.Pid
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if r := p.wait(); r.signal != syscall.SIGKILL {
		t.Fatalf("want death by SIGKILL:\n%v", r)
	}
	if !exists(s.lockPath()) {
		t.Fatalf("no lock left by the killed run")
	}
	// The killed run's gate lives on (nobody killed its group): release it.
	if err := os.WriteFile(s.mark("release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	r := s.run("", "run")
	want := fmt.Sprintf("took over the stale lock file %s of process %d", s.lockPath(), pid)
	if r.code != 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "Status: Passed") {
		t.Errorf("want a pass with the warning %q:\n%v", want, r)
	}
	if exists(s.lockPath()) {
		t.Errorf("lock %s left behind", s.lockPath())
	}
}
