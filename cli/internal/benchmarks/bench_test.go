package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds agent-gauntlet once per test process.
func binary(b *testing.B) string {
	b.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gauntlet-bench-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "agent-gauntlet")
		cmd := exec.Command("go", "build", "-o", binPath, "github.com/agent-gauntlet/agent-gauntlet/cli/cmd/agent-gauntlet")
		cmd.Stderr = os.Stderr
		buildErr = cmd.Run()
	})
	if buildErr != nil {
		b.Fatalf("build agent-gauntlet: %v", buildErr)
	}
	return binPath
}

// hermeticEnv is the environment of every measured process.
func hermeticEnv(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com",
	}
}

// sh runs a setup script in dir and fails the benchmark on error.
func sh(b *testing.B, dir string, env []string, script string) {
	b.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("setup %q: %v\n%s", script, err, out)
	}
}

// project is a throwaway git repository with a gauntlet configuration.
type project struct {
	dir string
	env []string
}

// newProject creates a repository with config.yml (extra appended) and one
// committed file.
func newProject(b *testing.B, withConfig bool, extraConfig string) project {
	b.Helper()
	root := b.TempDir()
	home := filepath.Join(root, "home")
	dir := filepath.Join(root, "repo")
	for _, d := range []string{home, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	env := hermeticEnv(home)
	sh(b, dir, env, "git init -q -b main && echo hi > a.txt && git add -A && git commit -q -m init")
	if withConfig {
		cfg := "base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: \".\"\n    checks: [ok]\n" + extraConfig
		sh(b, dir, env, `mkdir -p .gauntlet/checks && echo 'command: "true"' > .gauntlet/checks/ok.yml`)
		if err := os.WriteFile(filepath.Join(dir, ".gauntlet", "config.yml"), []byte(cfg), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return project{dir: dir, env: env}
}

// measure runs the command b.N times and reports the peak RSS of the
// largest run as maxrss-KiB.
func measure(b *testing.B, dir string, env []string, stdin string, name string, args ...string) {
	b.Helper()
	var maxRSS int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = env
		cmd.Stdin = strings.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Stderr = &out
		if err := cmd.Run(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				b.Fatalf("%s %v: %v\n%s", name, args, err, out.String())
			}
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > maxRSS {
			maxRSS = ru.Maxrss
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(maxRSS), "maxrss-KiB")
}

// hookInput is a Claude Code Stop input for dir.
func hookInput(dir string, active bool) string {
	return fmt.Sprintf(`{"session_id":"bench","hook_event_name":"Stop","stop_hook_active":%v,"cwd":%q}`, active, dir)
}

// BenchmarkBaselineGitRevParse is the yardstick of the stop-hook fast paths.
func BenchmarkBaselineGitRevParse(b *testing.B) {
	p := newProject(b, true, "")
	measure(b, p.dir, p.env, "", "git", "rev-parse", "--show-toplevel")
}

// BenchmarkStopHookNoConfig: a repository without .gauntlet/.
func BenchmarkStopHookNoConfig(b *testing.B) {
	bin := binary(b)
	p := newProject(b, false, "")
	measure(b, p.dir, p.env, hookInput(p.dir, false), bin, "stop-hook")
}

// BenchmarkStopHookActive: the loop guard (stop_hook_active true).
func BenchmarkStopHookActive(b *testing.B) {
	bin := binary(b)
	p := newProject(b, true, "")
	measure(b, p.dir, p.env, hookInput(p.dir, true), bin, "stop-hook")
}

// BenchmarkStopHookLockPresent: another run holds the lock.
func BenchmarkStopHookLockPresent(b *testing.B) {
	bin := binary(b)
	p := newProject(b, true, "")
	sh(b, p.dir, p.env, `mkdir -p gauntlet_logs && printf '{"pid":1,"host":"elsewhere","started_at":"2026-01-01T00:00:00Z"}' > gauntlet_logs/.gauntlet-run.lock`)
	measure(b, p.dir, p.env, hookInput(p.dir, false), bin, "stop-hook")
}

// BenchmarkStopHookIntervalNotElapsed: the last run completed a moment ago.
func BenchmarkStopHookIntervalNotElapsed(b *testing.B) {
	bin := binary(b)
	p := newProject(b, true, "")
	now := time.Now().UTC().Format(time.RFC3339)
	sh(b, p.dir, p.env, `mkdir -p gauntlet_logs && printf '{"last_run_completed_at":"`+now+`","branch":"main","commit":"0000000000000000000000000000000000000000"}' > gauntlet_logs/.execution_state`)
	measure(b, p.dir, p.env, hookInput(p.dir, false), bin, "stop-hook")
}

// BenchmarkBaselineShTrue is the cost of the one `true` check itself.
func BenchmarkBaselineShTrue(b *testing.B) {
	p := newProject(b, false, "")
	measure(b, p.dir, p.env, "", "sh", "-c", "true")
}

// BenchmarkRunOneTrueCheck: `agent-gauntlet run` with one `true` check on a
// one-file change; its overhead is this minus BaselineShTrue.
func BenchmarkRunOneTrueCheck(b *testing.B) {
	bin := binary(b)
	p := newProject(b, true, "")
	sh(b, p.dir, p.env, "echo change >> a.txt")
	// A passed run archives its logs, so every iteration is a first run.
	measure(b, p.dir, p.env, "", bin, "run")
}

// BenchmarkRunEightParallelSleeps: 8 parallel `sleep 0.5` checks; the
// target is a wall time within 0.55 s.
func BenchmarkRunEightParallelSleeps(b *testing.B) {
	bin := binary(b)
	var cfg strings.Builder
	cfg.WriteString("base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: \".\"\n    checks: [")
	p := newProject(b, false, "")
	for i := 0; i < 8; i++ {
		if i > 0 {
			cfg.WriteString(", ")
		}
		fmt.Fprintf(&cfg, "s%d", i)
	}
	cfg.WriteString("]\n")
	sh(b, p.dir, p.env, "mkdir -p .gauntlet/checks && for i in 0 1 2 3 4 5 6 7; do printf 'command: sleep 0.5\\nparallel: true\\n' > .gauntlet/checks/s$i.yml; done && echo change >> a.txt")
	if err := os.WriteFile(filepath.Join(p.dir, ".gauntlet", "config.yml"), []byte(cfg.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	measure(b, p.dir, p.env, "", bin, "run")
}

// bigRepo is a repository with 10,000 changed files (half committed on a
// branch, a quarter modified, a quarter untracked) and 200 entry points.
func bigRepo(b *testing.B) project {
	p := newProject(b, false, "")
	var cfg strings.Builder
	cfg.WriteString("base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n")
	for i := 0; i < 200; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&cfg, "  - path: \"pkg%d/*\"\n    checks: [ok]\n", i)
		case 1:
			fmt.Fprintf(&cfg, "  - path: \"pkg%d/**/*.go\"\n    checks: [ok]\n", i)
		default:
			fmt.Fprintf(&cfg, "  - path: \"pkg%d\"\n    checks: [ok]\n    exclude: [\"pkg%d/vendor\"]\n", i, i)
		}
	}
	sh(b, p.dir, p.env, `
for d in $(seq 0 199); do mkdir -p pkg$d/sub; done
i=0; while [ $i -lt 5000 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
git add -A && git commit -q -m base-files && git checkout -q -b feature
i=5000; while [ $i -lt 7500 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
git add -A && git commit -q -m committed-changes
i=0; while [ $i -lt 2500 ]; do echo changed >> pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
i=7500; while [ $i -lt 10000 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
mkdir -p .gauntlet/checks && echo 'command: "true"' > .gauntlet/checks/ok.yml`)
	if err := os.WriteFile(filepath.Join(p.dir, ".gauntlet", "config.yml"), []byte(cfg.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkBaselineGitChanges is raw git: the committed, uncommitted and
// untracked name lists that change detection needs.
func BenchmarkBaselineGitChanges(b *testing.B) {
	p := bigRepo(b)
	measure(b, p.dir, p.env, "", "sh", "-c", "git diff --name-only main...HEAD >/dev/null && git diff --name-only HEAD >/dev/null && git ls-files --others --exclude-standard >/dev/null")
}

// BenchmarkDetectTenThousandFiles: `agent-gauntlet detect` on bigRepo.
func BenchmarkDetectTenThousandFiles(b *testing.B) {
	bin := binary(b)
	p := bigRepo(b)
	measure(b, p.dir, p.env, "", bin, "detect")
}
