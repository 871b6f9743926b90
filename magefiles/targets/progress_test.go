package targets

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// ev is one `go test -json` line of package pkg (below modulePrefix).
func ev(action, pkg, test, output string, elapsed float64) string {
	b, err := json.Marshal(testEvent{Action: action, Package: modulePrefix + pkg, Test: test, Output: output, Elapsed: elapsed})
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// TestProgressLines pins what progress prints for each kind of event
// stream: a line per package and per script, the whole output of what
// fails (and only of that), the reason of a skipped script, go's own
// lines, and the counts of the summary.
func TestProgressLines(t *testing.T) {
	for _, tt := range []struct {
		name, label string
		stream      []string
		want        []string
		summary     string
	}{
		{
			name: "a package passes",
			stream: []string{
				ev("start", "cli/internal/stack", "", "", 0),
				ev("run", "cli/internal/stack", "TestDetect", "", 0),
				ev("output", "cli/internal/stack", "TestDetect", "=== RUN   TestDetect\n", 0),
				ev("pass", "cli/internal/stack", "TestDetect", "", 0.1),
				ev("output", "cli/internal/stack", "", "PASS\n", 0),
				ev("pass", "cli/internal/stack", "", "", 1.25),
			},
			want:    []string{"ok   cli/internal/stack (1.2s)"},
			summary: "packages: 1 ok, 0 failed, 0 without tests; scripts: 0 passed, 0 failed, 0 skipped",
		},
		{
			name:    "a package without tests",
			stream:  []string{ev("start", "hookproto/x", "", "", 0), ev("skip", "hookproto/x", "", "?   \tx\t[no test files]\n", 0)},
			want:    []string{"?    hookproto/x [no test files]"},
			summary: "packages: 0 ok, 0 failed, 1 without tests; scripts: 0 passed, 0 failed, 0 skipped",
		},
		{
			name: "a test fails",
			stream: []string{
				ev("run", "runner/x", "TestA", "", 0),
				ev("output", "runner/x", "TestA", "=== RUN   TestA\n", 0),
				ev("output", "runner/x", "TestA", "    a_test.go:9: got 1, want 2\n", 0),
				ev("output", "runner/x", "TestA", "--- FAIL: TestA (0.00s)\n", 0),
				ev("fail", "runner/x", "TestA", "", 0.01),
				ev("run", "runner/x", "TestB", "", 0),
				ev("output", "runner/x", "TestB", "    b_test.go:3: fine\n", 0),
				ev("pass", "runner/x", "TestB", "", 0.01),
				ev("output", "runner/x", "", "FAIL\n", 0),
				ev("fail", "runner/x", "", "", 0.5),
			},
			want: []string{
				"--- output of runner/x TestA:",
				"        a_test.go:9: got 1, want 2",
				"    --- FAIL: TestA (0.00s)",
				"--- output of runner/x:",
				"    FAIL",
				"FAIL runner/x (0.5s)",
			},
			summary: "packages: 0 ok, 1 failed, 0 without tests; scripts: 0 passed, 0 failed, 0 skipped",
		},
		{
			name: "a package does not build",
			stream: []string{
				`{"ImportPath":"` + modulePrefix + `runner/x [` + modulePrefix + `runner/x.test]","Action":"build-output","Output":"# runner/x\n"}` + "\n",
				`{"ImportPath":"` + modulePrefix + `runner/x [` + modulePrefix + `runner/x.test]","Action":"build-output","Output":"x.go:3:1: syntax error\n"}` + "\n",
				`{"ImportPath":"` + modulePrefix + `runner/x [` + modulePrefix + `runner/x.test]","Action":"build-fail"}` + "\n",
				ev("start", "runner/x", "", "", 0),
				ev("output", "runner/x", "", "FAIL\tx [build failed]\n", 0),
				`{"Action":"fail","Package":"` + modulePrefix + `runner/x","Elapsed":0,"FailedBuild":"` + modulePrefix + `runner/x [` + modulePrefix + `runner/x.test]"}` + "\n",
			},
			want: []string{
				"--- output of runner/x:",
				"    # runner/x",
				"    x.go:3:1: syntax error",
				"    FAIL\tx [build failed]",
				"FAIL runner/x (0.0s)",
			},
			summary: "packages: 0 ok, 1 failed, 0 without tests; scripts: 0 passed, 0 failed, 0 skipped",
		},
		{
			name:  "scripts pass, fail and skip",
			label: " (testscript)",
			stream: []string{
				ev("start", "cli", "", "", 0),
				ev("run", "cli", "TestScript", "", 0),
				ev("run", "cli", "TestScript/cache_hit", "", 0),
				ev("run", "cli", "TestScript/cache_hit/inner", "", 0),
				ev("pass", "cli", "TestScript/cache_hit/inner", "", 0.1),
				ev("pass", "cli", "TestScript/cache_hit", "", 3.04),
				ev("run", "cli", "TestScript/init_stack_python", "", 0),
				ev("output", "cli", "TestScript/init_stack_python", "        > stderr 'x'\n", 0),
				ev("output", "cli", "TestScript/init_stack_python", "        FAIL: x.txtar:19: no match for `x` found in stderr\n", 0),
				ev("fail", "cli", "TestScript/init_stack_python", "", 1.9),
				ev("run", "cli", "TestScriptHostileHost/init_stack_rust", "", 0),
				ev("output", "cli", "TestScriptHostileHost/init_stack_rust", "        > [!exec:make] skip 'needs make'\n", 0),
				ev("output", "cli", "TestScriptHostileHost/init_stack_rust", "        skip needs make\n", 0),
				ev("output", "cli", "TestScriptHostileHost/init_stack_rust", "    --- SKIP: TestScriptHostileHost/init_stack_rust (0.01s)\n", 0),
				ev("skip", "cli", "TestScriptHostileHost/init_stack_rust", "", 0.01),
				ev("fail", "cli", "TestScript", "", 5),
				ev("fail", "cli", "", "", 5.2),
			},
			want: []string{
				"PASS TestScript/cache_hit (3.0s)",
				"--- output of cli TestScript/init_stack_python:",
				"            > stderr 'x'",
				"            FAIL: x.txtar:19: no match for `x` found in stderr",
				"FAIL TestScript/init_stack_python (1.9s)",
				"SKIP TestScriptHostileHost/init_stack_rust (0.0s): skip needs make",
				"--- output of cli TestScript:",
				"--- output of cli:",
				"FAIL cli (testscript) (5.2s)",
			},
			summary: "packages: 0 ok, 1 failed, 0 without tests; scripts: 1 passed, 1 failed, 1 skipped",
		},
		{
			name:    "go's own lines",
			stream:  []string{"go: updates to go.mod needed\n", ev("pass", "statecfg", "", "", 0.3)},
			want:    []string{"go: updates to go.mod needed", "ok   statecfg (0.3s)"},
			summary: "packages: 1 ok, 0 failed, 0 without tests; scripts: 0 passed, 0 failed, 0 skipped",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := newProgress(&out, time.Now, "TestScript", "TestScriptHostileHost")
			p.consume(strings.NewReader(strings.Join(tt.stream, "")), tt.label)
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("printed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if s := p.summary(); s != tt.summary {
				t.Errorf("summary %q, want %q", s, tt.summary)
			}
		})
	}
}

// TestProgressHeartbeat pins the line that breaks a silence: nothing while
// lines come, then what still runs, longest first, five at most; nothing
// once everything ended.
func TestProgressHeartbeat(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var out bytes.Buffer
	p := newProgress(&out, clock, "TestScript")
	var stream []string
	stream = append(stream, ev("start", "cli/internal/lifecycle", "", "", 0))
	p.consume(strings.NewReader(strings.Join(stream, "")), "")
	now = now.Add(5 * time.Second)
	var scripts []string
	for _, s := range []string{"a", "b", "c", "d", "e", "f"} {
		scripts = append(scripts, ev("run", "cli", "TestScript/"+s, "", 0))
	}
	p.consume(strings.NewReader(strings.Join(scripts, "")), " (testscript)")

	now = now.Add(20 * time.Second)
	if p.heartbeat(30 * time.Second) {
		t.Fatalf("a heartbeat 20s after the last line: %q", out.String())
	}
	p.print("ok   statecfg (1.0s)")
	now = now.Add(31 * time.Second)
	if !p.heartbeat(30 * time.Second) {
		t.Fatal("no heartbeat after 31s of silence")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := "...  still running: cli/internal/lifecycle 56s, TestScript/a 51s, TestScript/b 51s, TestScript/c 51s, TestScript/d 51s (and 2 more)"
	if got := lines[len(lines)-1]; got != want {
		t.Errorf("heartbeat %q\nwant      %q", got, want)
	}
	if p.heartbeat(30 * time.Second) {
		t.Error("a second heartbeat right after the first")
	}

	var ends []string
	for _, s := range []string{"a", "b", "c", "d", "e", "f"} {
		ends = append(ends, ev("pass", "cli", "TestScript/"+s, "", 1))
	}
	p.consume(strings.NewReader(strings.Join(ends, "")+ev("pass", "cli/internal/lifecycle", "", "", 60)), "")
	now = now.Add(time.Minute)
	if p.heartbeat(30 * time.Second) {
		t.Errorf("a heartbeat with nothing running: %q", out.String())
	}
}
