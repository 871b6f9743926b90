package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// personSetup is one way a directory can hold a log directory: the rows
// of TestNoCommandLosesAPersonsFile.
type personSetup struct {
	name string
	// lines make the setup (testscript lines), after git init.
	lines string
	// stay: this version ran here before the person's files came, so none
	// of them is an earlier run's: each stays where it is, as it is.
	stay bool
}

var personSetups = []personSetup{
	{name: "no project", lines: "rm .gauntlet\n"},
	{name: "upgraded with TypeScript state", lines: "exec git add -A\nexec git commit -q -m init\n" + tsState},
	{name: "upgraded without state", lines: "exec git add -A\nexec git commit -q -m init\n"},
	{name: "trusted never run", lines: "exec git add -A\nexec git commit -q -m init\n" + tsState + "exec agent-gauntlet trust --yes\n"},
	{name: "trusted and run", lines: trustedAndRun, stay: true},
	// The record of the files the gauntlet wrote deleted (adversarial
	// round 18, B2): whole, or its file alone (its lock left).
	{name: "run then record deleted", lines: trustedAndRun + "rm .git/agent-gauntlet/written\n", stay: true},
	{name: "run then record file deleted", lines: trustedAndRun + "exec sh -c 'rm .git/agent-gauntlet/written/*.json'\n", stay: true},
	// With the verdict book deleted too (adversarial round 19, B9).
	{name: "run then record and book deleted", lines: trustedAndRun + "rm .git/agent-gauntlet/written\nrm .git/agent-gauntlet/verdicts\n", stay: true},
}

// trustedAndRun makes a trusted project that ran once.
const trustedAndRun = "exec git add -A\nexec git commit -q -m init\nexec agent-gauntlet trust --yes\n" +
	"cp one src/run.txt\nexec agent-gauntlet run\n"

// tsState is the TypeScript tool's execution state and console log, of a
// run that ended two hours ago.
const tsState = "execstate -ts gauntlet_logs 2h\n" +
	"exec sh -c 'echo ts console > gauntlet_logs/console.1.log; touch -d \"-3 hours\" gauntlet_logs/console.1.log; touch -d \"-2 hours\" gauntlet_logs/.execution_state'\n"

// personCommands are the commands run in each setup (each may fail).
var personCommands = []string{"clean", "run", "stop-hook", "check", "review"}

// personPlaces and personNames are where a person's files go: every place
// of the log directory, under names the gauntlet gives its logs and one
// of the person's own.
var (
	personPlaces = []string{".", "previous", "previous/previous", "commit"}
	personNames  = []string{"console.7.log", "check_src_c.3.log", "review_src_q_claude@1.3.json", "notes.txt"}
)

// The invariant: no command ever deletes or writes over a file the
// gauntlet did not write. For each setup (no project; an upgraded project
// with or without the TypeScript tool's state; trusted and never run;
// trusted and run, with the record of the files it wrote deleted or not),
// a person's files in the log directory's root, previous/,
// previous/previous/ and commit/, under log names and their own, dated
// before the last run and after it, survive every command (clean, run,
// stop-hook, check, review) run twice: every byte a person wrote is still
// somewhere in the project (adopted files may be moved or renamed
// .adopted; nothing is deleted), and where this version ran before the
// files came, each is where it was: none is taken for an earlier run's.
func TestNoCommandLosesAPersonsFile(t *testing.T) {
	dir := t.TempDir()
	for _, s := range personSetups {
		for _, cmd := range personCommands {
			name := strings.NewReplacer(" ", "_").Replace(s.name) + "__" + strings.ReplaceAll(cmd, "-", "_") + ".txtar"
			if err := os.WriteFile(filepath.Join(dir, name), []byte(personScript(s, cmd)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// personScript is the testscript of the setup s and the command cmd.
func personScript(s personSetup, cmd string) string {
	var b, files strings.Builder
	var stays []string
	b.WriteString("env GAUNTLET_STOP_HOOK_ACTIVE=\nexec git init -q -b main\n")
	b.WriteString(s.lines)
	b.WriteString("\n# a person's files, old and new, in every place of the log directory\n")
	n := 0
	for _, pl := range personPlaces {
		for _, name := range personNames {
			for _, age := range []string{"2026-01-01", "-1 minute"} {
				n++
				p := filepath.ToSlash(filepath.Join("gauntlet_logs", pl, name))
				if age != "2026-01-01" { // a later run number, or a name of its own
					p = filepath.ToSlash(filepath.Join("gauntlet_logs", pl, strings.Replace(name, ".", ".9", 1)))
				}
				fmt.Fprintf(&b, "exec sh -c 'mkdir -p %s && echo person-%d > %s && touch -d \"%s\" %s'\n",
					filepath.Dir(p), n, p, age, p)
				stays = append(stays, fmt.Sprintf("grep -qx person-%d %s || echo moved %s", n, p, p))
			}
		}
	}
	b.WriteString("\n# " + cmd + ", twice: every person's byte is still in the project\n")
	for range 2 {
		if cmd == "stop-hook" {
			b.WriteString("stdin stop.json\n")
		}
		fmt.Fprintf(&b, "exec sh -c 'agent-gauntlet %s >/dev/null 2>&1; true'\n", cmd)
		fmt.Fprintf(&b, "exec sh -c 'for i in $(seq 1 %d); do grep -rqx \"person-$i\" --exclude-dir=.git . || echo lost person-$i; done'\n! stdout lost\n", n)
		if s.stay {
			fmt.Fprintf(&b, "exec sh -c '%s'\n! stdout moved\n", strings.Join(stays, "; "))
		}
	}
	files.WriteString(personFiles)
	return b.String() + "\n" + files.String()
}

// personFiles are the project every setup starts from.
const personFiles = `-- .gitignore --
gauntlet_logs/
-- one --
1
-- src/x --
x
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gauntlet/config.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [c]
-- .gauntlet/checks/c.yml --
command: "true"
`
