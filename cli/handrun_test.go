package cli

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// handRun is a run by hand the gated agent can make before it stops, over
// work no run judged: one row of TestHandRunHidesNothingFromTheInterval.
type handRun struct {
	// name names it; work are the testscript lines that leave the broken
	// file (bad.txt) unjudged, run the lines of the run.
	name, work, run string
}

// workOnMain commits the broken file on the base branch, with a harmless
// uncommitted change beside it: a run by hand has no start point to
// anchor the commit.
const workOnMain = "cp bad.txt src/bad.txt\nexec git add src\nexec git commit -q -m bad\ncp ok.txt src/ok.txt\n"

// workUncommitted leaves the broken file uncommitted on a branch with a
// harmless commit of its own.
const workUncommitted = "exec git checkout -q -b work\ncp ok.txt src/ok.txt\nexec git add src\nexec git commit -q -m ok\ncp bad.txt src/bad.txt\n"

// workCommitted commits the broken file on a branch, with a harmless
// uncommitted change beside it.
const workCommitted = "exec git checkout -q -b work\ncp bad.txt src/bad.txt\nexec git add src\nexec git commit -q -m bad\ncp ok.txt src/ok.txt\n"

// handRuns are the runs: a full local run over commits of the base no
// point anchors, CI-mode runs (committed work alone), runs narrowed by
// flags (-u, -g, -b) and check.
var handRuns = []handRun{
	{name: "run over unanchored base commits", work: workOnMain, run: "exec agent-gauntlet run"},
	{name: "CI run", work: workUncommitted, run: "env CI=true\nexec sh -c 'agent-gauntlet run; true'\nenv CI="},
	{name: "GitHub Actions run", work: workUncommitted, run: "env GITHUB_ACTIONS=true\nexec sh -c 'agent-gauntlet run; true'\nenv GITHUB_ACTIONS="},
	{name: "run -u", work: workCommitted, run: "exec sh -c 'agent-gauntlet run -u; true'"},
	{name: "run -g", work: workUncommitted, run: "exec sh -c 'agent-gauntlet run -g other; true'"},
	{name: "run -b HEAD", work: workCommitted, run: "exec sh -c 'agent-gauntlet run -b HEAD; true'"},
	{name: "check", work: workUncommitted, run: "exec sh -c 'agent-gauntlet check -g other; true'"},
}

// A run by hand starts the stop hook's run interval only over what it
// verified, and says what it could not look at in every approve of the
// interval it starts: for every run by hand the agent can make over work
// no run judged (a broken file), the stops after it, inside the interval
// such a run could start, block or approve saying "Not verified".
func TestHandRunHidesNothingFromTheInterval(t *testing.T) {
	dir := t.TempDir()
	for _, r := range handRuns {
		stop := "stdin stop.json\nexec agent-gauntlet stop-hook\nblockedortold .\n"
		script := "# " + r.name + "\n" + handRunSetup + r.work + "\n# the run by hand\n" + r.run + "\n\n# the stops\n" + stop + stop + handRunFiles
		writeScript(t, dir, r.name, script)
	}
	testscript.Run(t, ScriptParams(dir))
}

// handRunSetup makes the project, with a run interval of 30 minutes.
const handRunSetup = `env GAUNTLET_STOP_HOOK_ACTIVE=
exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec agent-gauntlet trust --yes
`

// handRunFiles are the scripts' files.
const handRunFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
-- src/a.txt --
fine
-- ok.txt --
ok
-- bad.txt --
BADMARK
-- .gauntlet/checks/nobad.yml --
command: "! grep -l BADMARK ${CHANGED_FILES}"
-- .gauntlet/checks/other.yml --
command: "true"
-- .gauntlet/config.yml --
base_branch: main
max_retries: 9
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [nobad, other]
stop_hook:
  run_interval_minutes: 30
`
