//go:build unix

package npmpkg

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitLimit bounds every wait of the npm tests and benchmarks (a hang is a
// failure, not a timing assertion).
const waitLimit = 60 * time.Second

// hermeticEnv is the environment of npm, npx and agent-gauntlet: its own
// HOME (no user .npmrc), npm cache, git identity; no CI variables.
func hermeticEnv(home, cache string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToLower(k), "npm_config_") || strings.HasPrefix(k, "GAUNTLET_") || strings.HasPrefix(k, "GIT_") {
			continue
		}
		switch k {
		case "HOME", "CI", "GITHUB_ACTIONS", "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "npm_config_cache="+cache, "npm_config_update_notifier=false",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=Npm Test", "GIT_AUTHOR_EMAIL=npm@example.com",
		"GIT_COMMITTER_NAME=Npm Test", "GIT_COMMITTER_EMAIL=npm@example.com")
}

// gauntletProject creates a git repository under work/name whose one gate
// runs command, with an uncommitted change for it to check.
func gauntletProject(t testing.TB, work, name, command string, env []string) string {
	t.Helper()
	dir := filepath.Join(work, name)
	files := map[string]string{
		".gitignore":                "gauntlet_logs/\n",
		".gauntlet/config.yml":      "base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: \".\"\n    checks: [gate]\n",
		".gauntlet/checks/gate.yml": "command: " + quote(command) + "\n",
		"app.txt":                   "original\n",
	}
	for f, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "initial"}} {
		if r := runIn(t, dir, env, "", "git", args...); r.code != 0 {
			t.Fatalf("git %v: %s", args, r)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "app.txt"), []byte("changed by the agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// result is how a process ended.
type result struct {
	code           int
	signal         syscall.Signal
	stdout, stderr string
}

func (r result) String() string {
	return "exit " + strings.TrimSpace(strings.Join([]string{itoa(r.code), r.signal.String()}, " ")) +
		"\nstdout: " + r.stdout + "\nstderr: " + r.stderr
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func npm(t testing.TB, dir string, env []string, args ...string) {
	t.Helper()
	if r := runIn(t, dir, env, "", "npm", args...); r.code != 0 {
		t.Fatalf("npm %v: %s", args, r)
	}
}

// runIn runs a command with stdin to its end (within waitLimit).
func runIn(t testing.TB, dir string, env []string, stdin, name string, args ...string) result {
	t.Helper()
	return start(t, dir, env, stdin, name, args...).wait(t)
}

// process is a started command.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

// start starts a command with stdin in its own process group, which is
// killed when the command outlives 2*waitLimit or the test.
func start(t testing.TB, dir string, env []string, stdin, name string, args ...string) *process {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	p := &process{cmd: exec.CommandContext(ctx, name, args...), done: make(chan error, 1)}
	p.cmd.Dir = dir
	p.cmd.Env = env
	p.cmd.Stdin = strings.NewReader(stdin)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Cancel = p.killGroup
	p.cmd.WaitDelay = 5 * time.Second
	if err := p.cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.killGroup()
		cancel()
	})
	return p
}

// killGroup kills the process group of p.
func (p *process) killGroup() error {
	return syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

// wait waits for the process to end (within waitLimit).
func (p *process) wait(t testing.TB) result {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(waitLimit):
		_ = p.killGroup()
		<-p.done
		t.Fatalf("%v did not end within %v\nstdout: %s\nstderr: %s", p.cmd.Args, waitLimit, p.stdout.String(), p.stderr.String())
	}
	r := result{code: p.cmd.ProcessState.ExitCode(), stdout: p.stdout.String(), stderr: p.stderr.String()}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.signal = ws.Signal()
	}
	return r
}
