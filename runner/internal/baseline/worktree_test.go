package baseline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// repo makes a repository at a new directory with files committed on
// main, and returns its root and the commit.
func repo(t *testing.T, files map[string]string) (string, string) {
	t.Helper()
	testenv.Setenv(t)
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, root, "git", "init", "-q", "-b", "main")
	run(t, root, "git", "add", "-A")
	run(t, root, "git", "commit", "-q", "-m", "base")
	return root, run(t, root, "git", "rev-parse", "HEAD")
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// logFile is a fresh log, open for appending and reading.
func logFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "check.log"), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func checkJob(cmd, wd string, changed []string, mod func(*config.Check)) gate.Job {
	c := &config.Check{Name: "lint", Command: cmd, RunLocally: true, Baseline: true}
	if mod != nil {
		mod(c)
	}
	return gate.Job{ID: "check:.:lint", Kind: gate.KindCheck, Name: "lint", EntryPoint: ".", WorkingDir: wd, Check: c, Changed: changed}
}

// worktreeCount is how many worktrees the repository at root lists.
func worktreeCount(t *testing.T, root string) int {
	t.Helper()
	list, err := git.Worktrees(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

func TestWorktreesBase(t *testing.T) {
	ctx := context.Background()
	root, commit := repo(t, map[string]string{"sub/a.txt": "BAD old\n", "sub/ok.txt": "ok\n"})
	// The work tree moves on: a new file, a new directory.
	if err := os.MkdirAll(filepath.Join(root, "newdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := NewWorktrees(root)
	defer w.Close()
	lint := `grep -Hn BAD ${CHANGED_FILES} && exit 1; exit 0`
	for _, tc := range []struct {
		name    string
		job     gate.Job
		passed  bool
		lines   int
		err     string
		note    string
		logPart string
	}{
		{name: "fails on the base", job: checkJob(lint, "sub", []string{"sub/a.txt", "sub/new.txt"}, nil), lines: 1,
			logPart: "a.txt:1:BAD old\n"},
		{name: "passes on the base", job: checkJob(lint, "sub", []string{"sub/ok.txt"}, nil), passed: true},
		{name: "none of the files at the base", job: checkJob(lint, "sub", []string{"sub/new.txt"}, nil), passed: true,
			note: "none of its changed files exists on the base"},
		{name: "no working directory at the base", job: checkJob("true", "newdir", nil, nil), err: "the base has no working directory newdir"},
		{name: "times out on the base", job: checkJob("sleep 5", ".", nil, func(c *config.Check) { c.Timeout = 100 * time.Millisecond }),
			err: "the base run did not finish: Timed out after 0.1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := logFile(t)
			res, err := w.Base(ctx, Request{Commit: commit, Job: tc.job, BaseBranch: "main", Log: log})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || res.Passed != tc.passed || len(res.Findings.Findings) != tc.lines || tc.note != "" && res.Note != tc.note {
				t.Fatalf("Base = %+v, %v", res, err)
			}
			b, _ := os.ReadFile(log.Name())
			if !strings.Contains(string(b), tc.logPart) {
				t.Errorf("log lacks %q:\n%s", tc.logPart, b)
			}
		})
	}
	if n := len(ownCheckouts(t)); n != 1 || worktreeCount(t, root) != 1 {
		t.Errorf("want one temporary checkout shared by every check, have %d (and %d worktrees)", n, worktreeCount(t, root))
	}
	w.Close()
	if n := len(ownCheckouts(t)); n != 0 {
		t.Errorf("after Close: %d checkouts", n)
	}
	if m, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPattern+"*")); len(m) > 0 {
		for _, d := range m {
			if _, err := os.Stat(filepath.Join(d, treeName, "sub", "a.txt")); err == nil {
				t.Errorf("a temporary worktree directory is left: %s", d)
			}
		}
	}
}

// A commit that cannot be checked out is an error, remembered: the next
// check does not try again.
func TestWorktreesBadCommit(t *testing.T) {
	root, _ := repo(t, map[string]string{"a.txt": "a\n"})
	w := NewWorktrees(root)
	defer w.Close()
	for range 2 {
		_, err := w.Base(context.Background(), Request{Commit: strings.Repeat("0", 40), Job: checkJob("true", ".", nil, nil), Log: logFile(t)})
		if err == nil || !strings.Contains(err.Error(), "cannot make a worktree of the base") {
			t.Fatalf("err %v", err)
		}
	}
	if n := worktreeCount(t, root); n != 1 {
		t.Errorf("%d worktrees", n)
	}
}

// ownCheckouts are the temporary checkouts of this process.
func ownCheckouts(t *testing.T) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPattern+"*"))
	var out []string
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, ownerFile)); err == nil && string(b) == ownerText() {
			out = append(out, d)
		}
	}
	return out
}

// PruneStale removes the checkouts of dead gauntlets only, and the
// worktrees earlier versions made for them.
func TestPruneStale(t *testing.T) {
	ctx := context.Background()
	root, commit := repo(t, map[string]string{"a.txt": "a\n"})
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	reasons := map[string]string{
		"dead":       fmt.Sprintf("%spid %d on %s", lockPrefix, dead.Process.Pid, host),
		"alive":      fmt.Sprintf("%spid %d on %s", lockPrefix, os.Getpid(), host),
		"other host": fmt.Sprintf("%spid %d on %s", lockPrefix, dead.Process.Pid, host+"-elsewhere"),
		"not ours":   "my own work",
	}
	checkouts, worktrees := map[string]string{}, map[string]string{}
	for name, reason := range reasons {
		for _, kind := range []string{"checkout", "worktree"} {
			parent, err := os.MkdirTemp("", tempPattern)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(parent) })
			dir := filepath.Join(parent, treeName)
			if kind == "worktree" {
				worktrees[name] = dir
				if err := git.AddWorktree(ctx, root, dir, commit, reason); err != nil {
					t.Fatal(err)
				}
				continue
			}
			checkouts[name] = dir
			// The owner is written last: a run of another process on this
			// machine prunes a checkout of a dead owner as soon as it sees
			// one.
			if err := git.PrivateCheckout(ctx, root, dir, commit); err != nil {
				t.Fatal(err)
			}
			// A module cache leaves read-only directories.
			if err := os.Chmod(dir, 0o500); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(parent, ownerFile), []byte(reason), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	PruneStale(ctx, root)
	list, _ := git.Worktrees(ctx, root)
	var left []string
	for _, wt := range list[1:] {
		left = append(left, wt.LockReason)
	}
	if len(left) != 3 || strings.Contains(strings.Join(left, "|"), fmt.Sprintf("pid %d on %s|", dead.Process.Pid, host)) {
		t.Errorf("left: %q", left)
	}
	for _, dirs := range []map[string]string{checkouts, worktrees} {
		if _, err := os.Stat(filepath.Dir(dirs["dead"])); !os.IsNotExist(err) {
			t.Errorf("the dead run's temporary directory is left: %v", err)
		}
		for _, name := range []string{"alive", "other host", "not ours"} {
			if _, err := os.Stat(dirs[name]); err != nil {
				t.Errorf("%s: removed: %v", name, err)
			}
			os.Chmod(dirs[name], 0o700)
		}
	}
}

// fakeSource is a Source that answers without a worktree: the seam a
// result cache uses.
type fakeSource struct {
	res  Result
	err  error
	reqs []Request
}

func (f *fakeSource) Base(_ context.Context, req Request) (Result, error) {
	f.reqs = append(f.reqs, req)
	return f.res, f.err
}

func withUnverified(r Result, why ...string) Result {
	r.Unverified = why
	return r
}

func withNote(r Result, note string) Result {
	r.Note = note
	return r
}

func TestJudge(t *testing.T) {
	base := func(out string) Result { return Result{ExitCode: 1, Findings: parsed(out)} }
	const old = "a.go:3:1: old problem\n"
	for _, tc := range []struct {
		name     string
		baseline bool
		out      string
		src      fakeSource
		commit   error
		status   gate.Status
		msg      string
		log      string
	}{
		{"not a baseline check", false, old, fakeSource{}, nil, gate.StatusFail, "Exited with code 1", ""},
		{"pre-existing", true, old, fakeSource{res: withNote(base("./a.go:3:1: old problem\n"), "from the result cache")}, nil,
			gate.StatusPreExisting, "Exited with code 1, as on the base branch (merge base 0123456789ab): pre-existing, not caused by this change",
			"Baseline: pre-existing, not caused by this change"},
		{"new", true, old + "b.go:1:1: new problem\n", fakeSource{res: base(old)}, nil,
			gate.StatusFail, "Exited with code 1; new, not on the base branch (merge base 0123456789ab): 1 of its 2 findings is new: b.go:1:1: error: new problem",
			"  [new] b.go:1:1: error: new problem\n"},
		{"a second identical finding", true, old + "a.go:9:1: old problem\n", fakeSource{res: base(old)}, nil,
			gate.StatusFail, "Exited with code 1; new, not on the base branch (merge base 0123456789ab): 1 of its 2 findings is new: a.go:9:1: error: old problem",
			""},
		{"the same on the base, with changed dependencies", true, old, fakeSource{res: withUnverified(base("./a.go:3:1: old problem\n"), "node_modules was changed after npm installed it (node_modules/leftpad/index.js changed); install it again (npm ci)")}, nil,
			gate.StatusFail, "Exited with code 1; not shown to be pre-existing: it fails on the base branch (merge base 0123456789ab) too, but the base run had a copy of the work tree's dependencies, and node_modules was changed after npm installed it (node_modules/leftpad/index.js changed); install it again (npm ci)",
			"Baseline: not shown to be pre-existing: the base fails the same way"},
		{"new, with changed dependencies", true, old + "b.go:1:1: new problem\n", fakeSource{res: withUnverified(base(old), "node_modules was changed")}, nil,
			gate.StatusFail, "Exited with code 1; new, not on the base branch (merge base 0123456789ab): 1 of its 2 findings is new: b.go:1:1: error: new problem", ""},
		{"passes on the base", true, old, fakeSource{res: Result{Passed: true, Note: "from the result cache"}}, nil,
			gate.StatusFail, "Exited with code 1; new, not on the base branch (merge base 0123456789ab): the check passes there (from the result cache)", ""},
		{"base unavailable", true, old, fakeSource{err: fmt.Errorf("the base has no working directory x")}, nil,
			gate.StatusFail, "Exited with code 1; not compared with the base branch: the base has no working directory x", ""},
		{"no merge base", true, old, fakeSource{}, fmt.Errorf("no common commit"),
			gate.StatusFail, "Exited with code 1; not compared with the base branch: no common commit", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := logFile(t)
			if _, err := log.WriteString(tc.out); err != nil {
				t.Fatal(err)
			}
			src := tc.src
			j := &Judge{Source: &src, BaseBranch: "main", Commit: func(context.Context) (string, error) {
				return "0123456789abcdef", tc.commit
			}, Diff: noDiff}
			job := checkJob("lint", ".", []string{"a.go"}, func(c *config.Check) { c.Baseline = tc.baseline })
			f := check.Failure{Job: job, Env: gate.Env{Root: "/w"}, Log: log, Findings: parsed(tc.out),
				Outcome: check.Outcome{Status: gate.StatusFail, Message: "Exited with code 1", ExitCode: 1, Output: []check.Span{{Off: 0, Len: int64(len(tc.out))}}}}
			jd := j.Failure(context.Background(), f)
			status, msg, b := jd.Status, jd.Message, jd.Baseline
			if jd.Findings != nil {
				check.WriteFindings(log, jd.Findings)
			}
			if status != tc.status || msg != tc.msg || tc.baseline != (b != nil) {
				t.Errorf("Failure = %s %q %+v, want %s %q", status, msg, b, tc.status, tc.msg)
			}
			if tc.baseline && tc.commit == nil && (len(src.reqs) != 1 || src.reqs[0].Commit != "0123456789abcdef" || src.reqs[0].BaseBranch != "main" || src.reqs[0].Job.ID != job.ID) {
				t.Errorf("requests %+v", src.reqs)
			}
			data, _ := os.ReadFile(log.Name())
			if !bytes.Contains(data, []byte(tc.log)) {
				t.Errorf("log lacks %q:\n%s", tc.log, data)
			}
		})
	}
}

// The base worktree gets the work tree's untracked dependency directories
// (node_modules, .venv) as private copies, in the project root and down
// to the check's working directory, so that a check finds its tools
// there; a tracked one of the base is kept; removing the worktree leaves
// the work tree's.
func TestWorktreesDependencies(t *testing.T) {
	root, commit := repo(t, map[string]string{"web/app.js": "x\n", "py/venv/keep.txt": "tracked\n", ".gitignore": "node_modules/\n.venv/\n"})
	for _, p := range []string{"node_modules/.bin/tool", "web/node_modules/.bin/eslint", "py/.venv/bin/pytest", "py/venv/bin/other"} {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("#!/bin/sh\necho tool ok\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := NewWorktrees(root)
	defer w.Close()
	for _, tc := range []struct{ wd, cmd, want string }{
		{"web", "ls node_modules/.bin ../node_modules/.bin; exit 1", "../node_modules/.bin:\ntool\n\nnode_modules/.bin:\neslint\n"},
		{"py", "ls .venv/bin venv; exit 1", ".venv/bin:\npytest\n\nvenv:\nkeep.txt\n"},
	} {
		log := logFile(t)
		if _, err := w.Base(context.Background(), Request{Commit: commit, Job: checkJob(tc.cmd, tc.wd, nil, nil), Log: log}); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(log.Name()); !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: the base run does not see the dependencies:\n%q", tc.wd, b)
		}
	}
	w.Close()
	for _, p := range []string{"node_modules/.bin/tool", "web/node_modules/.bin/eslint", "py/.venv/bin/pytest", "py/venv/bin/other"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("%s is gone after the worktree was removed: %v", p, err)
		}
	}
}

// Whatever the base run does to the dependency directories it was given
// (an installer emptying node_modules and writing its own, a script that
// rewrites a file, a virtual environment's pip installing into the
// environment its #! line names), the work tree's stay as they were.
func TestWorktreesDependenciesPrivate(t *testing.T) {
	root, commit := repo(t, map[string]string{".gitignore": "node_modules/\n.venv/\n", "a.txt": "x\n"})
	files := map[string]string{
		"node_modules/pkg/index.js":     "module.exports = 1\n",
		"node_modules/pkg/package.json": "{}\n",
		".venv/bin/pip":                 "#!" + filepath.Join(root, ".venv", "bin", "python") + "\necho pip\n",
		".venv/lib/site.py":             "sys\n",
	}
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../pkg/index.js", filepath.Join(root, "node_modules", "pkg", "bin")); err != nil {
		t.Fatal(err)
	}
	w := NewWorktrees(root)
	defer w.Close()
	cmd := `set -e
cat node_modules/pkg/bin
head -1 .venv/bin/pip
rm -rf node_modules/pkg/index.js && echo changed > node_modules/pkg/index.js
echo more >> node_modules/pkg/package.json || true
rm -rf node_modules && mkdir node_modules && echo own > node_modules/own.js
rm -rf .venv/lib
exit 1`
	log := logFile(t)
	if _, err := w.Base(context.Background(), Request{Commit: commit, Job: checkJob(cmd, ".", nil, nil), Log: log}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log.Name())
	if !strings.Contains(string(b), "module.exports = 1\n") || strings.Contains(string(b), "#!"+root+"/") {
		t.Errorf("the base run did not see its own copy:\n%s", b)
	}
	for p, content := range files {
		if got, err := os.ReadFile(filepath.Join(root, p)); err != nil || string(got) != content {
			t.Errorf("%s changed in the work tree: %q, %v", p, got, err)
		}
	}
}

// blockingSource is a base that never finishes before its context ends.
type blockingSource struct{ deadline time.Time }

func (b *blockingSource) Base(ctx context.Context, _ Request) (Result, error) {
	b.deadline, _ = ctx.Deadline()
	<-ctx.Done()
	return Result{}, fmt.Errorf("the check could not run on the base: Canceled")
}

// checkoutCut is a base whose checkout never finishes before its context
// ends (git killed by the deadline).
type checkoutCut struct{}

func (checkoutCut) Base(ctx context.Context, _ Request) (Result, error) {
	<-ctx.Done()
	return Result{}, fmt.Errorf("%w: git worktree add: signal: killed", ErrNoWorktree)
}

// The run's deadline (the stop hook's timeout) is the person's setting,
// never the agent's to fix. Invariant: a check whose verdict depends on a
// comparison with the base that the deadline cut (the base checkout, the
// base run, or no time left for either) is never a block for that reason
// alone: it is an infrastructure error naming the check as not compared
// and why, whatever the work tree's failure looks like; the judge ends
// before the run's deadline. A base that finished and passes still
// makes the failure new (a block), deadline or not.
func TestJudgeDeadline(t *testing.T) {
	const why = "not compared with the base branch: the base run could not finish before the run's deadline"
	for _, cut := range []struct {
		name    string
		src     Source
		timeout time.Duration
		status  gate.Status
		msg     string
	}{
		{"base run cut", &blockingSource{}, 3 * time.Second, gate.StatusError, why},
		{"base checkout cut", checkoutCut{}, 3 * time.Second, gate.StatusError, why},
		{"no time left for the base", &blockingSource{}, time.Second, gate.StatusError, "leaves no time to run it on the base"},
		{"base finished and passes", &fakeSource{res: Result{Passed: true}}, 3 * time.Second, gate.StatusFail, "new, not on the base branch"},
	} {
		for _, work := range []struct{ name, out string }{
			{"failure the base may share", "a.go:1:1: old\n"},
			{"failure the base may not share", "b.go:9:1: new\n"},
		} {
			t.Run(cut.name+"/"+work.name, func(t *testing.T) {
				j := &Judge{Source: cut.src, BaseBranch: "main", Diff: noDiff, Commit: func(context.Context) (string, error) { return "0123456789abcdef", nil }}
				ctx, cancel := context.WithTimeout(context.Background(), cut.timeout)
				defer cancel()
				log := logFile(t)
				f := check.Failure{Job: checkJob("lint", ".", nil, func(c *config.Check) { c.Baseline = true }), Env: gate.Env{Root: "/w"}, Log: log, Findings: parsed(work.out),
					Outcome: check.Outcome{Status: gate.StatusFail, Message: "Exited with code 1", ExitCode: 1}}
				jd := j.Failure(ctx, f)
				if ctx.Err() != nil {
					t.Fatalf("the judge outlived the run's deadline")
				}
				infra := cut.status == gate.StatusError
				if jd.Status != cut.status || jd.Infrastructure != infra || !strings.Contains(jd.Message, cut.msg) {
					t.Errorf("Failure = %s infrastructure=%v %q, want %s infrastructure=%v containing %q", jd.Status, jd.Infrastructure, jd.Message, cut.status, infra, cut.msg)
				}
				if b, ok := cut.src.(*blockingSource); ok && cut.timeout > time.Second {
					if d, _ := ctx.Deadline(); !b.deadline.Before(d.Add(-minReserve + time.Millisecond)) {
						t.Errorf("the base got the whole deadline: %v of %v", b.deadline, d)
					}
				}
			})
		}
	}
}
