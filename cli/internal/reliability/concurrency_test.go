//go:build unix

package reliability

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// blockingGateFiles is a project whose one check marks its start in $MARKS
// (one file per gate process) and then waits, bounded, for $MARKS/release.
var blockingGateFiles = map[string]string{
	".gauntlet/config.yml": "base_branch: main\ncli:\n  default_preference: [claude]\n" +
		"stop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: src\n    checks: [lint]\n",
	".gauntlet/checks/lint.yml": "command: sh gate.sh\nworking_directory: .\n",
	".gitignore":                "gauntlet_logs/\n",
	"gate.sh": `touch "$MARKS/started.$$"
i=0
while [ ! -f "$MARKS/release" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
echo "gate output complete"
`,
	"src/main.txt": "hello\n",
}

// hookAnswer is the stop hook's one JSON line.
type hookAnswer struct {
	Decision      string `json:"decision"`
	Status        string `json:"status"`
	Message       string `json:"message"`
	SystemMessage string `json:"systemMessage"`
}

// parseHookAnswer checks that out is exactly one line holding one JSON
// object with the four fields, and decodes it.
func parseHookAnswer(out string) (hookAnswer, error) {
	var a hookAnswer
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		return a, fmt.Errorf("stdout is not exactly one line: %q", out)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return a, fmt.Errorf("stdout is not a JSON object: %w: %q", err, out)
	}
	for _, k := range []string{"decision", "status", "message", "systemMessage"} {
		if _, ok := m[k]; !ok {
			return a, fmt.Errorf("key %q missing: %q", k, out)
		}
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		return a, fmt.Errorf("decode %q: %w", out, err)
	}
	return a, nil
}

// TestConcurrentStarts starts 10 stop hooks and 10 runs at once in one
// repository. Exactly one of them runs the gate; while it holds the lock
// every other hook answers lock_exists and every other run fails (exit 1)
// with the lock error naming the absolute lock path. At the end the lock is
// gone, the execution state is whole, and the one run's console and gate
// logs are complete.
func TestConcurrentStarts(t *testing.T) {
	s := newSandbox(t, "", blockingGateFiles)
	s.write(map[string]string{"src/new.txt": "a change\n"})
	hookInput := fmt.Sprintf(`{"hook_event_name":"Stop","stop_hook_active":false,"cwd":%q}`+"\n", s.repo)

	const each = 10
	var procs []*proc
	for i := range 2 * each {
		if i%2 == 0 {
			procs = append(procs, s.start(hookInput, nil, nil, "stop-hook"))
		} else {
			procs = append(procs, s.start("", nil, nil, "run"))
		}
	}
	defer func() {
		// Whatever happened, let every gate go and reap every process.
		_ = os.WriteFile(s.mark("release"), nil, 0o644)
		for _, p := range procs {
			p.wait()
		}
	}()

	started := func() []string {
		m, _ := filepath.Glob(s.mark("started.*"))
		return m
	}
	if !waitFor(60*time.Second, func() bool { return len(started()) > 0 }) {
		t.Fatalf("no gate started; first process: %v", procs[0].wait())
	}
	// Every process but the lock holder must end while its gate blocks.
	waitFor(60*time.Second, func() bool {
		n := 0
		for _, p := range procs {
			if p.exited() {
				n++
			}
		}
		return n >= len(procs)-1
	})
	if err := os.WriteFile(s.mark("release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	winners := 0
	for i, p := range procs {
		r := p.wait()
		noGoDump(t, fmt.Sprintf("process %d (%s)", i, p.args[0]), r.stdout+r.stderr)
		if r.waitErr != nil {
			t.Errorf("process %d (%s): %v", i, p.args[0], r.waitErr)
			continue
		}
		if p.args[0] == "stop-hook" {
			a, err := parseHookAnswer(r.stdout)
			switch {
			case err != nil:
				t.Errorf("hook %d: %v\n%s", i, err, r)
			case r.code != 0:
				t.Errorf("hook %d exited %d, want 0\n%s", i, r.code, r)
			case a.Decision != "approve":
				t.Errorf("hook %d decided %q, want approve\n%s", i, a.Decision, r)
			case a.Status == "passed":
				winners++
			case a.Status != "lock_exists":
				t.Errorf("hook %d answered status %q, want lock_exists (or passed for the one that ran)\n%s", i, a.Status, r)
			}
			continue
		}
		switch {
		case r.code == 0 && strings.Contains(r.stderr, "Status: Passed"):
			winners++
		case r.code == 1 && strings.Contains(r.stderr, "lock file: "+s.lockPath()+", taken "):
		default:
			t.Errorf("run %d: want exit 1 with the lock error naming %s (or a pass for the one that ran)\n%s", i, s.lockPath(), r)
		}
	}
	if winners != 1 {
		t.Errorf("%d processes ran the gates, want exactly 1", winners)
	}
	if got := started(); len(got) != 1 {
		t.Errorf("the gate started %d times, want once: %v", len(got), got)
	}

	if exists(s.lockPath()) {
		t.Errorf("lock %s left behind", s.lockPath())
	}
	st, err := state.Read(s.logDir())
	if err != nil || st == nil {
		t.Errorf("execution state after the runs: %+v, %v", st, err)
	} else if st.Branch != "main" || len(st.Commit) != 40 {
		t.Errorf("execution state %+v, want branch main and a commit", st)
	}
	// A passing run archives its logs into previous/.
	for _, l := range []struct{ name, want string }{
		{"console.1.log", "Status: Passed"},
		{"check_src_lint.1.log", "gate output complete"},
		{"check_src_lint.1.log", "Result: pass"},
	} {
		data, err := os.ReadFile(filepath.Join(s.logDir(), "previous", l.name))
		if err != nil || !strings.Contains(string(data), l.want) {
			t.Errorf("log %s: %v; want it to hold %q:\n%s", l.name, err, l.want, data)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(s.logDir(), "*.tmp"))
	if more, _ := filepath.Glob(filepath.Join(s.logDir(), "console.*.log")); len(more) > 0 {
		leftovers = append(leftovers, more...)
	}
	if len(leftovers) > 0 {
		t.Errorf("files left in the log directory: %v", leftovers)
	}
}
