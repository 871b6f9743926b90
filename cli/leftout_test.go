package cli

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// leaving is a way a configured gate that applies to the agent's change
// is left out of the run: one row of TestLeftOutGateStaysPending.
type leaving struct {
	// name names it; leave are the testscript lines that leave the gate
	// check:src:strict out, restore those that put back what it needs.
	name, leave, restore string
}

// leavings are the reasons a run leaves an applicable gate out: its
// working directory gone (inside its entry point), its entry point's
// directory moved away or deleted, its entry point taken off the disk by a
// sparse checkout.
var leavings = []leaving{
	{name: "working directory deleted", leave: "rm src/sub/keep.txt\nrm src/sub", restore: "exec git checkout -q -- src/sub"},
	{name: "entry point moved away", leave: "exec git mv src lib", restore: "exec git mv lib src"},
	{name: "entry point deleted", leave: "exec git rm -q -r --cached src\nexec sh -c 'mv src $WORK/src.away'", restore: "exec sh -c 'mv $WORK/src.away src && git add src'"},
	{name: "sparse checkout", leave: "exec git add -A\nexec git commit -q -m work\nexec git sparse-checkout set --no-cone '/*' '!/src/'", restore: "exec git sparse-checkout disable"},
}

// A gate that applies to the change and did not run is never counted as
// passed: for every reason a run leaves an applicable gate out, with the
// gate's failure pending from an earlier stop or not, with another gate
// that runs and passes or with none, every stop blocks or approves saying
// "Not verified" and naming the gate, never "every gate passed"; a pending failure of it stays
// pending (the answer's "pending" lists it, stop after stop); once what
// it needs is back, it runs and blocks on the change it never judged.
func TestLeftOutGateStaysPending(t *testing.T) {
	dir := t.TempDir()
	for _, l := range leavings {
		for _, pending := range []bool{false, true} {
			for _, others := range []bool{false, true} {
				name := l.name
				if pending {
					name += " pending"
				}
				if others {
					name += " with other gates"
				}
				script := "# " + name + "\n" + leftOutSetup
				if pending {
					script += "\n# the first stop finds the failure\nstdin stop.json\nexec agent-gauntlet stop-hook\nhookjson decision=block 'pending~check:src:strict'\n"
				}
				if others {
					script += "cp other/o.txt other/more.txt\n"
				}
				check := "blockedortold 'check:src:strict'\nhookjson 'message!~every gate passed'\n"
				if pending {
					check += "hookjson 'pending~check:src:strict'\n"
				}
				stop := "stdin stop.json\nexec agent-gauntlet stop-hook\n"
				script += "\n# the gate left out\n" + l.leave + "\n" + stop + check + stop + check +
					"\n# put back, it runs\n" + l.restore + "\n" + stop + "hookjson decision=block 'reason~check:src:strict'\n" + leftOutFiles
				writeScript(t, dir, name, script)
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// leftOutSetup makes the project: src's check strict works in src/sub and
// fails on a marker anywhere in src, its check loose passes; other's check
// passes. The agent's change puts the marker in src.
const leftOutSetup = `env GAUNTLET_STOP_HOOK_ACTIVE=
exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec agent-gauntlet trust --yes
exec git checkout -q -b work
cp bad.txt src/a.txt
`

// leftOutFiles are the scripts' files.
const leftOutFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
-- src/a.txt --
fine
-- src/sub/keep.txt --
kept
-- other/o.txt --
other
-- bad.txt --
BADMARK
-- .gauntlet/checks/strict.yml --
command: "! grep -r BADMARK .."
working_directory: src/sub
-- .gauntlet/checks/loose.yml --
command: "true"
-- .gauntlet/checks/fine.yml --
command: "true"
-- .gauntlet/config.yml --
base_branch: main
max_retries: 9
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [strict, loose]
  - path: other
    checks: [fine]
stop_hook:
  run_interval_minutes: 0
`
