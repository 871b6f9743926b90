package gitcmd

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// A call runs git in its directory with the fixed environment; stdout is
// bounded when asked, a non-zero exit is a result, not an error.
func TestRun(t *testing.T) {
	if _, err := exec.LookPath(Program); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	res, err := Run(context.Background(), Call{Dir: dir, Args: []string{"init", "-q"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("git init: %+v, %v", res, err)
	}
	res, err = Run(context.Background(), Call{Dir: dir, Args: []string{"-c", "alias.env=!env", "env"}, Env: []string{"GAUNTLET_X=1"}})
	for _, v := range []string{"GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GAUNTLET_X=1"} {
		if err != nil || !strings.Contains(string(res.Stdout), "\n"+v+"\n") {
			t.Errorf("git's environment lacks %s: %v", v, err)
		}
	}
	res, err = Run(context.Background(), Call{Dir: dir, Args: []string{"hash-object", "--stdin"}, Stdin: "hello\n", Limit: 8})
	if err != nil || !res.Truncated || string(res.Stdout) != "ce013625" {
		t.Errorf("bounded stdout: %q truncated %v, %v", res.Stdout, res.Truncated, err)
	}
	res, err = Run(context.Background(), Call{Dir: dir, Args: []string{"rev-parse", "--verify", "nosuch"}})
	if err != nil || res.ExitCode == 0 || !strings.Contains(res.Stderr, "fatal") {
		t.Errorf("a failing git: %+v, %v", res, err)
	}
}

// Without git on PATH the error says so (exec.ErrNotFound).
func TestRunMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Run(context.Background(), Call{Dir: t.TempDir(), Args: []string{"status"}})
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("error %v, want exec.ErrNotFound", err)
	}
}
