package cli

import (
	"encoding/json"
	"fmt"
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
	// runs says the hiding also changes what the stop's interval compares
	// (the git configuration in the environment's fingerprint, the
	// configuration's files in the work tree), so the stop in the interval
	// runs the gates instead of approving.
	runs bool
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
	{name: "global excludesFile", hide: "exec sh -c 'git config --global core.excludesFile \"$PWD/.git/gex\" && echo src/FILE > .git/gex'", rule: `gex`, runs: true},
	{name: "sparse no-cone", hide: "exec git sparse-checkout set --no-cone '/*' '!/src/'", rule: `sparse`},
	{name: "sparse cone", hide: "exec git sparse-checkout set other", rule: `sparse`, runs: true},
	{name: "sparse one file", hide: "exec git sparse-checkout set --no-cone '/*' '!/src/FILE'", rule: `sparse`},
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
	{name: "new file", file: "new.txt", change: "cp $WORK/bad.txt src/new.txt"},
	{name: "modified file", file: "a.txt", change: "cp $WORK/bad.txt src/a.txt"},
	{name: "committed change", file: "a.txt", change: "cp $WORK/bad.txt src/a.txt\nexec git commit -q -am work"},
}

// when is when the agent changes and hides a file: one row of
// TestHidingIsToldOrBlocked.
type when int

const (
	// afterStop: a stop of the project in this work tree came first.
	afterStop when = iota
	// inInterval: as afterStop, the stop after the change approving in
	// the run interval that first stop's pass starts.
	inInterval
	// beforeFirstStop: the project's first stop ever follows the hiding;
	// only `agent-gauntlet trust` came before.
	beforeFirstStop
	// newWorktree: the project was judged in its main work tree, and the
	// agent works in a new `git worktree` whose first stop follows the
	// hiding.
	newWorktree
	// adoptedFirstStop: as beforeFirstStop, but no person ever ran
	// `agent-gauntlet trust`: the first stop adopts the configuration
	// committed at HEAD, and no record of the ignore rules exists.
	adoptedFirstStop
)

// whens name the rows.
var whens = map[when]string{afterStop: "", inInterval: " in the interval", beforeFirstStop: " first stop",
	newWorktree: " new worktree", adoptedFirstStop: " adopted first stop"}

// knob is a setting of the project's config.yml that a hiding must not
// depend on: max_retries (0: the first failing run is the last) and
// baseline (a failure the merge base has too passes).
type knob struct {
	retries  int
	baseline bool
}

// knobs are every combination; the scripts take them in turn (knobFor),
// so that each meets every row and every hiding.
var knobs = []knob{{0, false}, {2, false}, {0, true}, {2, true}}

// knobFor is the setting of the script of the hiding at hi, the change
// at ci and the row w.
func knobFor(hi, ci int, w when) knob { return knobs[(hi+ci+int(w))%len(knobs)] }

// For every file a gate could read under an entry point that differs from
// what the last stop verified, the stop hook either sees it as a change
// (its check runs and blocks) or tells the person which rule hid it: for
// every hiding mechanism, every kind of change, and every time the agent
// can do it, the stop after the agent changed a file under src and hid it
// blocks, or approves saying "Not verified" and naming the rule. The
// rules a stop compares with are never the agent's: a stop before
// anything changed records them, and before a project's first stop, or
// a work tree's, those `agent-gauntlet trust` recorded, or the last ones
// a stop of the project saw in any work tree, stand in; in a project no
// person trusted, whose first stop adopts the configuration committed at
// HEAD, the ignore files committed at HEAD stand in for those in the work
// tree (the others, outside it, have nothing to compare with, and that
// stop names what they hide). A stop before the change speaks of no rule.
// In the run interval that first stop's pass starts, the approve that
// runs no gate tells it the same. No setting of config.yml (max_retries,
// baseline) changes this.
func TestHidingIsToldOrBlocked(t *testing.T) {
	dir := t.TempDir()
	for hi, h := range hidings {
		for ci, c := range hiddens {
			for _, w := range []when{afterStop, inInterval, beforeFirstStop, newWorktree, adoptedFirstStop} {
				if w == newWorktree && c.name != hiddens[0].name {
					continue // one change is enough to show the work tree's baseline
				}
				k := knobFor(hi, ci, w)
				name := fmt.Sprintf("%s %s%s retries%d", h.name, c.name, whens[w], k.retries)
				if k.baseline {
					name += " baseline"
				}
				writeScript(t, dir, name, hidingScript(h, c, w, k))
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// hidingScript is the script of hiding h of change c at w, with the
// settings k.
func hidingScript(h hiding, c hidden, w when, k knob) string {
	setup, files, intervalLine, rule, hide := hidingSetup, hidingFiles, "", h.rule, h.hide
	files = strings.Replace(files, "base_branch: main\n", fmt.Sprintf("base_branch: main\nmax_retries: %d\nbaseline: %t\n", k.retries, k.baseline), 1)
	switch w {
	case beforeFirstStop:
		setup, _, _ = strings.Cut(setup, "stdin stop.json")
	case adoptedFirstStop:
		setup, _, _ = strings.Cut(setup, "stdin stop.json")
		setup = strings.Replace(setup, "exec agent-gauntlet trust --yes\n", "", 1)
	case newWorktree:
		setup += "exec git worktree add -q -b other $WORK/wt\ncd $WORK/wt\n"
		hide = strings.ReplaceAll(hide, ".git/", "$(git rev-parse --git-common-dir)/")
	case inInterval:
		// A pass of a harmless change starts the interval.
		files = strings.Replace(files, "run_interval_minutes: 0", "run_interval_minutes: 30", 1)
		setup = strings.Replace(setup, "exec git checkout -q -b work\n", "exec git checkout -q -b work\ncp other/o.txt src/fine.txt\n", 1)
		intervalLine = "hookjson status=interval_not_elapsed\n"
		if h.runs {
			intervalLine = "" // blocked or told, by a stop that ran
		}
		if h.shown != "" {
			rule = strings.ReplaceAll(h.shown, "FILE", regexp.QuoteMeta(c.file))
		}
	}
	return "# " + h.name + " hides a " + c.name + whens[w] + "\n" + setup +
		"\n# the agent's change, then the hiding\n" + c.change + "\n" +
		strings.ReplaceAll(hide, "FILE", c.file) + "\n" +
		"stdin $WORK/stop.json\nexec agent-gauntlet stop-hook\nblockedortold '" + rule + "'\n" + intervalLine + files
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

// hiddenGateTold finds in an approve's systemMessage the scripts' check
// named as failing, not verified: the check judged the hidden file.
var hiddenGateTold = regexp.MustCompile(`Not verified: [^.]*failing[^.]*check:src:marker`)

// cmdBlockedOrTold checks the stop hook's answer on stdout: a block, an
// approve that names the failing check as not verified (hiddenGateTold),
// or an approve whose systemMessage says "Not verified" and matches the
// rule pattern; with -any, an approve whose systemMessage matches it:
//
//	blockedortold [-any] RULE
func cmdBlockedOrTold(ts *testscript.TestScript, neg bool, args []string) {
	anyNote := len(args) == 2 && args[0] == "-any"
	if anyNote {
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: blockedortold [-any] RULE")
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
	if a.Decision == "approve" && hiddenGateTold.MatchString(a.SystemMessage) {
		return // the gate ran, failed, and the approve names it (max_retries: 0)
	}
	if !anyNote && !strings.Contains(a.SystemMessage, "Not verified") || !rx.MatchString(a.SystemMessage) {
		ts.Fatalf("neither a block nor told of %q: %s", args[0], out)
	}
}
