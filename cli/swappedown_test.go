package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestSwappedOwnDirs is the fault table of the gauntlet's own directories
// (the log directory, its previous/ archive, the store in the git
// directory and its sub-directories) replaced by a symbolic link: before
// any run, between two stops, or during a stop by the command of a check
// (the agent may edit the script a trusted check runs); the link leads to
// a person's directory outside the project or to one inside it.
// Invariant: no byte is written outside the project and the gauntlet's
// own records, whatever is swapped for a link and whenever: the person's
// directories hold exactly what they held; and every answer after the
// swap of the log directory or the store tells the person (the swap, the
// link refused, or the log directory outside the project), keeping the
// notices a stop gives.
func TestSwappedOwnDirs(t *testing.T) {
	dir := t.TempDir()
	for _, at := range swapTargets {
		for _, when := range []string{"before", "between", "during"} {
			for _, to := range []string{"outside", "inside"} {
				name := fmt.Sprintf("swap_%s_%s_%s", scriptName(strings.TrimPrefix(at.path, ".git/")), when, to)
				writeScript(t, dir, name, swapScript(at, when, to))
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// swapTarget is one of the gauntlet's own directories; told is set for
// those whose replacement every later answer must tell.
type swapTarget struct {
	path string
	told bool
}

// swapTargets are the directories swapped: the log directory and its
// archive, the store and the sub-directories a stop writes.
var swapTargets = []swapTarget{
	{"gauntlet_logs", true},
	{"gauntlet_logs/previous", false},
	{".git/agent-gauntlet", true},
	{".git/agent-gauntlet/verdicts", false},
	{".git/agent-gauntlet/literal", false},
	{".git/agent-gauntlet/index", false},
	{".git/agent-gauntlet/answers", false},
	{".git/agent-gauntlet/blocks", false},
}

// swapToldRE matches what an answer says about a swapped directory: the
// swap seen during the stop, a link refused, records out of reach, a log
// directory outside the project; or the log directory made again, when a
// write of the gates running beside came between the swap's move and its
// link (the link is then made inside it, and leads no write).
const swapToldRE = `((replaced|removed) while agent-gauntlet held it|symbolic link|records cannot be used|must stay inside)`

// swapScript is the script that swaps at for a link to a person's
// directory (outside the project, or "inside" it), when says when, and
// checks the invariant.
func swapScript(at swapTarget, when, to string) string {
	target := "$HOME/outside"
	if to == "inside" {
		target = "$WORK/mine"
	}
	swap := "cd \"$WORK\"; if [ ! -L " + at.path + " ]; then if [ -e " + at.path + " ]; then mv " + at.path + " " + at.path + ".aside; fi; " +
		"mkdir -p \"$(dirname " + at.path + ")\"; ln -s " + target + " " + at.path + "; fi"
	var b strings.Builder
	b.WriteString(`env GAUNTLET_STOP_HOOK_ACTIVE=
cp standin bin/claude
chmod 755 bin/claude
exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec git checkout -q -b work
exec agent-gauntlet trust --yes
exec sh -c 'mkdir -p $HOME/outside mine && echo precious > $HOME/outside/sentinel && echo mine > mine/sentinel'
cp new.txt src/new.txt
`)
	if when == "before" {
		b.WriteString("\n# " + at.path + " replaced by a link before any run\nexec sh -c '" + swap + "'\n")
	}
	b.WriteString("\n# a first stop: the review fails, it blocks\nstdin stop.json\nexec agent-gauntlet stop-hook\n")
	if when == "before" && at.told {
		b.WriteString("stdout '" + swapToldRE + "'\n")
	}
	b.WriteString("cp pass.json .standin/claude.answer\n")
	switch when {
	case "between":
		b.WriteString("\n# " + at.path + " replaced by a link between two stops\nexec sh -c '" + swap + "'\n")
		b.WriteString("exec sh -c 'echo again >> src/new.txt'\n")
	case "during":
		b.WriteString("\n# the check's script, edited by the agent, replaces " + at.path + " by a link while it runs\n" +
			"exec sh -c 'printf \"%s\\n\" \"$1\" > src/check.sh' sh '" + swap + "'\n")
	}
	b.WriteString("stdin stop.json\nexec agent-gauntlet stop-hook\n")
	if at.told {
		b.WriteString("stdout '" + swapToldRE + "'\n")
	}
	if when == "during" {
		b.WriteString("\n# the stop after\nexec sh -c 'echo more >> src/new.txt'\nstdin stop.json\nexec agent-gauntlet stop-hook\n")
		if at.told {
			b.WriteString("stdout '" + swapToldRE + "'\n")
		}
	}
	b.WriteString(`
# the person's directories hold what they held, byte for byte
exec ls -A $HOME/outside
cmp stdout outside.want
exec cat $HOME/outside/sentinel
cmp stdout sentinel.want
exec ls -A mine
cmp stdout outside.want
exec cat mine/sentinel
cmp stdout mine.want
`)
	b.WriteString(swapFiles)
	return b.String()
}

// swapFiles are the files of every script: storeFiles' project with a
// second check, whose script the agent may edit.
var swapFiles = strings.NewReplacer("-- .gitignore --\n", "-- .gitignore --\n/mine/\n").Replace(strings.Replace(strings.Replace(storeFiles,
	"    checks: [lint]\n", "    checks: [lint, tests]\n", 1),
	"-- .gauntlet/checks/lint.yml --\n", "-- .gauntlet/checks/tests.yml --\ncommand: \"sh ./check.sh\"\n-- src/check.sh --\ntrue\n-- mine.want --\nmine\n-- .gauntlet/checks/lint.yml --\n", 1))
