//go:build installtest && unix

package npmpkg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Set by `go tool mage installtest`, which builds dist/ first.
const (
	tarballsEnv = "GAUNTLET_NPM_TARBALLS"
	versionEnv  = "GAUNTLET_DIST_VERSION"
)

// waitLimit bounds every wait of these tests (a hang is a failure, not a
// timing assertion).
const waitLimit = 60 * time.Second

// TestInstallNpm installs the npm tarballs `go tool mage dist` wrote (the
// main package and this machine's platform package) with `npm install
// --offline` into an empty directory, and runs agent-gauntlet through npx
// and through the installed command: --version, a stop hook that blocks
// on a failing gate (stdin and stdout pass through: one JSON line, exit 0),
// exit codes, and signals (forwarded to the binary; a binary killed by a
// signal kills the launcher with the same signal).
func TestInstallNpm(t *testing.T) {
	tarballs := strings.Fields(os.Getenv(tarballsEnv))
	version := os.Getenv(versionEnv)
	if len(tarballs) == 0 || version == "" {
		t.Fatalf("%s and %s are not set: run `go tool mage installtest`, which builds the tarballs first", tarballsEnv, versionEnv)
	}
	host := Platform{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	var install []string
	for _, tb := range tarballs {
		base := filepath.Base(tb)
		if base == Name+"-"+version+".tgz" || base == host.Package()+"-"+version+".tgz" {
			install = append(install, tb)
		}
	}
	if len(install) != 2 {
		t.Fatalf("want the tarballs of %s and %s at %s among %v", Name, host.Package(), version, tarballs)
	}

	work := t.TempDir()
	home := filepath.Join(work, "home")
	dir := filepath.Join(work, "project-deps")
	for _, d := range []string{home, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := hermeticEnv(home, filepath.Join(work, "npm-cache"))
	npm(t, dir, env, append([]string{"install", "--offline", "--no-audit", "--no-fund"}, install...)...)
	bin := filepath.Join(dir, "node_modules", ".bin", "agent-gauntlet")

	// --version through npx, by both command names
	for _, name := range Bins {
		r := runIn(t, dir, env, "", "npx", "--offline", name, "--version")
		if r.code != 0 || strings.TrimSpace(r.stdout) != "v"+version {
			t.Errorf("npx %s --version: %s", name, r)
		}
	}

	// a stop hook through npx: the failing gate blocks, in one JSON line
	project := gauntletProject(t, work, "project", "test -f fixed", env)
	input := `{"session_id":"s","hook_event_name":"Stop","stop_hook_active":false,"cwd":` + quote(project) + "}\n"
	r := runIn(t, dir, env, input, "npx", "--offline", "agent-gauntlet", "stop-hook", "--agent", "claude")
	var answer struct{ Decision, Status, Reason string }
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &answer) != nil {
		t.Fatalf("stop hook through npx: want one JSON line and exit 0: %s", r)
	}
	if answer.Decision != "block" || answer.Status != "failed" || !strings.Contains(answer.Reason, "gate") {
		t.Errorf("stop hook through npx: want a block for the failing gate: %s", r)
	}

	// exit codes pass through: 2 for a usage error, 1 for a failed run
	if r := runIn(t, project, env, "", bin, "frobnicate"); r.code != 2 || !strings.Contains(r.stderr, "frobnicate") {
		t.Errorf("agent-gauntlet frobnicate: want exit 2 naming the argument: %s", r)
	}
	if r := runIn(t, project, env, "", bin, "run"); r.code != 1 || !strings.Contains(r.stderr, "Status: Failed") {
		t.Errorf("agent-gauntlet run on a failing gate: want exit 1: %s", r)
	}

	t.Run("SIGTERM is forwarded", func(t *testing.T) {
		marks := t.TempDir()
		p := gauntletProject(t, work, "slow-term", "touch "+filepath.Join(marks, "started")+" && exec sleep 300", env)
		run := start(t, p, env, "", bin, "run")
		waitForFile(t, filepath.Join(marks, "started"), run)
		if err := run.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		r := run.wait(t)
		// 128+15: the binary's exit code for a run SIGTERM ended (not a
		// signal death of the launcher, which would show no "interrupted").
		if r.code != 128+int(syscall.SIGTERM) || !strings.Contains(strings.ToLower(r.stderr), "interrupted") {
			t.Errorf("want the binary's own answer to SIGTERM (exit 143, interrupted): %s", r)
		}
		if _, err := os.Stat(filepath.Join(p, "gauntlet_logs", ".gauntlet-run.lock")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the lock is left behind: the binary did not get SIGTERM (%v)", err)
		}
	})

	t.Run("a signal death passes through", func(t *testing.T) {
		marks := t.TempDir()
		p := gauntletProject(t, work, "slow-kill", "touch "+filepath.Join(marks, "started")+" && exec sleep 300", env)
		run := start(t, p, env, "", bin, "run")
		waitForFile(t, filepath.Join(marks, "started"), run)
		data, err := os.ReadFile(filepath.Join(p, "gauntlet_logs", ".gauntlet-run.lock"))
		if err != nil {
			t.Fatal(err)
		}
		var lock struct{ PID int }
		if err := json.Unmarshal(data, &lock); err != nil || lock.PID == run.cmd.Process.Pid {
			t.Fatalf("lock %s: %v (the launcher is %d)", data, err, run.cmd.Process.Pid)
		}
		if err := syscall.Kill(lock.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if r := run.wait(t); r.signal != syscall.SIGKILL {
			t.Errorf("the binary was killed by SIGKILL: want the launcher killed by it too: %s", r)
		}
	})
}

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
func gauntletProject(t *testing.T, work, name, command string, env []string) string {
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

func npm(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	if r := runIn(t, dir, env, "", "npm", args...); r.code != 0 {
		t.Fatalf("npm %v: %s", args, r)
	}
}

// runIn runs a command with stdin to its end (within waitLimit).
func runIn(t *testing.T, dir string, env []string, stdin, name string, args ...string) result {
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
func start(t *testing.T, dir string, env []string, stdin, name string, args ...string) *process {
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

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case err := <-p.done:
		p.done <- err
		return true
	default:
		return false
	}
}

// wait waits for the process to end (within waitLimit).
func (p *process) wait(t *testing.T) result {
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

// waitForFile waits for path to exist, failing when p ends first.
func waitForFile(t *testing.T, path string, p *process) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if p.exited() {
			t.Fatalf("%v ended before %s appeared: %s", p.cmd.Args, path, p.wait(t))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within %v", path, waitLimit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
