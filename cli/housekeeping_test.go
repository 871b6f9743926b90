package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestHousekeepingWhateverTheConfiguration pins the invariant: in a
// gauntlet project (a trusted record, or a .gauntlet/config.yml committed
// at HEAD or in the work tree), the commands a person runs to look or to
// tidy up, which run no gate, work whatever the configurations look like.
// clean exits 0 however the configuration in force (the trusted record's,
// else HEAD's) and the work tree's are broken, missing, empty or without
// gates; when the one in force does not load it says so and which
// configuration's log directory it archived, and it never moves or
// deletes a person's file there. cache clear exits 0. detect, which lists
// what a run by hand of the work tree's configuration would run, exits 0
// when that configuration loads and otherwise exits 2 naming the file. The
// scripts cross the recorded configurations with the ways the work tree's
// parts from them and what an earlier run left (its logs; the lock of a
// run killed mid-gate, which clean takes over).
func TestHousekeepingWhateverTheConfiguration(t *testing.T) {
	// recorded: how the configuration in force stands, and whether it
	// loads (clean then needs no fallback).
	recorded := []struct {
		name, lines string
		loads       bool
	}{
		{"record with gates", "exec git commit -q -m base\nexec agent-gauntlet trust --yes\n", true},
		{"record without gates", "exec git commit -q -m base\nexec mv .gauntlet $WORK/keep\nexec agent-gauntlet trust --yes\nexec mv $WORK/keep .gauntlet\n", false},
		{"record that does not load", "cp broken-check.yml .gauntlet/checks/lint.yml\nexec git add -A\nexec git commit -q -m base\nstdin stop.json\nexec agent-gauntlet stop-hook\ncp lint.yml .gauntlet/checks/lint.yml\n", false},
		{"record whose config.yml does not load", "cp broken-config.yml .gauntlet/config.yml\nexec git add -A\nexec git commit -q -m base\nstdin stop.json\nexec agent-gauntlet stop-hook\ncp config.yml .gauntlet/config.yml\n", false},
		{"no record HEAD loads", "exec git commit -q -m base\n", true},
		{"no record HEAD does not load", "cp broken-check.yml .gauntlet/checks/lint.yml\nexec git add -A\nexec git commit -q -m base\ncp lint.yml .gauntlet/checks/lint.yml\n", false},
	}
	// workTree: how the work tree's configuration parts from it, and
	// whether it then loads.
	workTree := []struct {
		name, lines string
		loads       bool
	}{
		{"unchanged", "", true},
		{"config.yml removed", "rm .gauntlet/config.yml\n", false},
		{"gauntlet removed", "exec rm -r .gauntlet\n", false},
		{"config.yml invalid YAML", "cp broken-config.yml .gauntlet/config.yml\n", false},
		{"config.yml empty", "cp empty.yml .gauntlet/config.yml\n", false},
		{"config.yml invalid log_dir", "cp bad-logdir.yml .gauntlet/config.yml\n", false},
		{"check file duplicate key", "cp broken-check.yml .gauntlet/checks/lint.yml\n", false},
		{"log_dir moved", "cp moved-config.yml .gauntlet/config.yml\n", true},
	}
	earlier := []struct{ name, lines string }{
		{"no earlier run", ""},
		{"earlier run", "! exec agent-gauntlet run\nexists gauntlet_logs/console.1.log\n"},
		{"killed run", interruptedRun("KILL") + "exists gauntlet_logs/.gauntlet-run.lock\n"},
	}
	dir := t.TempDir()
	for _, r := range recorded {
		for _, w := range workTree {
			for _, e := range earlier {
				var b strings.Builder
				fmt.Fprintf(&b, "# %s, work tree %s, %s\n", r.name, w.name, e.name)
				b.WriteString("exec git init -q -b main\nexec git add -A\n" + r.lines)
				b.WriteString("cp fail.txt src/fail.txt\n" + e.lines)
				b.WriteString("mkdir gauntlet_logs\ncp mine.txt gauntlet_logs/mine.txt\n" + w.lines)

				b.WriteString("\n# clean exits 0, twice, and keeps the person's file\n")
				for range 2 {
					b.WriteString("exec agent-gauntlet clean\nstdout '^Project: '\n")
					if r.loads {
						b.WriteString("! stderr 'does not load|has no gates'\n")
					} else {
						b.WriteString("stderr 'does not load|has no gates'\nstderr 'clean archives the log directory'\n")
					}
					b.WriteString("cmp gauntlet_logs/mine.txt mine.txt\n")
				}
				// The earlier run wrote gauntlet_logs; only a work tree's
				// log_dir read when the one in force does not load moves it.
				if r.loads || w.name != "log_dir moved" {
					b.WriteString("stdout 'logs in .*gauntlet_logs\\)$'\n")
					if e.name == "earlier run" {
						b.WriteString("! exists gauntlet_logs/console.1.log\nexists gauntlet_logs/previous/console.1.log\n")
					}
					b.WriteString("! exists gauntlet_logs/.gauntlet-run.lock\n")
				}

				b.WriteString("\n# cache clear exits 0\nexec agent-gauntlet cache clear\n")
				b.WriteString("\n# detect: the work tree's configuration, or a usage error naming it\n")
				if w.loads {
					b.WriteString("exec agent-gauntlet detect\n")
				} else {
					b.WriteString("! exec agent-gauntlet detect\nstderr '\\.gauntlet/'\n")
				}
				b.WriteString(housekeepingFiles)
				writeScript(t, dir, r.name+" "+w.name+" "+e.name, b.String())
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// housekeepingFiles are the scripts' files: a project whose lint check
// fails on src/fail.txt, and the broken variants of its files.
const housekeepingFiles = `
-- .gitignore --
gauntlet_logs/
other_logs/
-- src/a.txt --
a
-- fail.txt --
FAIL
-- mine.txt --
a person's notes
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gauntlet/config.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [lint]
-- .gauntlet/checks/lint.yml --
command: sh gate.sh
working_directory: .
timeout: 60
-- config.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [lint]
-- lint.yml --
command: sh gate.sh
working_directory: .
timeout: 60
-- gate.sh --
if [ -f slow ]; then
  touch started
  i=0
  while [ ! -f release ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
fi
! grep -rq FAIL src
-- moved-config.yml --
base_branch: main
log_dir: other_logs
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [lint]
-- broken-check.yml --
command: "true"
timeout: 60
timeout: 61
-- broken-config.yml --
base_branch: main
base_branch: other
entry_points: [
-- bad-logdir.yml --
base_branch: main
log_dir: /absolute
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [lint]
-- empty.yml --
`
