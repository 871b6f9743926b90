package cli

import (
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// retrust is a change of the agent's own gates, committed and re-trusted
// with `agent-gauntlet trust --yes` before any stop could see it.
type retrust struct{ name, edit string }

// retrusts are the changes: a weakened check, and an edit that weakens
// nothing (a comment) but moves the record's commit.
var retrusts = []retrust{
	{name: "weakened check", edit: "cp $WORK/weak.yml .gauntlet/checks/marker.yml"},
	{name: "config comment", edit: "exec sh -c 'echo \\# a note >> .gauntlet/config.yml'"},
}

// baselineWhere is where the agent works when it re-trusts: what came
// before (setup), in which directory.
type baselineWhere struct{ name, setup string }

// baselineWheres are the places: a project trusted before its first
// commit, the agent working on main; a project whose first stop follows
// the re-trust, on a branch; and a new `git worktree` of a project judged
// in its main work tree.
var baselineWheres = []baselineWhere{
	{name: "trusted before the first commit", setup: "exec git init -q -b main\nexec agent-gauntlet trust --yes\nexec git add -A\nexec git commit -q -m base\n"},
	{name: "before the project's first stop", setup: "exec git init -q -b main\nexec git add -A\nexec git commit -q -m base\n" +
		"exec agent-gauntlet trust --yes\nexec git checkout -q -b work\n"},
	{name: "in a new worktree", setup: "exec git init -q -b main\nexec git add -A\nexec git commit -q -m base\n" +
		"exec agent-gauntlet trust --yes\nstdin stop.json\nexec agent-gauntlet stop-hook\nhookjson decision=approve\n" +
		"exec git worktree add -q -b work $WORK/wt\ncd $WORK/wt\n"},
}

// A re-trust the agent runs before a stop could see its change (the
// project's first stop, or the first stop of a new work tree) is told, or
// the work it committed blocks: the trusted configuration a stop compares
// with is the one a stop of the project last ran with in any work tree,
// or, before any stop, the first one trusted; and the commit a record
// names as where the agent's work starts never moves past commits no stop
// judged. For every change of the agent's gates and every place, the
// agent commits a file the check fails on, changes its gates, commits,
// runs `trust --yes`, and stops: the answer blocks, or says the trusted
// configuration changed or that the commits up to HEAD are not verified.
func TestRetrustBeforeFirstStopIsTold(t *testing.T) {
	dir := t.TempDir()
	for _, w := range baselineWheres {
		for _, r := range retrusts {
			writeScript(t, dir, "retrust "+r.name+" "+w.name, "# "+r.name+", re-trusted "+w.name+"\n"+
				"env GAUNTLET_STOP_HOOK_ACTIVE=\n"+w.setup+
				"\n# the agent's work, then its gates changed and re-trusted\n"+
				"cp $WORK/bad.txt src/bad.txt\nexec git add -A\nexec git commit -q -m work\n"+
				r.edit+"\nexec git commit -q -am gates\nexec agent-gauntlet trust --yes\n"+
				"stdin $WORK/stop.json\nexec agent-gauntlet stop-hook\n"+
				"blockedortold -any 'The trusted configuration changed|up to HEAD'\n"+
				"stdin $WORK/stop2.json\nexec agent-gauntlet stop-hook\n"+
				"blockedortold -any 'The trusted configuration changed|up to HEAD'\n"+baselineFiles)
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// In a repository of two trusted projects, an ignore rule that hides a
// file in one of them, seen first by a stop of the other, is told at
// every stop that judges the one it hides the file in, in every session:
// that project's first stop compares with the rules recorded when it was
// trusted. For every ignore file the rule can be in.
func TestIgnoreRuleToldToTheProjectItHides(t *testing.T) {
	dir := t.TempDir()
	for _, h := range hidings[:8] { // the ignore rules; sparse checkouts and index flags are judged alike in any project
		hide := strings.NewReplacer("src/FILE", "app/src/new.txt", "FILE", "new.txt", "src/", "app/src/").Replace(h.hide)
		writeScript(t, dir, "sibling "+h.name, "# "+h.name+", seen first by the other project\n"+
			"env GAUNTLET_STOP_HOOK_ACTIVE=\nexec git init -q -b main\nexec git add -A\nexec git commit -q -m base\n"+
			"cd app\nexec agent-gauntlet trust --yes\ncd ../lib\nexec agent-gauntlet trust --yes\n"+
			"exec git checkout -q -b work\nstdin $WORK/stop.json\nexec agent-gauntlet stop-hook\nhookjson decision=approve\n"+
			"cd $WORK\ncp bad.txt app/src/new.txt\n"+hide+"\n"+
			"cd lib\nstdin $WORK/stop.json\nexec agent-gauntlet stop-hook\n"+
			"cd ../app\nstdin $WORK/stop.json\nexec agent-gauntlet stop-hook\nblockedortold '"+h.rule+"'\n"+
			"stdin $WORK/stop2.json\nexec agent-gauntlet stop-hook\nblockedortold '"+h.rule+"'\n"+siblingFiles)
	}
	testscript.Run(t, ScriptParams(dir))
}

// A project trusted by an older version has no baseline (the baseline
// record is gone): its first stop in a work tree compares the ignore rules
// with those HEAD's commit stands for (its .gitignore files, no rule
// outside the work tree), and a re-trust before it is compared with the
// record it replaced. For an ignore rule hiding the agent's file, and for
// weakened gates re-trusted, the first stop blocks or tells.
func TestNoBaselineIsSaid(t *testing.T) {
	dir := t.TempDir()
	for name, attack := range map[string]struct{ do, told string }{
		"ignore rule": {do: "cp $WORK/bad.txt src/bad.txt\nexec sh -c 'echo bad.txt > src/.gitignore && echo src/.gitignore >> .git/info/exclude'\n",
			told: "compared with the .gitignore files committed at HEAD.*Not verified: .*the files that .*info/exclude.*src/.gitignore newly hide from git"},
		"re-trust": {do: "cp $WORK/bad.txt src/bad.txt\nexec git add -A\nexec git commit -q -m work\n" + retrusts[0].edit +
			"\nexec git commit -q -am gates\nexec agent-gauntlet trust --yes\n", told: "The trusted configuration changed"},
	} {
		writeScript(t, dir, "no baseline "+name, "# "+name+" before the first stop of a project an older version trusted\n"+
			"env GAUNTLET_STOP_HOOK_ACTIVE=\nexec git init -q -b main\nexec git add -A\nexec git commit -q -m base\n"+
			"exec agent-gauntlet trust --yes\nrm .git/agent-gauntlet/baseline\nexec git checkout -q -b work\n"+attack.do+
			"stdin $WORK/stop.json\nexec agent-gauntlet stop-hook\nblockedortold -any '"+attack.told+"'\n"+baselineFiles)
	}
	testscript.Run(t, ScriptParams(dir))
}

// baselineFiles are TestRetrustBeforeFirstStopIsTold's files.
const baselineFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- stop2.json --
{"hook_event_name":"Stop","session_id":"s2","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
-- src/a.txt --
fine
-- bad.txt --
BADMARK
-- weak.yml --
command: "true"
-- .gauntlet/checks/marker.yml --
command: "! grep -rq BADMARK ."
-- .gauntlet/config.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [marker]
stop_hook:
  run_interval_minutes: 0
`

// siblingFiles are TestIgnoreRuleToldToTheProjectItHides's files.
const siblingFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- stop2.json --
{"hook_event_name":"Stop","session_id":"s2","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
-- app/src/a.txt --
fine
-- lib/src/a.txt --
fine
-- bad.txt --
BADMARK
-- app/.gauntlet/checks/marker.yml --
command: "! grep -rq BADMARK ."
-- app/.gauntlet/config.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [marker]
stop_hook:
  run_interval_minutes: 0
-- lib/.gauntlet/checks/marker.yml --
command: "! grep -rq BADMARK ."
-- lib/.gauntlet/config.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [marker]
stop_hook:
  run_interval_minutes: 0
`
