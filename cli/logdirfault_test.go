package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestLogDirFaults is the fault table of the log directory taken away
// while a gate runs: removed, replaced by another directory, by a link
// into the project or out of it, by a file, made unreadable, or removed
// by `git clean -fdX` (it is ignored), by the command of a check or by a
// reviewer, whose gate then passes or fails, under the stop hook and
// under `run`, `check` and `review`.
// Invariant: a gate's verdict comes only from the gate itself (its exit
// status, the reviewer's answer); the log directory failing the
// gauntlet's record keeping is never a gate's failure and never a block.
// A gate that passed is never reported failed (no block, no "write check
// log" or "create review log" among the failures), a gate that failed is
// still reported failed, the stop hook answers one JSON line, every
// answer names what happened to the directory, and nothing is written
// outside the project or into the person's directory a link leads to.
func TestLogDirFaults(t *testing.T) {
	dir := t.TempDir()
	for _, f := range logDirFaults {
		for _, moment := range []string{"check", "review"} {
			for _, outcome := range []string{"pass", "fail"} {
				for _, command := range []string{"stop-hook", "run", moment} {
					name := fmt.Sprintf("logdirfault_%s_%s_%s_%s", f.name, moment, outcome, command)
					writeScript(t, dir, name, logDirFaultScript(f, moment, outcome, command))
				}
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// logDirFault is one way the log directory goes away; told is set when
// every answer must name it, replaced when something else takes its name
// at once (it is not made again: no verdict is kept).
type logDirFault struct {
	name, sh       string
	told, replaced bool
}

// logDirFaults are the faults, each a shell command run in the project
// (gone removes a directory, again while the gates running beside write
// into it: rm -rf fails on a directory that fills while it empties it).
var logDirFaults = []logDirFault{
	{"rm", `gone gauntlet_logs`, true, false},
	{"swapdir", `mv gauntlet_logs "$HOME/aside" && mkdir gauntlet_logs`, true, true},
	{"linkin", `mv gauntlet_logs "$HOME/aside" && ln -s "$WORK/mine" gauntlet_logs`, true, true},
	{"linkout", `mv gauntlet_logs "$HOME/aside" && ln -s "$HOME/outside" gauntlet_logs`, true, true},
	{"file", `gone gauntlet_logs && echo mine > gauntlet_logs`, true, false},
	// Root (as the tests run here) writes into a mode 0 directory: the
	// row then checks only that nothing else changes.
	{"chmod0", `chmod 0 gauntlet_logs`, false, false},
	{"gitclean", `for i in 1 2 3 4 5; do git clean -fdXq gauntlet_logs; [ -e gauntlet_logs ] || break; done`, true, false},
}

// logDirFaultScript is the script of one row: a first stop blocks on a
// failing review (the log directory exists from then on), then the gate
// at moment runs the fault and passes or fails, under command.
func logDirFaultScript(f logDirFault, moment, outcome, command string) string {
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

# a first stop: the review and the check fail, it blocks; the log directory is made
cp fail-check.sh src/check.sh
stdin stop.json
exec agent-gauntlet stop-hook
stdout '"decision":"block"'
exists gauntlet_logs
`)
	exit := "0"
	if moment == "check" && outcome == "fail" {
		exit = "1"
	}
	answer := "pass.json"
	if moment == "review" && outcome == "fail" {
		answer = "fail.json"
	}
	fmt.Fprintf(&b, "\n# the %s takes the log directory away (%s), the gate: %s\n", moment, f.name, outcome)
	if moment == "check" {
		b.WriteString("cp fault-check.sh src/check.sh\n")
	} else {
		b.WriteString("cp pass-check.sh src/check.sh\ncp fault.sh .standin/claude.fault\n")
	}
	fmt.Fprintf(&b, "cp %s .standin/claude.answer\n", answer)
	gate := "check:src:tests"
	if moment == "review" {
		gate = "review:src:quality"
	}
	switch command {
	case "stop-hook":
		b.WriteString("stdin stop.json\nexec agent-gauntlet stop-hook\n")
		b.WriteString("# one JSON line\nstdout '^\\{.*\\}$'\n! stdout '\\n.'\n")
		if outcome == "pass" {
			b.WriteString("! stdout '\"decision\":\"block\"|\"status\":\"failed\"'\n")
		} else {
			b.WriteString("stdout '\"decision\":\"block\"'\nstdout '" + gate + "'\n")
		}
		if f.told {
			b.WriteString("stdout 'gauntlet_logs(, [^ ]+)* was (replaced|removed) while agent-gauntlet held it open'\n")
		}
		if f.replaced && moment == "check" && outcome == "pass" {
			// (Unless a write of the gates beside made the directory again
			// between the move and the new entry, which then fails.)
			b.WriteString("# the check's failure from before is still pending: its pass was not kept\n" +
				"stdout '\"pending\":\\[[^]]*check:src:tests|removed while agent-gauntlet held it open'\n")
		}
	default:
		fmt.Fprintf(&b, "exec sh -c 'agent-gauntlet %s > out.txt 2>&1; echo \"exit $?\" >> out.txt'\n", command)
		if outcome == "pass" {
			b.WriteString("! grep 'Status: Failed' out.txt\n")
		} else {
			b.WriteString("grep 'Status: Failed' out.txt\ngrep '" + gate + "' out.txt\n")
		}
		if f.told {
			b.WriteString("grep 'gauntlet_logs(, [^ ]+)* was (replaced|removed) while agent-gauntlet held it open' out.txt\n")
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
exec sh -c 'chmod -R u+rwx gauntlet_logs 2>/dev/null; true'
`)
	fmt.Fprintf(&b, "%s-- fault.sh --\ncd \"$WORK\"\ngone() { for i in 1 2 3 4 5; do rm -rf \"$1\" 2>/dev/null && return; done; return 1; }\n%s\n-- fault-check.sh --\nsh \"$WORK/fault.sh\"\nexit %s\n-- fail-check.sh --\nexit 1\n-- pass-check.sh --\nexit 0\n", logDirFaultFiles, f.sh, exit)
	return b.String()
}

// logDirFaultFiles are swapFiles with a reviewer that first runs
// .standin/<name>.fault when there is one.
var logDirFaultFiles = strings.Replace(swapFiles, "cat > /dev/null\n",
	"cat > /dev/null\nif [ -f \"$WORK/.standin/$name.fault\" ]; then sh \"$WORK/.standin/$name.fault\"; fi\n", 1)
