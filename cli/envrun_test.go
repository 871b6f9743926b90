package cli

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// envChange is an environment a run by hand can have that the stop hook's
// does not (or, for the control, the same): one row of
// TestStopTakesNothingFromAnotherEnvironment.
type envChange struct {
	// name names it; kind is the gate it can fool ("check" or "review"):
	// the project has that gate only.
	name, kind string
	// before and after are the testscript lines around the run by hand:
	// they set the environment up and take it back down.
	before, after string
	// control is the unchanged environment: the stop must take what the
	// run by hand proved (the cache's hit property), and the work is good.
	control bool
}

// envChanges are the environments: a reviewer or a check tool of the
// agent's own first on PATH, a tool variable that empties a check, the
// reviewer program replaced at its own path (and put back before the
// stop), and the unchanged environment for each kind of gate.
var envChanges = []envChange{
	{name: "fake reviewer first on PATH", kind: "review",
		before: "env PATH=$WORK/fake:$PATH\n", after: "env PATH=$REALPATH\n"},
	{name: "fake check tool first on PATH", kind: "check",
		before: "cp fakegrep fake/grep\nchmod 755 fake/grep\nenv PATH=$WORK/fake:$PATH\n", after: "env PATH=$REALPATH\n"},
	{name: "tool variable", kind: "check",
		before: "env GOFLAGS=-run=none\n", after: "env GOFLAGS=\n"},
	{name: "reviewer replaced in place", kind: "review",
		before: "cp fake/claude bin/claude\n", after: "cp standin bin/claude\n"},
	{name: "unchanged environment check", kind: "check", control: true},
	{name: "unchanged environment review", kind: "review", control: true},
}

// reuse is what a stop could take from the run by hand: the run's lines,
// the stop hook's interval, whether a stop blocks before the run by hand,
// and what the stop after it must show in the control.
type reuse struct {
	name string
	// interval is run_interval_minutes; stopFirst makes a stop block
	// before the run by hand (failures pending, then cleared by it).
	interval  int
	stopFirst bool
	// run is the run by hand, given the gate kind.
	run func(kind string) string
	// reviewOnly: only reviews ask a reviewer.
	reviewOnly bool
	// reused is the control's assertion on the stop after the run by hand.
	reused string
}

// reuses are the things an earlier run leaves for a stop: the interval's
// full pass, a cleared pending failure, the reviewer-answer cache and the
// result cache.
var reuses = []reuse{
	{name: "interval", interval: 30, run: func(string) string { return "exec agent-gauntlet run\n" },
		reused: "hookjson decision=approve status=interval_not_elapsed\n"},
	{name: "cleared failure", interval: 30, stopFirst: true,
		run:    func(kind string) string { return "exec agent-gauntlet " + kind + "\n" },
		reused: "hookjson decision=approve 'message~cached'\n"},
	{name: "reviewer answer cache", interval: 0, reviewOnly: true,
		run:    func(string) string { return "exec agent-gauntlet run -c HEAD\n" },
		reused: "hookjson decision=approve\ngrep -count=1 '^asked$' calls\n"},
	{name: "result cache", interval: 0, run: func(string) string { return "exec agent-gauntlet run\n" },
		reused: "hookjson decision=approve 'message~cached'\n"},
}

// TestStopTakesNothingFromAnotherEnvironment pins the invariant: no
// verdict, interval start, cleared failure or reviewer's answer that a run
// in one environment produced is taken by a stop in an environment that
// would not produce the same result-cache key (the environment's
// variables and the review CLI programs they find, cache.EnvIdentity).
// For every environment a run by hand can have (a reviewer or a check
// tool of the agent's own first on PATH, a tool variable, the reviewer
// replaced at its path) and everything a stop reuses (the interval, a
// cleared failure, the reviewer-answer cache, the result cache), the run
// by hand passes work that fails, and the stop after it runs the real
// gate and blocks; in the unchanged environment (good work), the stop
// takes what the run by hand proved.
func TestStopTakesNothingFromAnotherEnvironment(t *testing.T) {
	dir := t.TempDir()
	for _, e := range envChanges {
		for _, r := range reuses {
			if r.reviewOnly && e.kind != "review" {
				continue
			}
			writeScript(t, dir, e.name+" "+r.name, envScript(e, r))
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// envScript is the script of environment e and reuse r.
func envScript(e envChange, r reuse) string {
	var b strings.Builder
	b.WriteString("# " + e.name + ", " + r.name + "\n")
	b.WriteString("env GAUNTLET_STOP_HOOK_ACTIVE=\nenv REALPATH=$PATH\n")
	b.WriteString("cp standin bin/claude\nchmod 755 bin/claude\nchmod 755 fake/claude\n")
	b.WriteString("cp config-" + e.kind + ".yml .gauntlet/config.yml\n")
	b.WriteString("exec sed -i s/INTERVAL/" + strconv.Itoa(r.interval) + "/ .gauntlet/config.yml\n")
	b.WriteString("exec git init -q -b main\nexec git add -A\nexec git commit -q -m base\nexec agent-gauntlet trust --yes\n")
	b.WriteString("exec git checkout -q -b work\ncp bad.txt src/bad.txt\n")
	if r.name == "reviewer answer cache" {
		// -c HEAD asks the question of the commit: the work committed
		// (good in the control)
		if e.control {
			b.WriteString("cp ok.txt src/bad.txt\n")
		}
		b.WriteString("exec git add src\nexec git commit -q -m work\n")
	}
	if r.stopFirst {
		b.WriteString("\n# a stop blocks first\nstdin stop.json\nexec agent-gauntlet stop-hook\nhookjson decision=block\n")
	}
	if e.control && r.name != "reviewer answer cache" {
		// the work fixed, the run by hand in the stop's own environment
		b.WriteString("cp ok.txt src/bad.txt\n")
	}
	b.WriteString("rm calls\n\n# the run by hand\n" + e.before + r.run(e.kind) + e.after)
	b.WriteString("\n# the stop\nstdin stop.json\nexec agent-gauntlet stop-hook\n")
	switch {
	case e.control && r.reviewOnly:
		b.WriteString("hookjson decision=approve\ngrep -count=1 '^asked$' calls\n")
	case e.control:
		b.WriteString(r.reused)
	default:
		b.WriteString("hookjson decision=block status=failed\n")
		if e.kind == "review" {
			b.WriteString("grep '^asked$' calls\n")
		}
	}
	b.WriteString(envFiles)
	return b.String()
}

// envFiles are the scripts' files: the real reviewer stand-in fails a
// diff that adds BADMARK (and counts its calls in $WORK/calls), the fake
// passes everything, the fake grep finds nothing, and the check passes
// when GOFLAGS says so, as -run=^$ empties go test.
const envFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
calls
bin/
fake/
-- calls --
-- src/a.txt --
fine
-- ok.txt --
ok
-- bad.txt --
BADMARK
-- standin --
#!/bin/sh
echo asked >> "$WORK/calls"
if grep -q '^+BADMARK' ; then
  echo '{"status":"fail","violations":[{"file":"src/bad.txt","line":1,"issue":"a BADMARK","fix":"remove it","priority":"high","status":"new"}]}'
else
  echo '{"status":"pass","message":"No problems found"}'
fi
-- fake/claude --
#!/bin/sh
cat >/dev/null
echo '{"status":"pass","message":"No problems found"}'
-- fakegrep --
#!/bin/sh
exit 1
-- bin/.keep --
-- .gauntlet/checks/nobad.yml --
command: '[ "$GOFLAGS" = "-run=none" ] || ! grep -rl BADMARK .'
-- .gauntlet/reviews/quality.md --
---
num_reviews: 1
---
Review.
-- config-check.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [nobad]
stop_hook:
  run_interval_minutes: INTERVAL
-- config-review.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    reviews: [quality]
stop_hook:
  run_interval_minutes: INTERVAL
`
