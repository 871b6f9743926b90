package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestHandRunOfUntrustedGatesStartsNoInterval pins the invariant: the
// stop hook's interval approves only after a full pass of gates someone
// trusted (a trust record, or the configuration committed at HEAD that a
// project without records adopts), or a stop's own pass. A run by hand of
// a configuration nobody trusted (no record and nothing committed to
// stand in: before the first commit, or with no .gauntlet/ at HEAD), or
// of a work tree whose configuration differs from the trusted one, is the
// agent's own word on gates it wrote: its pass is no full pass of the
// gates in force, so the stop after it runs them (and here blocks on the
// failure the agent made since). The scripts cross how the configuration
// stands to trust with the runs by hand (a partial run never starts the
// interval either way) and what an earlier run left (nothing; a run
// interrupted or killed mid-gate).
func TestHandRunOfUntrustedGatesStartsNoInterval(t *testing.T) {
	// standings: the lines that set the project up, and whether its
	// configuration is then one someone trusted.
	standings := []struct {
		name, lines string
		trusted     bool
	}{
		{"no commit, no record", "", false},
		{"no configuration at HEAD, no record", "exec git add src .gitignore gate.sh\nexec git commit -q -m base\n", false},
		{"no commit, trusted", "exec agent-gauntlet trust --yes\n", true},
		{"committed, no record", "exec git add -A\nexec git commit -q -m base\n", true},
		{"committed, trusted", "exec git add -A\nexec git commit -q -m base\nexec agent-gauntlet trust --yes\n", true},
		{"trusted, work tree differs", "exec git add -A\nexec git commit -q -m base\nexec agent-gauntlet trust --yes\nexec sh -c 'echo \\# edited >> .gauntlet/config.yml'\n", false},
	}
	runs := []struct {
		name string
		full bool
	}{{"run", true}, {"run -u", false}, {"check", false}}
	earlier := []struct{ name, lines string }{
		{"no earlier run", ""},
		{"interrupted run", interruptedRun("INT")},
		{"killed run", interruptedRun("KILL")},
	}
	dir := t.TempDir()
	for _, s := range standings {
		for _, r := range runs {
			for _, e := range earlier {
				var b strings.Builder
				fmt.Fprintf(&b, "# %s, %s, after %s\nexec git init -q -b main\n%scp new.txt src/new.txt\n%s", s.name, r.name, e.name, s.lines, e.lines)
				fmt.Fprintf(&b, "\n# the run by hand passes\nexec agent-gauntlet %s\n", r.name)
				b.WriteString("\n# the agent breaks a file, then stops\ncp bad.txt src/bad.txt\nstdin stop.json\nexec agent-gauntlet stop-hook\n")
				if s.trusted && r.full {
					b.WriteString("hookjson decision=approve status=interval_not_elapsed 'message~Not verified'\n")
				} else {
					b.WriteString("! stdout interval_not_elapsed\nhookjson decision=block\n")
				}
				b.WriteString(unvouchedFiles)
				writeScript(t, dir, s.name+" "+r.name+" "+e.name, b.String())
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// unvouchedFiles are the scripts' files: one check over src that fails on
// bad.txt, and waits while the file slow exists (interruptedRun); new.txt
// is the change every run judges.
const unvouchedFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
-- .gauntlet/config.yml --
base_branch: main
max_retries: 9
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [lint]
stop_hook:
  run_interval_minutes: 30
-- .gauntlet/checks/lint.yml --
command: sh gate.sh
working_directory: .
-- gate.sh --
if [ -f slow ]; then
  touch started
  i=0
  while [ ! -f release ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
fi
! test -f src/bad.txt
-- src/main.txt --
hello
-- bad.txt --
bad
-- new.txt --
new
`
