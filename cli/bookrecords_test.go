package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestBookOutlivesRecords is the fault table of the records around a
// verdict book. Invariant: once a stop was blocked for a failing gate, a
// later stop that approves while that gate still fails names it, whatever
// else of the gauntlet's records is gone: the book, the gauntlet's own
// account of what failed, is enough. The agent ends the project's
// configuration (deletes .gauntlet/ or moves it into src/, committed on
// main, so HEAD holds none at the top) and deletes, in every combination,
// the trust record, the records of the projects judged from here (reach),
// the per-user session record and the log directory.
func TestBookOutlivesRecords(t *testing.T) {
	ends := map[string]string{
		"deleted": "exec git rm -rq .gauntlet\n",
		"moved":   "exec git mv .gauntlet src/.gauntlet\n",
	}
	deletions := []struct{ name, cmd string }{
		{"trust", "rm .git/agent-gauntlet/trust\n"},
		{"reach", "rm .git/agent-gauntlet/reach\n"},
		{"session", "rm $HOME/.local/state/agent-gauntlet\n"},
		{"logs", "rm gauntlet_logs\n"},
	}
	dir := t.TempDir()
	for end, cmd := range ends {
		for mask := range 1 << len(deletions) {
			var names []string
			script := bookSetup + cmd + "exec git commit -q -m 'end the gates'\n"
			for i, d := range deletions {
				if mask&(1<<i) != 0 {
					names = append(names, d.name)
					script += d.cmd
				}
			}
			script += "stdin stop.json\nexec agent-gauntlet stop-hook\n" +
				"# an approve names the gate, a block is no approve\n" +
				"stdout '\"decision\":\"block\"|check:src:nobad'\n" + bookFiles
			writeScript(t, dir, fmt.Sprintf("book_%s_%s", end, strings.Join(append([]string{"none"}, names...), "_")), script)
		}
	}
	// Before any stop there is no book: the baseline a person's trust
	// recorded says a configuration was trusted there (adversarial round
	// 19, B2).
	before := strings.Replace(bookSetup, "stdin stop.json\nexec agent-gauntlet stop-hook\nstdout '\"decision\":\"block\"'\n", "", 1)
	writeScript(t, dir, "book_deleted_before_any_stop", before+ends["deleted"]+"exec git commit -q -m 'end the gates'\n"+
		deletions[0].cmd+"stdin stop.json\nexec agent-gauntlet stop-hook\n"+
		"stdout '\"decision\":\"block\"|configuration\\(s\\) a person trusted in this repository'\n"+bookFiles)
	testscript.Run(t, ScriptParams(dir))
}

// bookSetup is a trusted project whose check fails on the agent's change,
// stopped once (a block).
const bookSetup = `exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec agent-gauntlet trust --yes
cp bad.txt src/a.txt
stdin stop.json
exec agent-gauntlet stop-hook
stdout '"decision":"block"'
`

// bookFiles are the files of every script.
const bookFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- bad.txt --
BAD
-- src/a.txt --
ok
-- .gitignore --
/gauntlet_logs/
-- .gauntlet/config.yml --
base_branch: main
log_dir: gauntlet_logs
max_retries: 2
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks:
      - nobad
-- .gauntlet/checks/nobad.yml --
command: "! grep -rq BAD ."
`
