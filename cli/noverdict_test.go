package cli

import (
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// noVerdictLines are lines a check's own output can print that the run
// takes for a check wanting a person (a terminal, a password): a sudo
// prompt, git's disabled terminal prompt, a missing /dev/tty. The check
// prints them itself, so the approve they cause is the agent's to make.
var noVerdictLines = map[string]string{
	"sudo":    "sudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper",
	"git":     "fatal: could not read Username for 'https://example.com': terminal prompts disabled",
	"dev tty": "/dev/tty: No such device or address",
}

// TestInfrastructureApproveNamesTheGate: an approve because a gate reached
// no verdict (its output said it wanted a person) names that gate as not
// verified, with or without an earlier failure pending, never only "the
// work tree as it is now". Each line (noVerdictLines) from a failing
// check, at a first stop and after an earlier failure of the same check.
func TestInfrastructureApproveNamesTheGate(t *testing.T) {
	dir := t.TempDir()
	for name, line := range noVerdictLines {
		for _, earlier := range []bool{false, true} {
			writeScript(t, dir, name+map[bool]string{false: " first stop", true: " after a failure"}[earlier], noVerdictScript(line, earlier))
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// noVerdictScript is the script of a check that fails printing line,
// after an earlier plain failure when earlier is set.
func noVerdictScript(line string, earlier bool) string {
	var b strings.Builder
	b.WriteString("env GAUNTLET_STOP_HOOK_ACTIVE=\nexec git init -q -b main\nexec git add -A\nexec git commit -q -m base\n")
	b.WriteString("exec agent-gauntlet trust --yes\nexec git checkout -q -b work\n")
	if earlier {
		b.WriteString("\n# an earlier plain failure\ncp fail.sh src/test.sh\nstdin stop.json\nexec agent-gauntlet stop-hook\nhookjson decision=block status=failed\n")
	}
	b.WriteString("\n# the check fails printing the line\ncp prompt.sh src/test.sh\nstdin stop.json\nexec agent-gauntlet stop-hook\n")
	b.WriteString("hookjson decision=approve status=infrastructure_error\n")
	b.WriteString("stdout 'Not verified: 1 gate\\(s\\) that reached no verdict \\(check:src:tests\\)'\n")
	b.WriteString("! stdout 'Not verified: the work tree as it is now'\n")
	b.WriteString(`-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
-- fail.sh --
echo "FAIL: test_login"; exit 1
-- prompt.sh --
echo "FAIL: test_login"; echo "` + line + `" >&2; exit 1
-- src/test.sh --
echo ok
-- .gauntlet/config.yml --
base_branch: main
stop_hook:
  run_interval_minutes: 0
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [tests]
-- .gauntlet/checks/tests.yml --
command: sh ./test.sh
working_directory: src
timeout: 600
`)
	return b.String()
}

// TestInterruptedStopNamesTheGates: a gate whose own process sends an
// ending signal to agent-gauntlet (its ancestor) interrupts the run, and
// the approve that follows names the gates that reached no verdict,
// never only "the work tree as it is now". Which process sent a signal is
// not something os/signal tells (no siginfo), so the interrupt cannot be
// refused; it is told. One row per ending signal.
func TestInterruptedStopNamesTheGates(t *testing.T) {
	dir := t.TempDir()
	for _, sig := range []string{"TERM", "INT", "HUP"} {
		writeScript(t, dir, "gate sends "+sig, interruptScript(sig))
	}
	testscript.Run(t, ScriptParams(dir))
}

// interruptScript is the script of a check that sends sig to its
// ancestor agent-gauntlet, then fails.
func interruptScript(sig string) string {
	return `env GAUNTLET_STOP_HOOK_ACTIVE=
exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec agent-gauntlet trust --yes
exec git checkout -q -b work

# the check signals agent-gauntlet, then fails
cp kill.sh src/test.sh
stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=approve status=infrastructure_error
stdout 'interrupted'
stdout 'Not verified: 1 gate\(s\) that reached no verdict \(check:src:tests\)'
! stdout 'Not verified: the work tree as it is now'
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
-- kill.sh --
echo "FAIL: test_login"
p=$$
while [ "$p" -gt 1 ]; do [ "$(cat /proc/$p/comm)" = agent-gauntlet ] && break; p=$(awk '{print $4}' /proc/$p/stat); done
kill -` + sig + ` $p
sleep 1; exit 1
-- src/test.sh --
echo ok
-- .gauntlet/config.yml --
base_branch: main
stop_hook:
  run_interval_minutes: 0
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [tests]
-- .gauntlet/checks/tests.yml --
command: sh ./test.sh
working_directory: src
timeout: 600
`
}
