package cli

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// An execution state stands for runs before the gauntlet's own records
// (its last run opening the stop hook's interval) only in a project that
// tool could have left: one this version has never started a log
// directory in (the written-files record), nor been trusted in by a
// person (a trust record of `trust` or `init`). For every form of state
// the agent can plant (the TypeScript tool's four fields, this version's
// own with a full pass, one from the future) and every order (before the
// person's trust, after it, and no trust at all: the upgrade), a stop of a
// project with no verdict book yet and a failing check blocks, except
// where the state is genuine-looking in a project never trusted: there the
// interval applies, as it does after an upgrade.
func TestPlantedStateOpensNoInterval(t *testing.T) {
	dir := t.TempDir()
	forms := []struct{ name, execstate string }{
		{"typescript", "execstate -ts gauntlet_logs 1m"},
		{"ours", "execstate gauntlet_logs 1m"},
		{"typescript future", "execstate -ts gauntlet_logs -1h"},
	}
	orders := []struct {
		name          string
		before, after bool // plant before or after trust; neither: no trust
	}{
		{"before trust", true, false},
		{"after trust", false, true},
		{"upgrade", true, false},
	}
	for _, f := range forms {
		for _, o := range orders {
			script := legacySetup
			if o.before {
				script += f.execstate + "\n"
			}
			if o.name != "upgrade" {
				script += "exec agent-gauntlet trust --yes\n"
			}
			if o.after {
				script += f.execstate + "\n"
			}
			script += "cp bad.txt src/new.txt\nstdin stop.json\nexec agent-gauntlet stop-hook\n"
			if o.name == "upgrade" && f.name != "typescript future" {
				script += "hookjson decision=approve status=interval_not_elapsed\n"
			} else {
				script += "hookjson decision=block status=failed\n# every stop after it too\nstdin stop.json\nexec agent-gauntlet stop-hook\nhookjson decision=block\n"
			}
			writeScript(t, dir, f.name+" "+o.name, "# a "+f.name+" execution state planted "+o.name+"\n"+script+legacyFiles)
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// legacySetup makes a project with a check that fails on a marker.
const legacySetup = `env GAUNTLET_STOP_HOOK_ACTIVE=
exec git init -q -b main
exec git add -A
exec git commit -q -m base
`

// legacyFiles are the scripts' files.
const legacyFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
-- src/a.txt --
fine
-- bad.txt --
BADMARK
-- .gauntlet/checks/marker.yml --
command: "! grep -rl BADMARK ."
-- .gauntlet/config.yml --
base_branch: main
max_retries: 9
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [marker]
stop_hook:
  run_interval_minutes: 30
`
