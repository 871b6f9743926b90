//go:build unix

package check

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/creack/pty"
)

// promptHelperEnv, when set to a command, makes the test binary the
// gauntlet of one check run of that command (see runPromptHelper).
const promptHelperEnv = "GAUNTLET_TEST_PROMPT_CHECK"

func TestMain(m *testing.M) {
	if cmd := os.Getenv(promptHelperEnv); cmd != "" {
		os.Exit(runPromptHelper(cmd))
	}
	os.Exit(m.Run())
}

// runPromptHelper runs the check cmd as a run of the gauntlet does, with a
// timeout far beyond the test's patience, and prints its status, message
// and log.
func runPromptHelper(cmd string) int {
	root, err := os.MkdirTemp("", "prompt-check-")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer os.RemoveAll(root)
	logs := filepath.Join(root, "logs")
	if err := os.MkdirAll(filepath.Join(root, "sub dir"), 0o755); err != nil {
		fmt.Println(err)
		return 1
	}
	if err := os.MkdirAll(logs, 0o755); err != nil {
		fmt.Println(err)
		return 1
	}
	e := gate.Env{Root: root, LogDir: logs, RunNumber: 1, Diff: gate.DiffSpec{BaseBranch: "main"}}
	res := Run(context.Background(), job(cmd, func(c *config.Check) { c.Timeout = 10 * time.Minute }), e)
	log, _ := os.ReadFile(LogPath(e, job(cmd, nil)))
	fmt.Printf("STATUS %s: %s\n%s\n", res.Status, res.Message, log)
	return 0
}

// Nothing a check starts can wait for a human: run by a gauntlet that has
// a terminal (a manual run, or an agent CLI's pseudo-terminal), a program
// that asks on /dev/tty, on its standard input, through an askpass program
// or in an editor fails at once, and its log says why: no verdict (an
// error the gauntlet's unattended setting caused, which the agent cannot
// fix), except end-of-file on standard input, which a check gets in CI
// too (its own failure). Each check runs in a
// real pseudo-terminal session, as the gauntlet would be; a check that
// waits fails the test at the deadline instead of hanging it.
func TestChecksNeverWaitForAHuman(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	// waiting stands for a program that waits for a human without any
	// terminal: a graphical askpass dialog, an editor window.
	waiting := filepath.Join(bin, "waiting")
	if err := os.WriteFile(waiting, []byte("#!/bin/sh\nsleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	credential := `printf 'protocol=https\nhost=example.invalid\n\n' | git credential fill`
	tests := []struct {
		name string
		cmd  string
		// env is added to the gauntlet's environment.
		env []string
		// log is what the check's log must say, status its result's status.
		log, status string
	}{
		{name: "a read from /dev/tty", cmd: `printf 'Password: ' >/dev/tty; read -r x </dev/tty; test -n "$x"`, log: "/dev/tty", status: "error: Wanted a person"},
		{name: "a read from standard input", cmd: `read -r x || { echo "no input"; exit 1; }`, log: "no input", status: "fail"},
		{name: "git asking for a credential on the terminal", cmd: credential, log: "terminal prompts disabled", status: "error: Wanted a person"},
		{name: "git asking through an askpass program", cmd: credential,
			env: []string{"SSH_ASKPASS=" + waiting, "GIT_ASKPASS=" + waiting, "DISPLAY=:0"}, log: "terminal prompts disabled", status: "error: Wanted a person"},
		{name: "git opening an editor", cmd: `git init -q r && cd r && git -c user.name=a -c user.email=a@b commit -q --allow-empty`,
			env: []string{"EDITOR=" + waiting, "VISUAL=" + waiting, "GIT_EDITOR=" + waiting}, log: "problem with the editor", status: "error: Wanted a person"},
		{name: "a pager", cmd: `echo paged | ${PAGER:-less}; echo "pager status $?"`, env: []string{"PAGER=" + waiting}, log: "pager status 0", status: "pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), promptHelperEnv+"="+tt.cmd, "HOME="+home, "XDG_CONFIG_HOME="+home,
				"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, "gitconfig"))
			cmd.Env = append(cmd.Env, tt.env...)
			out := runInTerminal(t, cmd, 20*time.Second)
			if !strings.Contains(out, "STATUS ") {
				t.Fatalf("no result; the session printed:\n%s", out)
			}
			if !strings.Contains(out, "STATUS "+tt.status) {
				t.Errorf("the result is not %q:\n%s", tt.status, out)
			}
			if !strings.Contains(out, tt.log) {
				t.Errorf("the log does not say %q:\n%s", tt.log, out)
			}
		})
	}
}

// runInTerminal runs cmd as the leader of a session whose controlling
// terminal is a new pseudo-terminal, and returns what it printed there;
// past deadline it kills cmd and fails the test.
func runInTerminal(t *testing.T, cmd *exec.Cmd, deadline time.Duration) string {
	t.Helper()
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer tty.Close()
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(&out, tty) // ends with EIO when the session is gone
		close(copied)
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(deadline):
		_ = cmd.Process.Kill()
		<-done
		tty.Close()
		<-copied
		t.Fatalf("still waiting after %s; the session printed:\n%s", deadline, out.String())
	}
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	return out.String()
}
