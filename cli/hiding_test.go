package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// hiding is a way the gated agent can hide a file under an entry point
// from git's view (and so from change detection): one column of
// TestHidingIsToldOrBlocked.
type hiding struct {
	// name names it; hide are the testscript lines that hide src/<file>
	// (FILE stands for its name), run after the change.
	name, hide string
	// rule is a regular expression the answer's systemMessage matches
	// when it tells the person instead of blocking: the rule that hid it.
	rule string
	// shown is what an approve in the run interval matches instead of
	// rule when set: the flags hide nothing from the interval's snapshot
	// of the disk, which names the changed file.
	shown string
	// always says it is told even at the project's first stop, with no
	// rules recorded before it to compare with (a sparse checkout keeps
	// what it hides in the index, flagged).
	always bool
}

// hidings are the mechanisms: ignore rules in the work tree at any depth
// (tracked or not, ignoring themselves, negations), the ignore files
// outside it, sparse checkouts (cone and not) and the index flags.
var hidings = []hiding{
	{name: "root gitignore", hide: "exec sh -c 'echo src/FILE >> .gitignore'", rule: `\.gitignore`},
	{name: "nested gitignore", hide: "exec sh -c 'echo FILE > src/.gitignore'", rule: `src/\.gitignore`},
	{name: "self-ignoring gitignore", hide: "exec sh -c 'printf \"*\\n!a.txt\\n\" > src/.gitignore'", rule: `src/\.gitignore`},
	{name: "root gitignore negation", hide: "exec sh -c 'printf \"/src/*\\n!/src/a.txt\\n\" >> .gitignore'", rule: `\.gitignore`},
	{name: "ignored nested gitignore", hide: "exec sh -c 'echo src/.gitignore >> .gitignore && echo FILE > src/.gitignore'", rule: `\.gitignore`},
	{name: "info exclude", hide: "exec sh -c 'echo src/FILE >> .git/info/exclude'", rule: `info/exclude`},
	{name: "repo excludesFile", hide: "exec sh -c 'git config core.excludesFile \"$PWD/.git/myex\" && echo src/FILE > .git/myex'", rule: `myex`},
	{name: "global excludesFile", hide: "exec sh -c 'git config --global core.excludesFile \"$PWD/.git/gex\" && echo src/FILE > .git/gex'", rule: `gex`},
	{name: "sparse no-cone", hide: "exec git sparse-checkout set --no-cone '/*' '!/src/'", rule: `sparse`, always: true},
	{name: "sparse cone", hide: "exec git sparse-checkout set other", rule: `sparse`, always: true},
	{name: "sparse one file", hide: "exec git sparse-checkout set --no-cone '/*' '!/src/FILE'", rule: `sparse`, always: true},
	{name: "skip-worktree", hide: "exec sh -c 'git ls-files src | xargs git update-index --skip-worktree'", rule: `skip-worktree`, shown: `src/FILE`},
	{name: "assume-unchanged", hide: "exec sh -c 'git ls-files src | xargs git update-index --assume-unchanged'", rule: `assume-unchanged`, shown: `src/FILE`},
}

// hidden is a change of the agent's the hiding then hides: the other
// column.
type hidden struct {
	name string
	// file is the changed file's name in src; change makes it.
	file, change string
}

// hiddens are the changes: a new file, a modified one, a committed one.
var hiddens = []hidden{
	{name: "new file", file: "new.txt", change: "cp bad.txt src/new.txt"},
	{name: "modified file", file: "a.txt", change: "cp bad.txt src/a.txt"},
	{name: "committed change", file: "a.txt", change: "cp bad.txt src/a.txt\nexec git commit -q -am work"},
}

// For every file a gate could read under an entry point that differs from
// what the last stop verified, the stop hook either sees it as a change
// (its check runs and blocks) or tells the person which rule hid it: for
// every hiding mechanism and every kind of change, the stop after the
// agent changed a file under src and hid it blocks, or approves saying
// "Not verified" and naming the rule. A stop before anything changed
// records the rules; no answer of it speaks of them. A hiding that is told
// always is told without that stop too: the agent's first stop. In the
// run interval that first stop's pass starts, the approve that runs no
// gate tells it the same.
func TestHidingIsToldOrBlocked(t *testing.T) {
	dir := t.TempDir()
	for _, h := range hidings {
		for _, c := range hiddens {
			for _, v := range []struct{ first, interval bool }{{false, false}, {true, false}, {false, true}} {
				if v.first && !h.always {
					continue
				}
				name := h.name + " " + c.name
				if v.first {
					name += " first stop"
				}
				if v.interval {
					name += " in the interval"
				}
				writeScript(t, dir, name, hidingScript(h, c, v.first, v.interval))
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// hidingScript is the script of hiding h of change c; first leaves out
// the stop that records the rules before the change; interval makes the
// stop after the change one in the run interval that stop's pass starts.
func hidingScript(h hiding, c hidden, first, interval bool) string {
	setup, files, inInterval, rule := hidingSetup, hidingFiles, "", h.rule
	if first {
		setup, _, _ = strings.Cut(setup, "stdin stop.json")
	}
	if interval {
		// A pass of a harmless change starts the interval.
		files = strings.Replace(files, "run_interval_minutes: 0", "run_interval_minutes: 30", 1)
		setup = strings.Replace(setup, "exec git checkout -q -b work\n", "exec git checkout -q -b work\ncp other/o.txt src/fine.txt\n", 1)
		inInterval = "hookjson status=interval_not_elapsed\n"
		if h.shown != "" {
			rule = strings.ReplaceAll(h.shown, "FILE", regexp.QuoteMeta(c.file))
		}
	}
	return "# " + h.name + " hides a " + c.name + "\n" + setup +
		"\n# the agent's change, then the hiding\n" + c.change + "\n" +
		strings.ReplaceAll(h.hide, "FILE", c.file) + "\n" +
		"stdin stop.json\nexec agent-gauntlet stop-hook\nblockedortold '" + rule + "'\n" + inInterval + files
}

// hidingSetup makes the project: a check on src that fails on a marker,
// and a first stop that passes and records what it saw.
const hidingSetup = `env GAUNTLET_STOP_HOOK_ACTIVE=
exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec agent-gauntlet trust --yes
exec git checkout -q -b work
stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=approve 'message!~ignore|sparse|Not verified'
`

// hidingFiles are the scripts' files.
const hidingFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
*.log
!keep.log
-- src/a.txt --
fine
-- src/b.txt --
stays on the disk
-- other/o.txt --
other
-- bad.txt --
BADMARK
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

// cmdBlockedOrTold checks the stop hook's answer on stdout: a block, or
// an approve whose systemMessage says "Not verified" and matches the rule
// pattern:
//
//	blockedortold RULE
func cmdBlockedOrTold(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: blockedortold RULE")
	}
	var a struct {
		Decision      string `json:"decision"`
		SystemMessage string `json:"systemMessage"`
	}
	out := ts.ReadFile("stdout")
	ts.Check(json.Unmarshal([]byte(out), &a))
	if a.Decision == "block" {
		return
	}
	rx, err := regexp.Compile(args[0])
	ts.Check(err)
	if !strings.Contains(a.SystemMessage, "Not verified") || !rx.MatchString(a.SystemMessage) {
		ts.Fatalf("neither a block nor told of %q: %s", args[0], out)
	}
}
