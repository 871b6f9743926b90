// Package benchmarks measures whole agent-gauntlet processes against the
// baselines of docs/performance.md. Every benchmark builds the binary once, prepares a
// throwaway repository, checks once (untimed) that the command takes the
// path it is meant to measure, and then times b.N runs. A benchmark with a
// baseline runs the baseline next to each measured run (alternating which
// goes first, baseline untimed), so that both see the same machine load;
// the figures compare medians, which a few runs slowed by a busy machine do
// not move. Nothing here asserts on wall time.
//
// Metrics besides ns/op (the mean of the measured runs):
//   - med-ns: the median of the measured runs;
//   - base-med-ns: the median of the baseline runs;
//   - go-med-ns: the median of runs of an empty Go program, measured next
//     to the stop hook's fast paths (the floor of any Go binary's start);
//   - maxrss-KiB: the largest peak RSS of the measured runs;
//   - git-calls: the git processes of one run (counted, untimed, through a
//     PATH shim).
package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/testbin"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

var (
	emptyOnce sync.Once
	emptyPath string
	emptyErr  error
)

// TestMain removes the programs the benchmarks built.
func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Remove()
	if emptyPath != "" {
		_ = os.RemoveAll(filepath.Dir(emptyPath))
	}
	os.Exit(code)
}

// binary builds agent-gauntlet once per test process.
func binary(b *testing.B) string {
	b.Helper()
	bin, err := testbin.Path()
	if err != nil {
		b.Fatalf("build agent-gauntlet: %v", err)
	}
	return bin
}

// emptyGoProgram builds, once per test process, a Go program whose main
// does nothing, as agent-gauntlet is built (static, no cgo, same
// toolchain): what starting any Go binary costs.
func emptyGoProgram(b *testing.B) string {
	b.Helper()
	emptyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gauntlet-bench-empty-")
		if err != nil {
			emptyErr = err
			return
		}
		for name, content := range map[string]string{
			"go.mod":  "module empty\n",
			"main.go": "package main\n\nfunc main() {}\n",
		} {
			if emptyErr = os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); emptyErr != nil {
				return
			}
		}
		emptyPath = filepath.Join(dir, "empty")
		cmd := exec.Command("go", "build", "-o", emptyPath, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=mod")
		cmd.Stderr = os.Stderr
		emptyErr = cmd.Run()
	})
	if emptyErr != nil {
		b.Fatalf("build the empty Go program: %v", emptyErr)
	}
	return emptyPath
}

// hermeticEnv is the environment of every measured process: testenv's,
// with home as $HOME.
func hermeticEnv(b *testing.B, home string) []string {
	b.Helper()
	env, err := testenv.New(home)
	if err != nil {
		b.Fatal(err)
	}
	return env.Environ(os.Getenv("PATH"))
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

// newProject creates a repository with one committed file and, withConfig,
// an untracked .gauntlet/ whose config.yml has one `true` check on "."
// (extraConfig appended).
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
	env := hermeticEnv(b, home)
	// No automatic gc: it would run detached, next to the measured
	// processes, and still be writing .git when the benchmark cleans up.
	sh(b, dir, env, "git init -q -b main && git config gc.auto 0 && echo hi > a.txt && git add -A && git commit -q -m init")
	if withConfig {
		cfg := "base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: \".\"\n    checks: [ok]\n" + extraConfig
		sh(b, dir, env, `mkdir -p .gauntlet/checks && echo 'command: "true"' > .gauntlet/checks/ok.yml`)
		writeFile(b, filepath.Join(dir, ".gauntlet", "config.yml"), cfg)
	}
	return project{dir: dir, env: env}
}

func writeFile(b *testing.B, path, content string) {
	b.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}

// proc is one process to run: argv in dir with env and stdin.
type proc struct {
	dir   string
	env   []string
	stdin string
	argv  []string
}

// cmd returns a proc running argv in p.
func (p project) cmd(stdin string, argv ...string) proc {
	return proc{dir: p.dir, env: p.env, stdin: stdin, argv: argv}
}

// run runs the processes one after the other and returns their total wall
// time, the largest peak RSS and the combined output.
func run(b *testing.B, procs ...proc) (time.Duration, int64, string) {
	b.Helper()
	var total time.Duration
	var maxRSS int64
	var out bytes.Buffer
	for _, p := range procs {
		cmd := exec.Command(p.argv[0], p.argv[1:]...)
		cmd.Dir = p.dir
		cmd.Env = p.env
		cmd.Stdin = strings.NewReader(p.stdin)
		cmd.Stdout = &out
		cmd.Stderr = &out
		start := time.Now()
		err := cmd.Run()
		total += time.Since(start)
		if err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				b.Fatalf("%v: %v\n%s", p.argv, err, out.String())
			}
		}
		maxRSS = max(maxRSS, peakRSS(cmd.ProcessState))
	}
	return total, maxRSS, out.String()
}

// gitCalls runs subject twice with a git shim first in PATH and returns the
// number of git processes the second run started; it fails unless that
// run's output contains expect (the count is of the path measured).
func gitCalls(b *testing.B, subject []proc, expect string) int {
	b.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		b.Fatal(err)
	}
	// The shim's directory holds the shim alone: the environment's identity
	// covers each PATH directory (runner/internal/cache/environ.go), so a
	// log written there would make every run an environment of its own,
	// whose gates run again.
	shimDir, logDir := b.TempDir(), b.TempDir()
	log := filepath.Join(logDir, "calls")
	shim := fmt.Sprintf("#!/bin/sh\necho x >> '%s'\nexec '%s' \"$@\"\n", log, real)
	if err := os.WriteFile(filepath.Join(shimDir, "git"), []byte(shim), 0o755); err != nil {
		b.Fatal(err)
	}
	shimmed := make([]proc, len(subject))
	for i, p := range subject {
		p.env = slices.Clone(p.env)
		for j, kv := range p.env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				p.env[j] = "PATH=" + shimDir + string(os.PathListSeparator) + v
			}
		}
		shimmed[i] = p
	}
	// The shim's PATH is an environment of its own, whose verdicts the
	// result cache keeps apart: the calls counted are the second run's.
	run(b, shimmed...)
	_ = os.Remove(log)
	_, _, out := run(b, shimmed...)
	if !strings.Contains(out, expect) {
		b.Fatalf("%v: the run whose git calls are counted took another path: output lacks %q:\n%s", subject[0].argv, expect, out)
	}
	data, _ := os.ReadFile(log)
	return bytes.Count(data, []byte("\n"))
}

// baseline is what a subject is measured next to: processes, and the
// metric that reports the median of their runs.
type baseline struct {
	unit  string
	procs []proc
}

// measure times b.N runs of subject (its processes one after the other).
// First, untimed, it counts the git calls of subject with a git shim
// (gitCalls), runs subject once more in its own environment, fails unless
// the output of the next run of subject contains expect, and runs the
// baselines once to warm the caches and reach a steady state. Each timed
// iteration also runs the baselines, untimed, before or after subject in
// turn.
//
// The invariant: every run of subject that is timed takes the path expect
// names, whatever the runs before it left. The shim's PATH is an
// environment of its own (its runs record their passes there, and an
// interval started by a pass in another environment does not hold), so
// the first run back in subject's environment can take the path a change
// of environment takes: it is a setup run, not the checked one. The output
// of every timed run is checked too, so a benchmark whose runs drift onto
// another path fails instead of measuring it.
func measure(b *testing.B, expect string, subject []proc, baselines ...baseline) {
	b.Helper()
	calls := gitCalls(b, subject, expect)
	run(b, subject...)
	checkPath(b, subject, expect, "the untimed run")
	for _, base := range baselines {
		run(b, base.procs...)
	}
	var times []time.Duration
	baseTimes := make([][]time.Duration, len(baselines))
	runBaselines := func() {
		b.StopTimer()
		for j, base := range baselines {
			d, _, _ := run(b, base.procs...)
			baseTimes[j] = append(baseTimes[j], d)
		}
		b.StartTimer()
	}
	var maxRSS int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			runBaselines()
		}
		d, rss, out := run(b, subject...)
		if !strings.Contains(out, expect) {
			b.Fatalf("%v: timed run %d took another path: output lacks %q:\n%s", subject[0].argv, i+1, expect, out)
		}
		times = append(times, d)
		maxRSS = max(maxRSS, rss)
		if i%2 == 1 {
			runBaselines()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(maxRSS), "maxrss-KiB")
	b.ReportMetric(float64(median(times)), "med-ns")
	for j, base := range baselines {
		b.ReportMetric(float64(median(baseTimes[j])), base.unit)
	}
	b.ReportMetric(float64(calls), "git-calls")
}

// checkPath runs subject and fails the benchmark unless its output
// contains expect; what names the run in the message.
func checkPath(b *testing.B, subject []proc, expect, what string) {
	b.Helper()
	if _, _, out := run(b, subject...); !strings.Contains(out, expect) {
		b.Fatalf("%v: %s took another path: output lacks %q:\n%s", subject[0].argv, what, expect, out)
	}
}

// against is the baseline a target names (metric base-med-ns).
func against(procs ...proc) baseline { return baseline{unit: "base-med-ns", procs: procs} }

// median of ds (0 for none).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// hookInput is a Claude Code Stop input for dir.
func hookInput(dir string, active bool) string {
	return fmt.Sprintf(`{"session_id":"bench","hook_event_name":"Stop","stop_hook_active":%v,"cwd":%q}`, active, dir)
}

// stopHook measures the stop hook in p, run as `init` installs it for
// Claude Code, against `git rev-parse --show-toplevel`, the yardstick of
// the stop-hook fast paths, and next to an empty Go program; status is the
// decision the input must get.
func stopHook(b *testing.B, p project, active bool, status string) {
	bin := binary(b)
	argv := append([]string{bin}, strings.Fields(install.Command(hookproto.Claude, 600))[1:]...)
	measure(b, `"status":"`+status+`"`,
		[]proc{p.cmd(hookInput(p.dir, active), argv...)},
		against(p.cmd("", "git", "rev-parse", "--show-toplevel")),
		baseline{unit: "go-med-ns", procs: []proc{p.cmd("", emptyGoProgram(b))}})
}

// BenchmarkStopHookNoConfig: a repository without .gauntlet/.
func BenchmarkStopHookNoConfig(b *testing.B) {
	stopHook(b, newProject(b, false, ""), false, "no_config")
}

// BenchmarkStopHookActive: the loop guard (stop_hook_active true).
func BenchmarkStopHookActive(b *testing.B) {
	stopHook(b, newProject(b, true, ""), true, "stop_hook_active")
}

// BenchmarkStopHookLockPresent: another run holds the lock.
func BenchmarkStopHookLockPresent(b *testing.B) {
	p := newProject(b, true, "")
	sh(b, p.dir, p.env, `mkdir -p gauntlet_logs && printf '{"pid":1,"host":"elsewhere","started_at":"2026-01-01T00:00:00Z"}' > gauntlet_logs/.gauntlet-run.lock`)
	stopHook(b, p, false, "lock_exists")
}

// BenchmarkStopHookIntervalNotElapsed: the last run, a full pass,
// completed a moment ago.
func BenchmarkStopHookIntervalNotElapsed(b *testing.B) {
	p := newProject(b, true, "")
	now := time.Now()
	if err := state.Write(filepath.Join(p.dir, "gauntlet_logs"), state.State{
		LastRunCompletedAt: now, LastFullPassAt: now, Branch: "main", Commit: strings.Repeat("0", 40),
	}); err != nil {
		b.Fatal(err)
	}
	stopHook(b, p, false, "interval_not_elapsed")
}

// BenchmarkStopHookIntervalAfterPass: the last run, a full pass of the
// stop hook, completed a moment ago and nothing changed since. The approve
// says so: it snapshots the work tree in the runs' kept index and reads
// what the pass recorded, as a stop with nothing new since a pass does.
func BenchmarkStopHookIntervalAfterPass(b *testing.B) {
	p := newProject(b, true, "")
	bin := binary(b)
	// A pass of gates nobody trusted starts no interval: a person trusts
	// them first, as init does.
	sh(b, p.dir, p.env, "'"+bin+"' trust --yes >/dev/null && echo change >> a.txt")
	first := exec.Command(bin, "stop-hook")
	first.Dir, first.Env, first.Stdin = p.dir, p.env, strings.NewReader(hookInput(p.dir, false))
	if out, err := first.CombinedOutput(); err != nil || !strings.Contains(string(out), `"status":"passed"`) {
		b.Fatalf("the first stop did not pass: %v\n%s", err, out)
	}
	stopHook(b, p, false, "interval_not_elapsed")
}

// BenchmarkRunOneTrueCheck: `agent-gauntlet run` with one `true` check on a
// one-file change, against `sh -c true` (the check itself); the overhead is
// the difference of the medians. --no-cache: the check runs every time, as
// after every edit (an unchanged tree would take its pass from the cache). A passed run archives its logs, so every
// run is run 1, not a verification; the untimed first runs leave the
// execution state that every later run finds (the steady state of a
// developer running the gauntlet again and again).
func BenchmarkRunOneTrueCheck(b *testing.B) {
	bin := binary(b)
	p := newProject(b, true, "")
	sh(b, p.dir, p.env, "git add .gauntlet && git commit -q -m gauntlet && echo change >> a.txt")
	measure(b, "Status: Passed", []proc{p.cmd("", bin, "run", "--no-cache")}, against(p.cmd("", "sh", "-c", "true")))
}

// BenchmarkRunEightParallelSleeps: 8 parallel `sleep 0.5` checks, run
// every time (--no-cache); the target is a wall time within 0.55 s.
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
	sh(b, p.dir, p.env, "mkdir -p .gauntlet/checks && for i in 0 1 2 3 4 5 6 7; do printf 'command: sleep 0.5\\nparallel: true\\n' > .gauntlet/checks/s$i.yml; done")
	writeFile(b, filepath.Join(p.dir, ".gauntlet", "config.yml"), cfg.String())
	sh(b, p.dir, p.env, "git add .gauntlet && git commit -q -m gauntlet && echo change >> a.txt")
	measure(b, "Status: Passed", []proc{p.cmd("", bin, "run", "--no-cache")})
}

// bigRepo is a repository with 10,000 changed files against main (half
// committed on the feature branch, a quarter modified, a quarter untracked)
// and 200 entry points (a quarter `dir/*` wildcards, a quarter `**` globs,
// half fixed paths with an exclude). The configuration is committed on
// main, so it is no change; the objects are packed, as in a real clone.
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
	sh(b, p.dir, p.env, `mkdir -p .gauntlet/checks && echo 'command: "true"' > .gauntlet/checks/ok.yml`)
	writeFile(b, filepath.Join(p.dir, ".gauntlet", "config.yml"), cfg.String())
	sh(b, p.dir, p.env, `
for d in $(seq 0 199); do mkdir -p pkg$d/sub; done
i=0; while [ $i -lt 5000 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
git add -A && git commit -q -m base-files && git checkout -q -b feature
i=5000; while [ $i -lt 10000 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
git add -A && git commit -q -m committed-changes && git repack -adq
i=0; while [ $i -lt 2500 ]; do echo changed >> pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
i=10000; while [ $i -lt 12500 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done`)
	return p
}

// BenchmarkDetectTenThousandFiles: `agent-gauntlet detect` on bigRepo,
// against raw git listing the same committed, uncommitted and untracked
// names (three processes, no shell).
func BenchmarkDetectTenThousandFiles(b *testing.B) {
	bin := binary(b)
	p := bigRepo(b)
	measure(b, "Changed files (10000):", []proc{p.cmd("", bin, "detect")}, against(
		p.cmd("", "git", "diff", "--name-only", "main...HEAD"),
		p.cmd("", "git", "diff", "--name-only", "HEAD"),
		p.cmd("", "git", "ls-files", "--others", "--exclude-standard"),
	))
}

// tenThousandFiles is the file layout of bigRepo: 10,000 files changed
// against main (half committed on the feature branch, a quarter modified,
// a quarter untracked), in 200 directories.
const tenThousandFiles = `
for d in $(seq 0 199); do mkdir -p pkg$d/sub; done
i=0; while [ $i -lt 5000 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
git add -A && git commit -q -m base-files && git checkout -q -b feature
i=5000; while [ $i -lt 10000 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
git add -A && git commit -q -m committed-changes && git repack -adq
i=0; while [ $i -lt 2500 ]; do echo changed >> pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
i=10000; while [ $i -lt 12500 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done`

// cachedRepo is bigRepo's layout with one entry point "." whose checks
// are the given commands (named c0, c1, ...), the stop hook's interval 0,
// and one passing run done: every check's pass is in the result cache.
func cachedRepo(b *testing.B, commands ...string) project {
	return cachedRepoWith(b, "", commands...)
}

// cachedRepoWith is cachedRepo with the shell script setup run after the
// files are made, before the passing run.
func cachedRepoWith(b *testing.B, setup string, commands ...string) project {
	p := newProject(b, false, "")
	var cfg strings.Builder
	cfg.WriteString("base_branch: main\ncli:\n  default_preference: [claude]\nstop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: \".\"\n    checks: [")
	sh(b, p.dir, p.env, "mkdir -p .gauntlet/checks")
	for i, c := range commands {
		if i > 0 {
			cfg.WriteString(", ")
		}
		fmt.Fprintf(&cfg, "c%d", i)
		writeFile(b, filepath.Join(p.dir, ".gauntlet", "checks", fmt.Sprintf("c%d.yml", i)), fmt.Sprintf("command: %q\nparallel: true\n", c))
	}
	cfg.WriteString("]\n")
	writeFile(b, filepath.Join(p.dir, ".gauntlet", "config.yml"), cfg.String())
	sh(b, p.dir, p.env, "printf 'gauntlet_logs/\\n' > .gitignore && git add .gitignore .gauntlet && git commit -q -m gauntlet"+tenThousandFiles)
	if setup != "" {
		sh(b, p.dir, p.env, setup)
	}
	// Trusted as `init` leaves a project: the stops measured are the
	// steady ones, not the first, which records the committed configuration.
	run(b, p.cmd("", binary(b), "trust", "--yes"))
	run(b, p.cmd("", binary(b), "run"))
	return p
}

// stopHookCached measures the stop hook (interval 0) on a cachedRepo with
// nothing changed since its passing run, against `git status --porcelain`
// on the same repository (target: at most twice its time, docs/performance.md).
func stopHookCached(b *testing.B, commands ...string) {
	p := cachedRepo(b, commands...)
	want := fmt.Sprintf("All %d gates passed before on exactly this content (cached)", len(commands))
	settle()
	measure(b, want,
		[]proc{p.cmd(hookInput(p.dir, false), binary(b), "stop-hook")},
		against(p.cmd("", "git", "status", "--porcelain")))
}

// settle waits until the set-up's last changes of the work tree's
// directories are older than the stop hook trusts a directory's times
// (two seconds, statecfg/kit/filestat): the stops measured
// then are those of a work tree in which nothing happened for a while, as
// between an agent's stops.
func settle() { time.Sleep(2100 * time.Millisecond) }

// BenchmarkStopHookCachedTenThousandFiles: one `true` check, 10,000 files.
func BenchmarkStopHookCachedTenThousandFiles(b *testing.B) {
	stopHookCached(b, "true")
}

// BenchmarkStopHookCachedTenSlowGates: ten checks of one second each,
// 10,000 files; none runs.
func BenchmarkStopHookCachedTenSlowGates(b *testing.B) {
	stopHookCached(b, "sleep 1", "sleep 1", "sleep 1", "sleep 1", "sleep 1", "sleep 1", "sleep 1", "sleep 1", "sleep 1", "sleep 1")
}

// BenchmarkStopHookCachedFetched: as BenchmarkStopHookCachedTenThousandFiles,
// in a clone whose origin/main a fetch put there, as in nearly every real
// repository: whether it was fetched is asked of git only when a reflog,
// a ref or the configuration changed (docs/cache.md, the fetched memo).
func BenchmarkStopHookCachedFetched(b *testing.B) {
	p := cachedRepoWith(b, "git clone -q --bare . ../person.git && git remote add origin ../person.git && git fetch -q origin", "true")
	settle()
	measure(b, "All 1 gates passed before on exactly this content (cached)",
		[]proc{p.cmd(hookInput(p.dir, false), binary(b), "stop-hook")},
		against(p.cmd("", "git", "status", "--porcelain")))
}

// BenchmarkStopHookCachedFreshBranch: as BenchmarkStopHookCachedTenThousandFiles,
// on a branch with no commit of its own yet (its base holds HEAD: the run
// reaches back to the branch's last pass), the agent's work all
// uncommitted.
func BenchmarkStopHookCachedFreshBranch(b *testing.B) {
	p := newProject(b, false, "")
	cfg := "base_branch: main\ncli:\n  default_preference: [claude]\nstop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: \".\"\n    checks: [c0]\n"
	sh(b, p.dir, p.env, "mkdir -p .gauntlet/checks")
	writeFile(b, filepath.Join(p.dir, ".gauntlet", "config.yml"), cfg)
	writeFile(b, filepath.Join(p.dir, ".gauntlet", "checks", "c0.yml"), "command: \"true\"\n")
	sh(b, p.dir, p.env, `printf 'gauntlet_logs/\n' > .gitignore && git add -A && git commit -q -m gauntlet
for d in $(seq 0 199); do mkdir -p pkg$d/sub; done
i=0; while [ $i -lt 7500 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
git add -A && git commit -q -m base-files && git repack -adq && git checkout -q -b feature
i=0; while [ $i -lt 2500 ]; do echo changed >> pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done
i=7500; while [ $i -lt 10000 ]; do echo $i > pkg$((i % 200))/sub/f$i.go; i=$((i+1)); done`)
	run(b, p.cmd("", binary(b), "trust", "--yes"))
	run(b, p.cmd(hookInput(p.dir, false), binary(b), "stop-hook"))
	settle()
	measure(b, "All 1 gates passed before on exactly this content (cached)",
		[]proc{p.cmd(hookInput(p.dir, false), binary(b), "stop-hook")},
		against(p.cmd("", "git", "status", "--porcelain")))
}

// stopHookAfter prepares a cachedRepo whose checks are commands, runs the
// untimed setup steps (shell scripts, or runs of agent-gauntlet: "run"),
// and measures the stop hook (interval 0), expecting want in its answer,
// next to `git status --porcelain`.
func stopHookAfter(b *testing.B, want string, commands []string, steps ...string) {
	p := cachedRepo(b, commands...)
	for _, st := range steps {
		if st == "run" {
			run(b, p.cmd("", binary(b), "run"))
			continue
		}
		sh(b, p.dir, p.env, st)
	}
	settle()
	measure(b, want,
		[]proc{p.cmd(hookInput(p.dir, false), binary(b), "stop-hook")},
		against(p.cmd("", "git", "status", "--porcelain")))
}

// BenchmarkStopHookCachedRevert: the agent broke one file, the check
// failed, the fix put the file back exactly as on the base branch and the
// verification run passed; the next stop, on 10,000 files, has nothing
// new (target: under 50 ms, docs/performance.md; every gate from the cache).
func BenchmarkStopHookCachedRevert(b *testing.B) {
	stopHookAfter(b, "All 1 gates passed before on exactly this content (cached)",
		[]string{"sh -c '! grep -q BAD pkg0/sub/f3000.go'"},
		"echo BAD >> pkg0/sub/f3000.go", "run", "git show main:pkg0/sub/f3000.go > pkg0/sub/f3000.go", "run")
}

// BenchmarkStopHookCachedPreExisting: a check with baseline: true fails
// as it does on the base branch (pre-existing); the next stop, on 10,000
// files, takes that verdict from the cache, running neither the check nor
// its base run (target: under 50 ms, docs/performance.md).
func BenchmarkStopHookCachedPreExisting(b *testing.B) {
	p := newProject(b, false, "")
	cfg := "base_branch: main\ncli:\n  default_preference: [claude]\nstop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: \".\"\n    checks: [old]\n"
	sh(b, p.dir, p.env, "mkdir -p .gauntlet/checks && echo OLD > old.txt")
	writeFile(b, filepath.Join(p.dir, ".gauntlet", "config.yml"), cfg)
	writeFile(b, filepath.Join(p.dir, ".gauntlet", "checks", "old.yml"), "command: \"grep -Hn OLD old.txt | sed 's/:OLD/: error: OLD/' | grep . && exit 1 || exit 0\"\nbaseline: true\n")
	sh(b, p.dir, p.env, "printf 'gauntlet_logs/\\n' > .gitignore && git add -A && git commit -q -m gauntlet"+tenThousandFiles)
	run(b, p.cmd("", binary(b), "trust", "--yes"))
	run(b, p.cmd("", binary(b), "run"))
	settle()
	measure(b, "(cached): none ran. Not caused by this change, here for information: check:.:old fails on the base branch too",
		[]proc{p.cmd(hookInput(p.dir, false), binary(b), "stop-hook")},
		against(p.cmd("", "git", "status", "--porcelain")))
}

// loudOutput is what BenchmarkRunFailingCheckLargeOutput's check prints:
// 100 MB of lines that each tell where an error is.
const loudOutput = "yes 'src/a.go:12:3: something is wrong here' | head -c 100000000"

// BenchmarkRunFailingCheckLargeOutput: `agent-gauntlet run` with one check
// that prints 100 MB and fails, read as plain text (each line a finding, up
// to the bound of a result), against the check alone writing its output to
// a file. Every run starts from no logs (removing them is timed: a few
// milliseconds), so each is a first run.
func BenchmarkRunFailingCheckLargeOutput(b *testing.B) {
	bin := binary(b)
	p := newProject(b, false, "")
	sh(b, p.dir, p.env, "mkdir -p .gauntlet/checks && printf 'command: sh loud.sh\\n' > .gauntlet/checks/loud.yml")
	writeFile(b, filepath.Join(p.dir, ".gauntlet", "config.yml"),
		"base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: \".\"\n    checks: [loud]\n")
	writeFile(b, filepath.Join(p.dir, "loud.sh"), loudOutput+"\nexit 1\n")
	sh(b, p.dir, p.env, "printf 'gauntlet_logs/\\n' > .gitignore && git add -A && git commit -q -m gauntlet && echo change >> a.txt")
	alone := filepath.Join(b.TempDir(), "loud.log")
	measure(b, "[FAIL]",
		[]proc{p.cmd("", "rm", "-rf", "gauntlet_logs"), p.cmd("", bin, "run", "--no-cache")},
		against(p.cmd("", "sh", "-c", "sh loud.sh > "+alone+" 2>&1")))
}
