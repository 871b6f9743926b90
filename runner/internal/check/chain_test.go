package check

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// ParseChain reads the parts of a top-level && list, and nothing else.
func TestParseChain(t *testing.T) {
	for cmd, want := range map[string][]string{
		"go vet ./... && go test ./...":       {"go vet ./...", "go test ./..."},
		"a && b && c":                         {"a", "b", "c"},
		`echo "x && y" && z`:                  {`echo "x && y"`, "z"},
		"cd web && npx jest ${CHANGED_FILES}": {"cd web", "npx jest ${CHANGED_FILES}"},
		"a && (b && c)":                       {"a", "(b && c)"},
		"a && { b || c; }":                    {"a", "{ b || c; }"},
		"a || b":                              nil,
		"a && b || c":                         nil,
		"a; b":                                nil,
		"a | b":                               nil,
		"go test ./...":                       nil,
		"a && b &":                            nil,
		"a &&":                                nil,
		"a && b > out.txt":                    {"a", "b > out.txt"},
		"if a; then b; fi && c":               {"if a; then b; fi", "c"},
	} {
		got, ok := ParseChain(cmd)
		if ok != (want != nil) || ok && !reflect.DeepEqual([]string(got), want) {
			t.Errorf("ParseChain(%q) = %q, %v; want %q", cmd, got, ok, want)
		}
	}
}

// A chain runs, prints and exits as written; when a part fails, the
// outcome names it and the parts after it, which never ran. The last
// part failing leaves nothing unreached.
func TestExecChain(t *testing.T) {
	for _, tc := range []struct {
		cmd, out, failed string
		unreached        []string
		code             int
	}{
		{"echo one && false && echo two && echo three", "one\n", "false", []string{"echo two", "echo three"}, 1},
		{"echo one && echo two && exit 3", "one\ntwo\n", "", nil, 3},
		{"echo one && echo two", "one\ntwo\n", "", nil, 0},
		{"sh -c 'exit 4' && echo never", "", "sh -c 'exit 4'", []string{"echo never"}, 4},
	} {
		log, err := os.OpenFile(filepath.Join(t.TempDir(), "log"), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		out := Exec{Command: tc.cmd, Dir: t.TempDir(), Env: os.Environ(), Log: log}.Run(context.Background())
		b, _ := os.ReadFile(log.Name())
		log.Close()
		if string(b) != tc.out || out.ExitCode != tc.code || out.FailedPart != tc.failed || !reflect.DeepEqual(out.Unreached, tc.unreached) {
			t.Errorf("%q: printed %q, exit %d, failed %q, unreached %q", tc.cmd, b, out.ExitCode, out.FailedPart, out.Unreached)
		}
	}
}

// What a run says of itself becomes a stop: the parts of a chain that
// never ran (with the command that runs them), a crash signal.
func TestAddStops(t *testing.T) {
	r := findings.Result{}
	addStops(&r, "a && b && c", Outcome{Status: gate.StatusFail, ExitCode: 1, FailedPart: "a", Unreached: []string{"b", "c"}})
	if len(r.Stops) != 1 || r.Stops[0].Rest != "b && c" || r.Stops[0].Kind != findings.StopChain || !strings.Contains(r.Stops[0].Reason, "`a` failed") {
		t.Errorf("chain: %+v", r.Stops)
	}
	r = findings.Result{}
	addStops(&r, "./run", Outcome{Status: gate.StatusFail, ExitCode: 139})
	if len(r.Stops) != 1 || r.Stops[0].Tool != findings.ToolSignal || !strings.Contains(r.Stops[0].Reason, "SIGSEGV") {
		t.Errorf("signal: %+v", r.Stops)
	}
	r = findings.Result{}
	addStops(&r, "./run", Outcome{Status: gate.StatusFail, ExitCode: 1})
	if len(r.Stops) != 0 {
		t.Errorf("exit 1: %+v", r.Stops)
	}
}
