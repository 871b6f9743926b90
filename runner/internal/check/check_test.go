package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

func env(t *testing.T) gate.Env {
	t.Helper()
	root := t.TempDir()
	logs := filepath.Join(root, "logs")
	// A work tree (as every run's is): the record of written files lets a
	// run write its log of the same number again.
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "sub dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	return gate.Env{Root: root, LogDir: logs, RunNumber: 3, Diff: gate.DiffSpec{BaseBranch: "origin/main"}}
}

func job(cmd string, mod func(*config.Check)) gate.Job {
	c := &config.Check{Name: "lint", Command: cmd, RunLocally: true}
	if mod != nil {
		mod(c)
	}
	return gate.Job{ID: "check:src:lint", Kind: gate.KindCheck, Name: "lint", EntryPoint: "src", WorkingDir: "sub dir", Check: c}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		cmd     string
		mod     func(*config.Check)
		base    string
		status  gate.Status
		message string
		log     []string
		// exit is how the command ended: "exit N" or "timeout".
		exit string
	}{
		{name: "pass", cmd: "echo out; echo err >&2; pwd", status: gate.StatusPass, message: "Command exited with code 0", exit: "exit 0",
			log: []string{"Starting check: lint\n", "Executing command: echo out; echo err >&2; pwd\n", "Working directory: sub dir\n", "out\n", "err\n", "/sub dir\n", "Result: pass - Command exited with code 0\n"}},
		{name: "exit code", cmd: "exit 3", status: gate.StatusFail, message: "Exited with code 3", exit: "exit 3", log: []string{"Result: fail - Exited with code 3"}},
		{name: "fix instructions on failure", cmd: "false", mod: func(c *config.Check) { c.FixInstructions = "run make fmt\n" },
			status: gate.StatusFail, message: "Exited with code 1", exit: "exit 1", log: []string{"Result: fail - Exited with code 1\n\n--- Fix Instructions ---\nrun make fmt\n"}},
		{name: "base branch substituted", cmd: "echo base=${BASE_BRANCH}", status: gate.StatusPass, log: []string{"Executing command: echo base=origin/main\n", "base=origin/main\n"}},
		{name: "unsafe base branch only through the environment", cmd: "echo \"base=${BASE_BRANCH}\"", base: "a;b $(x)", status: gate.StatusPass,
			log: []string{"Executing command: echo \"base=${BASE_BRANCH}\"\n", "base=a;b $(x)\n"}},
		{name: "timeout", cmd: "sleep 30", mod: func(c *config.Check) { c.Timeout = 200 * time.Millisecond }, status: gate.StatusFail, message: "Timed out after 0.2s", exit: "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env(t)
			if tt.base != "" {
				e.Diff.BaseBranch = tt.base
			}
			res := Run(context.Background(), job(tt.cmd, tt.mod), e)
			if res.Status != tt.status || (tt.message != "" && res.Message != tt.message) {
				t.Fatalf("result = %s %q, want %s %q", res.Status, res.Message, tt.status, tt.message)
			}
			if want := filepath.Join(e.LogDir, "check_src_lint.3.log"); res.LogPath != want {
				t.Fatalf("LogPath = %s", res.LogPath)
			}
			data, err := os.ReadFile(res.LogPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.log {
				if !strings.Contains(string(data), s) {
					t.Errorf("log lacks %q:\n%s", s, data)
				}
			}
			if (res.Status == gate.StatusPass) != (res.ErrorCount == 0) {
				t.Errorf("ErrorCount = %d", res.ErrorCount)
			}
			if tt.exit != "" && ended(res) != tt.exit {
				t.Errorf("ended %q, want %q", ended(res), tt.exit)
			}
		})
	}
}

// ended says how a check's command ended: "exit N", "timeout" or "".
func ended(r gate.Result) string {
	switch {
	case r.TimedOut && r.Exited:
		return "timeout and exit"
	case r.TimedOut:
		return "timeout"
	case r.Exited:
		return fmt.Sprintf("exit %d", r.ExitCode)
	}
	return ""
}

func TestCancelIsError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res := Run(ctx, job("sleep 30", nil), env(t))
	if res.Status != gate.StatusError || res.Message != "Canceled" {
		t.Fatalf("result = %+v", res)
	}
}

// Output far larger than any buffer goes to the file, not to memory.
func TestLargeOutputStreamsToFile(t *testing.T) {
	e := env(t)
	const size = 64 << 20
	var before, after runtimeMem
	before.read()
	res := Run(context.Background(), job("head -c "+strconv.Itoa(size)+" /dev/zero", nil), e)
	after.read()
	if res.Status != gate.StatusPass {
		t.Fatalf("result = %+v", res)
	}
	st, err := os.Stat(res.LogPath)
	if err != nil || st.Size() < size {
		t.Fatalf("log size = %v, %v", st, err)
	}
	if grew := after.total - before.total; grew > size/4 {
		t.Fatalf("allocated %d bytes for %d bytes of output", grew, size)
	}
}

func TestPreflight(t *testing.T) {
	e := env(t)
	script := filepath.Join(e.Root, "sub dir", "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755)
	tests := []struct{ cmd, want string }{
		{"ls -la", ""},
		{"FOO=1 env BAR=2 ls", ""},
		{"cd x && make", ""},
		{"./run.sh --fast", ""},
		{"'./run.sh'", ""},
		{"(cd x; make)", ""},
		{"files=$(git diff --name-only -c x) || exit 2\ntest -n \"$files\"", ""}, // not "Missing command: -c"
		{"v=`git rev-parse HEAD` make", ""},
		{"definitely-not-a-program-xyz --help", "Missing command: definitely-not-a-program-xyz"},
		{"./missing.sh", "Missing command: ./missing.sh"},
		{"   ", "Unable to parse command"},
	}
	for _, tt := range tests {
		if got := Preflight(context.Background(), job(tt.cmd, nil), e); got != tt.want {
			t.Errorf("Preflight(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
	res := PreflightResult(job("nope-xyz", nil), e, "Missing command: nope-xyz")
	data, _ := os.ReadFile(res.LogPath)
	if res.Status != gate.StatusError || !strings.Contains(string(data), "Health check failed\nMissing command: nope-xyz\n") ||
		!strings.Contains(string(data), "Result: error - Missing command: nope-xyz") {
		t.Fatalf("result %+v log:\n%s", res, data)
	}
	// A program not installed is nothing the agent can fix; a script of the
	// project it deleted, or a command that does not parse, is.
	for cmd, infra := range map[string]bool{"nope-xyz --all": true, "./missing.sh": false, "bin/lint": false, "   ": false} {
		msg := Preflight(context.Background(), job(cmd, nil), e)
		if res := PreflightResult(job(cmd, nil), e, msg); res.Infrastructure != infra {
			t.Errorf("PreflightResult(%q, %q).Infrastructure = %v, want %v", cmd, msg, res.Infrastructure, infra)
		}
	}
}

func TestShellScript(t *testing.T) {
	tests := []struct {
		cmd, script string
		direct      bool
	}{
		{"sleep 0.5", "exec sleep 0.5", true},
		{"  go vet ./...  ", "exec go vet ./...", true},
		{`eslint "src/**" --max-warnings=0`, `exec eslint "src/**" --max-warnings=0`, true},
		{"env A=1 make lint", "exec env A=1 make lint", true},
		{"true", "true", false},                       // a builtin: no process at all
		{"echo 'a\\nb'", "echo 'a\\nb'", false},       // the builtin echo, not /bin/echo
		{"cd sub && make", "cd sub && make", false},   // compound
		{"make a; make b", "make a; make b", false},   // list
		{"go test | tee x", "go test | tee x", false}, // pipeline
		{"A=1 make", "A=1 make", false},               // assignment
		{"make >out", "make >out", false},             // redirection
		{"$(which go) vet", "$(which go) vet", false}, // substitution
		{"if true; then :; fi", "if true; then :; fi", false},
		{"make \\\n lint", "make \\\n lint", false},
		{"", "", false},
	}
	for _, tt := range tests {
		script, direct := ShellScript(tt.cmd)
		if script != tt.script || direct != tt.direct {
			t.Errorf("ShellScript(%q) = %q, %v; want %q, %v", tt.cmd, script, direct, tt.script, tt.direct)
		}
	}
}

func TestExecedCheckKilledBySignal(t *testing.T) {
	// An exec'ed check killed by signal N of its own (a crash) reports
	// what the shell would have: exit code 128+N. (A signal only another
	// process sends is no verdict: TestNoVerdictFromOutside.)
	e := env(t)
	r := Run(context.Background(), job(`sh -c 'kill -SEGV $$'`, nil), e)
	if r.Status != gate.StatusFail || r.Message != "Exited with code 139" {
		t.Fatalf("got %s %q", r.Status, r.Message)
	}
}

func TestPlainWords(t *testing.T) {
	tests := []struct {
		cmd   string
		words []string
	}{
		{"sleep 0.5", []string{"sleep", "0.5"}},
		{" go  vet\t./... ", []string{"go", "vet", "./..."}},
		{"npm run lint -- --max-warnings=0", []string{"npm", "run", "lint", "--", "--max-warnings=0"}},
		{"./scripts/check.sh a,b user@host:1 50% +x", []string{"./scripts/check.sh", "a,b", "user@host:1", "50%", "+x"}},
		{"true", nil},           // a builtin
		{"echo hi", nil},        // the builtin echo
		{"A=1 make", nil},       // an assignment
		{"make 'a b'", nil},     // quotes
		{"ls *.go", nil},        // a glob
		{"echo $HOME", nil},     // an expansion
		{"cat ~/x", nil},        // a tilde
		{"make # lint", nil},    // a comment
		{"make && lint", nil},   // a list
		{"make \\\n lint", nil}, // a continuation
		{"", nil},
	}
	for _, tt := range tests {
		words, ok := PlainWords(tt.cmd)
		if ok != (tt.words != nil) || strings.Join(words, "|") != strings.Join(tt.words, "|") {
			t.Errorf("PlainWords(%q) = %q, %v; want %q", tt.cmd, words, ok, tt.words)
		}
	}
}

func TestPlainCommandRunsWithoutShell(t *testing.T) {
	e := env(t)
	// The program gets the words the shell would have given it.
	if err := os.WriteFile(filepath.Join(e.Root, "sub dir", "who.sh"), []byte("#!/bin/sh\necho \"args=$*\"\nexit 4\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), job("./who.sh a=1 b", nil), e)
	if r.Status != gate.StatusFail || r.Message != "Exited with code 4" {
		t.Fatalf("got %s %q", r.Status, r.Message)
	}
	log, _ := os.ReadFile(r.LogPath)
	if !strings.Contains(string(log), "args=a=1 b\n") {
		t.Fatalf("log:\n%s", log)
	}
	// A script without #! cannot be exec'ed: the shell runs it, as before.
	if err := os.WriteFile(filepath.Join(e.Root, "sub dir", "plain.sh"), []byte("echo plain; exit 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), job("./plain.sh", nil), e)
	if r.Status != gate.StatusFail || r.Message != "Exited with code 5" {
		t.Fatalf("no #!: got %s %q", r.Status, r.Message)
	}
	// Killed by signal N (a crash), it reads as the shell would have
	// reported it.
	if err := os.WriteFile(filepath.Join(e.Root, "sub dir", "killed.sh"), []byte("#!/bin/sh\nkill -SEGV $$\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), job("./killed.sh", nil), e)
	if r.Status != gate.StatusFail || r.Message != "Exited with code 139" {
		t.Fatalf("signal: got %s %q", r.Status, r.Message)
	}
}
