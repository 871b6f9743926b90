package baseline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// step is how one part of a compound command does on one side.
type step int

const (
	stepPass   step = iota // exits 0, prints nothing
	stepSilent             // exits 1+i, prints nothing (test -z "$(gofmt -l .)")
	stepLoud               // exits 1+i, prints its finding
)

// script is the part i behaving as s.
func (s step) script(i int) string {
	switch s {
	case stepSilent:
		return fmt.Sprintf("#!/bin/sh\nexit %d\n", 1+i)
	case stepLoud:
		return fmt.Sprintf("#!/bin/sh\necho 'step%d: finding %d' >&2\nexit %d\n", i, i, 1+i)
	}
	return "#!/bin/sh\nexit 0\n"
}

// shape is a compound command of n parts ./s0 ./s1 … and how the shell
// judges it.
type shape struct {
	sep string
	// counted are the parts whose exit status the shell's verdict depends
	// on: every part of a && chain or a || list, the last of a ; list or
	// a pipeline.
	counted func(n int) []int
	// fails is whether the command fails when the parts do as given.
	fails func(ss []step) bool
}

func anyFails(ss []step) bool {
	for _, s := range ss {
		if s != stepPass {
			return true
		}
	}
	return false
}

var shapes = []shape{
	{" && ", allParts, anyFails},
	{"; ", lastPart, func(ss []step) bool { return ss[len(ss)-1] != stepPass }},
	{" | ", lastPart, func(ss []step) bool { return ss[len(ss)-1] != stepPass }},
	{" || ", allParts, func(ss []step) bool {
		for _, s := range ss {
			if s == stepPass {
				return false
			}
		}
		return true
	}},
}

func allParts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func lastPart(n int) []int { return []int{n - 1} }

// steps enumerates every way n parts can do.
func steps(n int) [][]step {
	if n == 0 {
		return [][]step{nil}
	}
	var out [][]step
	for _, rest := range steps(n - 1) {
		for _, s := range []step{stepPass, stepSilent, stepLoud} {
			out = append(out, append(append([]step(nil), rest...), s))
		}
	}
	return out
}

// shellSource runs the check for real in a directory that stands for the
// base's checkout.
type shellSource struct{ dir string }

func (s shellSource) Base(ctx context.Context, req Request) (Result, error) {
	out, found := runIn(ctx, req.Job, s.dir, req.Log)
	if out.Status == gate.StatusPass {
		return Result{Passed: true}, nil
	}
	return Result{ExitCode: out.ExitCode, Findings: found}, nil
}

// runIn runs job's command in dir, its output appended to log.
func runIn(ctx context.Context, job gate.Job, dir string, log *os.File) (check.Outcome, findings.Result) {
	x := check.Exec{Command: job.Check.Command, Dir: dir, Env: check.Environ("main"), Log: log}
	began := time.Now()
	out := x.Run(ctx)
	found, _ := check.ReadFindings(job, job.Check.Command, dir, dir, out, log, began)
	return out, found
}

// TestJudgeStepForStep: a failure is approved as pre-existing only when
// the work tree's run and the base's are comparable step for step: every
// part of the command whose status the shell counts that failed (or
// stopped the command) in the work tree failed on the base too, printing
// nothing the base does not print; a part that fails only in the work
// tree, silent or not, is a new failure that blocks (naming it when it
// printed nothing); and each side's findings are counted once, however
// often the parts a stop kept from running are run again. The table is
// every compound shape (a && b, a; b, a | b, a || b, and a three-part
// chain) with every part passing, failing silently or failing with a
// finding, on each side; a failed check that reports nothing is never
// pre-existing.
func TestJudgeStepForStep(t *testing.T) {
	type tc struct {
		sh   shape
		n    int
		w, b []step
	}
	var cases []tc
	for _, sh := range shapes {
		for _, w := range steps(2) {
			for _, b := range steps(2) {
				cases = append(cases, tc{sh, 2, w, b})
			}
		}
	}
	// Three parts: every fourth pair (all of them with -run and
	// GAUNTLET_ALL_STEPS=1; each runs a few shells).
	every := 4
	if os.Getenv("GAUNTLET_ALL_STEPS") != "" {
		every = 1
	}
	if !testing.Short() {
		for k, w := range steps(3) {
			for l, b := range steps(3) {
				if (k*27+l)%every == 0 {
					cases = append(cases, tc{shapes[0], 3, w, b})
				}
			}
		}
	}
	root := t.TempDir()
	for k, c := range cases {
		if !c.sh.fails(c.w) {
			continue // nothing to judge
		}
		parts := make([]string, c.n)
		for i := range parts {
			parts[i] = fmt.Sprintf("./s%d", i)
		}
		cmd := strings.Join(parts, c.sh.sep)
		name := fmt.Sprintf("%s/work=%v/base=%v", cmd, c.w, c.b)
		dir := filepath.Join(root, fmt.Sprint(k))
		work, base := filepath.Join(dir, "work"), filepath.Join(dir, "base")
		for _, side := range []struct {
			dir string
			ss  []step
		}{{work, c.w}, {base, c.b}} {
			if err := os.MkdirAll(side.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for i, s := range side.ss {
				if err := os.WriteFile(filepath.Join(side.dir, parts[i][2:]), []byte(s.script(i)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
		// The oracle, part by part.
		want, silentNew := true, []string(nil)
		if !c.sh.fails(c.b) {
			want = false
		}
		loud, loudNew := false, false
		for i := range c.n {
			loud = loud || c.w[i] == stepLoud
			if c.w[i] == stepLoud && c.b[i] != stepLoud {
				loudNew = true // a finding the base does not print
			}
		}
		want = want && !loudNew
		for _, i := range c.sh.counted(c.n) {
			if c.w[i] != stepPass && c.b[i] == stepPass {
				want = false
				if c.w[i] == stepSilent {
					silentNew = append(silentNew, parts[i])
				}
			}
		}
		want = want && loud

		log := logFile(t)
		job := checkJob(cmd, ".", nil, func(ch *config.Check) { ch.Format = findings.FormatText })
		ctx := context.Background()
		out, found := runIn(ctx, job, work, log)
		j := &Judge{Source: shellSource{base}, BaseBranch: "main", Diff: noDiff,
			Commit: func(context.Context) (string, error) { return "0123456789abcdef", nil }}
		jd := j.Failure(ctx, check.Failure{Job: job, Env: gate.Env{Root: work}, Dir: work, Outcome: out, Log: log, Findings: found})
		if got := jd.Status == gate.StatusPreExisting; got != want {
			data, _ := os.ReadFile(log.Name())
			t.Errorf("%s: pre-existing = %v, want %v: %s\n%s", name, got, want, jd.Message, data)
			continue
		}
		if len(silentNew) > 0 && !loudNew && c.sh.fails(c.b) && c.sh.sep == " && " && !strings.Contains(jd.Message, "`"+silentNew[0]+"`") {
			t.Errorf("%s: %q does not name the part that fails only here, %s", name, jd.Message, silentNew[0])
		}
	}
}
