package findings

import (
	"strings"
	"testing"
)

func failed(suite, test string) Finding {
	return Finding{Kind: KindTest, Suite: suite, Test: test, Status: StatusFailed, Severity: SeverityError}
}

// TestPlanRerun: the command that runs what a stop kept from running, or
// why there is none.
func TestPlanRerun(t *testing.T) {
	goStop := Result{Findings: []Finding{failed("ex/a", "TestOld"), failed("ex/b", "TestOther")}, Stops: []Stop{{Unit: "ex/a", Tool: FormatGoTest, Kind: StopCrash}}}
	goStopped := []Stop{{Unit: "ex/a", Tool: FormatGoTest, Kind: StopCrash}}
	tests := []struct {
		name, command, dir string
		base, work         Result
		want, err          string
	}{
		{name: "go: the stopped package, its failures skipped, flags kept", command: "go test -count=1 -run Test ./...",
			work: goStop, want: "go test -count=1 -run Test -skip '^TestOld$' ex/a"},
		{name: "go: failures of both sides", command: "go test -json ./...",
			work: goStop, base: Result{Findings: []Finding{failed("ex/a", "TestBase")}, Stops: goStopped},
			want: "go test -json -skip '^(TestBase|TestOld)$' ex/a"},
		{name: "go: one subtest", command: "go test ./...",
			work: Result{Findings: []Finding{failed("ex/a", "TestA"), failed("ex/a", "TestA/sub case")}, Stops: goStopped},
			want: "go test -skip '^TestA$/^sub case$' ex/a"},
		{name: "go: subtests of two parents", command: "go test ./...",
			work: Result{Findings: []Finding{failed("ex/a", "TestA/x"), failed("ex/a", "TestB/y")}, Stops: goStopped},
			err:  "cannot be skipped together"},
		{name: "go: -args", command: "go test ./... -args -x", work: goStop, err: "-args"},
		{name: "go: its own -skip", command: "go test -skip X ./...", work: goStop, err: "already has -skip"},
		{name: "pytest in a subdirectory", command: "pytest -x", dir: "py",
			work: Result{Findings: []Finding{failed("py/tests/t.py", "test_a")}, Stops: []Stop{{Unit: "pytest", Tool: FormatPytest, Kind: StopFailFast}}},
			want: "pytest -x --deselect tests/t.py::test_a"},
		{name: "cargo before --", command: "cargo test -q -- --nocapture", work: Result{Stops: []Stop{{Unit: "cargo", Tool: FormatCargoTest, Kind: StopFailFast}}},
			want: "cargo test -q --no-fail-fast -- --nocapture"},
		{name: "cargo that has it", command: "cargo test --no-fail-fast", work: Result{Stops: []Stop{{Unit: "cargo", Tool: FormatCargoTest, Kind: StopFailFast}}}, err: "although it has"},
		{name: "make", command: "make test", work: Result{Stops: []Stop{{Unit: "make", Tool: "make", Kind: StopFailFast}}}, want: "make test -k"},
		{name: "mvnw", command: "./mvnw -B verify", work: Result{Stops: []Stop{{Unit: "maven", Tool: "maven", Kind: StopFailFast}}}, want: "./mvnw -B verify -fae"},
		{name: "a pipeline", command: "go test ./... | tee out", work: goStop, err: "not one plain command"},
		{name: "npm", command: "npm test", work: goStop, err: "cannot be told to skip what stopped ex/a"},
		{name: "go test inside make: make cannot skip a Go test", command: "make test",
			work: Result{Stops: []Stop{{Unit: "make", Tool: "make", Kind: StopFailFast}, goStopped[0]}}, err: "cannot be told to skip"},
		{name: "go -failfast: dropped, the failed test skipped", command: "go test -failfast ./...",
			work: Result{Findings: []Finding{failed("ex/a", "TestA")}, Stops: []Stop{{Unit: "ex/a", Tool: FormatGoTest, Kind: StopFailFast}}},
			want: "go test -skip '^TestA$' ex/a"},
		{name: "go: its vet step failed: -vet=off", command: "go test ./...",
			work: Result{Stops: []Stop{{Unit: "ex/a", Tool: FormatGoTest, Kind: StopVet}}}, want: "go test -vet=off ex/a"},
		{name: "go: did not build", command: "go test ./...",
			work: Result{Stops: []Stop{{Unit: "ex/a", Tool: FormatGoTest, Kind: StopUnbuilt, Reason: "it did not build"}}}, err: "nothing runs past ex/a until it builds"},
		{name: "jest --bail: dropped", command: "npx jest --bail --runInBand",
			work: Result{Stops: []Stop{{Unit: "jest", Tool: FormatJest, Kind: StopFailFast}}}, want: "npx jest --runInBand"},
		{name: "jest: a process.exit", command: "npx jest",
			work: Result{Stops: []Stop{{Unit: "jest", Tool: FormatJest, Kind: StopCrash, Reason: "process.exit"}}}, err: "cannot be told to skip what stopped jest"},
		{name: "cargo: a test binary exited", command: "cargo test",
			work: Result{Stops: []Stop{{Unit: "cargo", Tool: FormatCargoTest, Kind: StopCrash, Reason: "exit"}}}, err: "cannot be told to skip"},
		{name: "a chain: the parts that never ran", command: "go vet ./... && go test ./...",
			work: Result{Stops: []Stop{{Unit: "`go test ./...`", Tool: ToolChain, Kind: StopChain, Rest: "go test ./..."}}},
			want: "go test ./..."},
		{name: "a chain and a stop inside it", command: "go vet ./... && go test ./...",
			work: Result{Stops: []Stop{{Unit: "`go test ./...`", Tool: ToolChain, Kind: StopChain, Rest: "go test ./..."}, goStopped[0]}},
			err:  "not one plain command"},
		{name: "a signal", command: "./run-tests", work: Result{Stops: []Stop{{Unit: "./run-tests", Tool: ToolSignal, Kind: StopCrash}}},
			err: "cannot be told to skip"},
		{name: "nothing stopped", command: "go test ./...", err: "nothing stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir
			if dir == "" {
				dir = "."
			}
			p, err := PlanRerun(tt.command, dir, tt.base, tt.work)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || p.Command != tt.want {
				t.Fatalf("PlanRerun = %q, %v; want %q", p.Command, err, tt.want)
			}
		})
	}
}

// TestMerge: the rerun's results replace the first run's in its scope;
// skipped tests and other suites keep theirs.
func TestMerge(t *testing.T) {
	first := Result{Findings: []Finding{failed("a", "TestOld"), failed("b", "TestB")}, Stops: []Stop{{Unit: "a"}, {Unit: "c"}}}
	again := Result{Findings: []Finding{failed("a", "TestMul"), {Kind: KindTest, Suite: "a", Test: "TestAdd", Status: StatusPassed, Severity: SeverityNote}}}
	p := Rerun{Suites: []string{"a"}, Skipped: []testKey{{"a", "TestOld"}}}
	m := p.Merge(first, again)
	var got []string
	for _, f := range m.Findings {
		got = append(got, f.Suite+"."+f.Test)
	}
	if strings.Join(got, " ") != "a.TestOld b.TestB a.TestMul a.TestAdd" {
		t.Errorf("merged %v", got)
	}
	if len(m.Stops) != 1 || m.Stops[0].Unit != "c" {
		t.Errorf("stops %+v", m.Stops)
	}
}

// TestMergeAppend: the rerun of a chain's later parts adds its findings
// to every one of the first run's, and its stops replace the chain's.
func TestMergeAppend(t *testing.T) {
	first := Result{Findings: []Finding{{Kind: KindDiagnostic, File: "a.go", Line: 5, Severity: SeverityError, Message: "unreachable code"}},
		Stops: []Stop{{Unit: "`go test ./...`", Tool: ToolChain, Kind: StopChain, Rest: "go test ./..."}}}
	again := Result{Findings: []Finding{failed("ex/a", "TestAdd")}}
	m := Rerun{Command: "go test ./...", Append: true}.Merge(first, again)
	if len(m.Findings) != 2 || m.Findings[1].Test != "TestAdd" || len(m.Stops) != 0 {
		t.Errorf("merged %+v", m)
	}
}
