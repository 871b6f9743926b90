package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestHandRunTellsAnUntrustedConfiguration pins the invariant: a run by
// hand (run, check, review, with or without scope flags) of a work tree
// whose .gauntlet/ is not the trusted configuration the stop hook runs
// says so on stderr, whatever the run then does (runs gates, finds no
// config.yml, refuses). The scripts cross the trusted configurations (one
// with gates; none, trusted after .gauntlet/ was removed) with the ways
// the work tree parts from them (the store that keeps the record replaced
// by a link among them), the commands, and what an earlier run
// left behind (nothing; a run interrupted or killed mid-gate). A work
// tree that is the trusted one is told nothing.
func TestHandRunTellsAnUntrustedConfiguration(t *testing.T) {
	trusted := []struct{ name, lines string }{
		{"gates", ""},
		{"no gates", "exec rm -r .gauntlet\nexec agent-gauntlet trust --yes\n"},
	}
	// changes: the lines that part the work tree from the trusted
	// configuration, and whether they do under each trusted one.
	changes := []struct {
		name, lines    string
		gates, noGates bool
	}{
		{"nothing", "", false, false},
		{"check file added", "mkdir .gauntlet/checks\ncp extra.yml .gauntlet/checks/extra.yml\n", true, true},
		{"helper script added", "mkdir .gauntlet\ncp gate.sh .gauntlet/helper.sh\n", true, true},
		{"check weakened", "mkdir .gauntlet/checks\ncp extra.yml .gauntlet/checks/lint.yml\n", true, true},
		{"config.yml removed", "exec rm -f .gauntlet/config.yml\n", true, false},
		{"everything removed", "exec rm -rf .gauntlet\n", true, false},
		{"configuration written", "mkdir .gauntlet/checks\ncp config.yml .gauntlet/config.yml\ncp extra.yml .gauntlet/checks/lint.yml\n", true, true},
		// The person's record moved away with the store, a link in its
		// place: what the run uses is not known to be the trusted one.
		{"store replaced by a link", storeLinked, true, true},
		{"check weakened and committed, store replaced by a link", "mkdir .gauntlet/checks\ncp extra.yml .gauntlet/checks/lint.yml\n" +
			"exec git add .gauntlet/checks/lint.yml\nexec git commit -q -m weaken\n" + storeLinked, true, true},
		{"everything removed and committed, store replaced by a link", "exec rm -rf .gauntlet\nexec git add -A\n" +
			"exec git commit -q --allow-empty -m remove\n" + storeLinked, true, true},
	}
	commands := []string{"run", "check", "review", "run -u", "check -g lint"}
	earlier := []struct{ name, lines string }{
		{"no earlier run", ""},
		{"interrupted run", interruptedRun("INT")},
		{"killed run", interruptedRun("KILL")},
	}
	dir := t.TempDir()
	for _, tr := range trusted {
		for _, ch := range changes {
			differs := ch.gates
			if tr.name == "no gates" {
				differs = ch.noGates
			}
			if tr.name == "gates" && ch.name == "configuration written" {
				continue // the trusted one again
			}
			for _, e := range earlier {
				var b strings.Builder
				fmt.Fprintf(&b, "# trusted %s, %s, after %s\n%s%s%s%s", tr.name, ch.name, e.name, untrustedSetup, e.lines, tr.lines, ch.lines)
				for _, cmd := range commands {
					fmt.Fprintf(&b, "\n# agent-gauntlet %s\nexec sh -c 'agent-gauntlet %s; true'\n", cmd, cmd)
					if differs {
						b.WriteString("stderr '" + toldUntrusted + "'\n")
					} else {
						b.WriteString("! stderr '" + toldUntrusted + "'\n")
					}
				}
				b.WriteString(untrustedFiles)
				writeScript(t, dir, tr.name+" "+ch.name+" "+e.name, b.String())
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// toldUntrusted is what a run says of a configuration that is not the
// trusted one: how it differs, or that the record cannot be read.
const toldUntrusted = `differs from the trusted one|trusted configuration record cannot be used`

// storeLinked is the lines that move the gauntlet's store (and the record
// in it) away and put a link to another directory in its place.
const storeLinked = "mkdir $WORK/elsewhere\nexec mv .git/agent-gauntlet $WORK/moved-store\nsymlink .git/agent-gauntlet -> $WORK/elsewhere\n"

// interruptedRun is the lines of a run of the trusted configuration that
// signal sig ends while its gate runs.
func interruptedRun(sig string) string {
	return `exec touch slow
! exec agent-gauntlet run &runner&
exec sh -c 'i=0; while [ ! -f started ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; test -f started'
kill -` + sig + ` runner
wait runner
exec touch release
rm slow
rm started
`
}

// untrustedSetup commits and trusts the configuration, with a change under
// src for the gates to look at.
const untrustedSetup = `exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec agent-gauntlet trust --yes
cp new.txt src/new.txt
`

// untrustedFiles are the scripts' files.
const untrustedFiles = `
-- .gitignore --
gauntlet_logs/
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
-- config.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [lint]
-- extra.yml --
command: "true"
-- gate.sh --
if [ -f slow ]; then
  touch started
  i=0
  while [ ! -f release ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
fi
echo lint ok
-- src/main.txt --
hello
-- new.txt --
new
`
