package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// fault is one row of TestFaultsTheAgentCannotFix: something that goes
// wrong around the agent's work, not in it.
type fault struct {
	// name names the row (and its script).
	name string
	// inject makes the fault, clear takes it away (testscript lines).
	inject, clear string
	// stop is the stop hook's command line while the fault holds ("" for
	// the plain hook).
	stop string
	// status is the hook's answer while the fault holds: an approve.
	status string
	// after are more lines run while the fault holds, after each stop.
	after string
	// check is true for a fault of the check: the failure pending from
	// before is the check's (the review passes); else it is the review's
	// (the check passes).
	check bool
}

// faults are the rows: each a member of the class "an error the agent
// cannot fix in the work tree".
var faults = []fault{
	{name: "review CLI missing", inject: "rm bin/claude", clear: "cp standin bin/claude\nchmod 755 bin/claude",
		status: "infrastructure_error"},
	{name: "review CLI crashing", inject: "cp one .standin/claude.exit\ncp crash.txt .standin/claude.stderr",
		clear: "rm .standin/claude.exit\nrm .standin/claude.stderr", status: "infrastructure_error"},
	{name: "review CLI timing out", inject: "cp three .standin/claude.sleep\ncp timeout.yml .gauntlet/reviews/quality.md\nexec agent-gauntlet trust --yes",
		clear: "rm .standin/claude.sleep\ncp quality.md .gauntlet/reviews/quality.md\nexec agent-gauntlet trust --yes", status: "infrastructure_error"},
	{name: "review CLI out of quota", inject: "cp one .standin/claude.exit\ncp quota.txt .standin/claude.stderr",
		clear: "rm .standin/claude.exit\nrm .standin/claude.stderr", status: "infrastructure_error"},
	{name: "review CLI answering nothing usable", inject: "cp junk.txt .standin/claude.answer",
		clear: "cp fail.json .standin/claude.answer", status: "infrastructure_error"},
	{name: "check tool missing from PATH", inject: "rm bin/mylint", clear: "cp mylint bin/mylint\nchmod 755 bin/mylint",
		status: "infrastructure_error", check: true},
	{name: "git failing", inject: "cp one .gitfault", clear: "rm .gitfault", status: "infrastructure_error"},
	// git failing at one step only, each step of taking the work tree's
	// snapshot and listing its changes (a full .git/objects fails the
	// same way). A new file makes the snapshot's index change, so that
	// write-tree runs (an unchanged index reuses the tree it remembers).
	{name: "git write-tree failing", inject: "cp write-tree .gitfault-cmd\ncp one src/extra.txt", clear: "rm .gitfault-cmd", status: "infrastructure_error"},
	{name: "git add failing", inject: "cp add .gitfault-cmd", clear: "rm .gitfault-cmd", status: "infrastructure_error"},
	{name: "git cat-file failing", inject: "cp cat-file .gitfault-cmd", clear: "rm .gitfault-cmd", status: "infrastructure_error"},
	{name: "git write-tree failing in a check's row", inject: "cp write-tree .gitfault-cmd\ncp one src/extra.txt", clear: "rm .gitfault-cmd",
		status: "infrastructure_error", check: true},
	{name: "full disk", stop: "sh -c 'ulimit -f 0; exec agent-gauntlet stop-hook'", status: "infrastructure_error"},
	{name: "the hook's deadline", inject: "cp three .standin/claude.sleep", clear: "rm .standin/claude.sleep",
		stop: "agent-gauntlet stop-hook --client-timeout 2s", status: "infrastructure_error",
		after: "! exists gauntlet_logs/.gauntlet-run.lock"},
	{name: "a lock a live run holds", inject: "exec sh -c 'printf \"{\\\"pid\\\":1,\\\"host\\\":\\\"%s\\\",\\\"started_at\\\":\\\"%s\\\"}\\n\" \"$(uname -n)\" \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\" > gauntlet_logs/.gauntlet-run.lock'",
		clear: "rm gauntlet_logs/.gauntlet-run.lock", status: "lock_exists"},
	{name: "a base checkout that cannot be made", inject: "cp one .worktreefault", clear: "rm .worktreefault",
		status: "infrastructure_error", check: true},
}

// Nothing the agent cannot fix blocks it or spends its retry budget: for
// each fault, after a stop that blocked on a failing gate (one run of the
// budget spent), three stops while the fault holds each approve with the
// row's status, the budget is untouched, and the first stop with the fault
// gone verifies the failure pending from before (a review's violation
// reaches the reviewer as still open; a check runs again) and blocks.
func TestFaultsTheAgentCannotFix(t *testing.T) {
	dir := t.TempDir()
	for _, f := range faults {
		name := strings.NewReplacer(" ", "_", "'", "").Replace(f.name) + ".txtar"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(f.script()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// script is the row's testscript.
func (f fault) script() string {
	stop := f.stop
	if stop == "" {
		stop = "agent-gauntlet stop-hook"
	}
	var b strings.Builder
	b.WriteString("env GAUNTLET_STOP_HOOK_ACTIVE=\n")
	if f.check {
		b.WriteString("cp failing-lint.yml .gauntlet/checks/lint.yml\ncp pass.json .standin/claude.answer\n")
	}
	b.WriteString(faultSetup)
	b.WriteString("\n# the fault: " + f.name + "\n" + f.inject + "\n")
	for range 3 {
		b.WriteString("stdin stop.json\nexec " + stop + "\nhookjson decision=approve status=" + f.status + "\n" + f.after + "\n")
	}
	b.WriteString(f.clear + "\n")
	if f.check {
		b.WriteString(faultVerifyCheck)
	} else {
		b.WriteString(faultVerifyReview)
	}
	b.WriteString(faultFiles)
	return b.String()
}

// faultSetup is every row's start: a project with a check (passing, on a
// stand-in tool) and a review whose stand-in reviewer fails the change; a
// first stop blocks, spending one run of the budget.
const faultSetup = `cp gitwrap bin/git.wrap
exec sh -c 'sed "s|REALGIT|$(command -v git)|" bin/git.wrap > bin/git && chmod 755 bin/git && rm bin/git.wrap'
cp standin bin/claude
chmod 755 bin/claude
cp mylint bin/mylint
chmod 755 bin/mylint
exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec git checkout -q -b work
cp new.txt src/new.txt

# a gate fails: one run of the budget (3 runs)
stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=block status=failed
exec agent-gauntlet status --json
stdout '"left":2'
`

// faultVerifyReview is the end of a review's row: the budget is untouched,
// and the next stop verifies the pending violation and blocks.
const faultVerifyReview = `
# the fault spent nothing; the next stop verifies what was pending
exec agent-gauntlet status --json
stdout '"left":2'
stdout '"failed_reviews":\["review:src:quality"\]'
rm .standin/claude.stdin
stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=block status=failed 'reason~bad line'
grep '^Problems that are still OPEN from the earlier review:$' .standin/claude.stdin
grep '^1\. src/new\.txt:1 - bad line \[high\]$' .standin/claude.stdin
exec agent-gauntlet status --json
stdout '"left":1'
` + faultFixed + `cp pass.json .standin/claude.answer
` + faultStopPasses

// faultVerifyCheck is the end of a check's row: the budget is untouched,
// and the next stop runs the failing check again and blocks.
const faultVerifyCheck = `
# the fault spent nothing; the next stop verifies what was pending
exec agent-gauntlet status --json
stdout '"left":2'
stdout '"failed_checks":\["check:src:lint"\]'
stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=block status=failed 'reason~check:src:lint'
exec agent-gauntlet status --json
stdout '"left":1'
` + faultFixed + faultStopPasses

// faultFixed is the agent's fix, after the verifying block: the work tree
// goes back to the commit the work began on.
const faultFixed = `
# the agent takes its change back: the next stop verifies it and passes,
# whatever the fault left recorded
rm src/new.txt
`

// faultStopPasses is the stop after the fix.
const faultStopPasses = `stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=approve status=passed
`

// faultFiles are the rows' files.
const faultFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
/bin/
/home/
/.standin/
/.gitfault
/.gitfault-cmd
/.worktreefault
gauntlet_logs/
-- .gauntlet/config.yml --
base_branch: main
max_retries: 2
stop_hook:
  run_interval_minutes: 0
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [lint]
    reviews: [quality]
-- .gauntlet/checks/lint.yml --
command: mylint
-- .gauntlet/reviews/quality.md --
---
cache: false # the stand-in's answer changes while the question does not
---
Review the change for bugs.
-- failing-lint.yml --
command: mylint --fail
baseline: true
cache: false # the base is checked out each time
-- quality.md --
---
cache: false # the stand-in's answer changes while the question does not
---
Review the change for bugs.
-- timeout.yml --
---
cache: false
timeout: 1
---
Review the change for bugs.
-- src/main.txt --
hello
-- new.txt --
a new line
-- one --
1
-- write-tree --
write-tree
-- add --
add
-- cat-file --
cat-file
-- three --
3
-- crash.txt --
claude: internal error
-- quota.txt --
Claude AI usage limit reached|1760000000
-- junk.txt --
I looked at it and I am not sure.
-- .standin/claude.answer --
{"status":"fail","violations":[{"file":"src/new.txt","line":1,"issue":"bad line","fix":"remove it","priority":"high","status":"new"}]}
-- pass.json --
{"status":"pass","message":"No problems found"}
-- fail.json --
{"status":"fail","violations":[{"file":"src/new.txt","line":1,"issue":"bad line","fix":"remove it","priority":"high","status":"new"}]}
-- mylint --
#!/bin/sh
# A stand-in lint: with --fail, it finds a problem in every new.txt.
if [ "$1" = --fail ] && [ -f new.txt ]; then
  echo "new.txt:1: error: bad line"
  exit 1
fi
exit 0
-- gitwrap --
#!/bin/sh
# git, failing while $WORK/.gitfault exists, and failing to add a worktree
# or check out a detached commit (the base's private checkout) while
# $WORK/.worktreefault exists.
if [ -f "$WORK/.gitfault" ]; then
  echo "fatal: unable to read tree: Input/output error" >&2
  exit 128
fi
if [ -f "$WORK/.gitfault-cmd" ]; then
  for a in "$@"; do
    if [ "$a" = "$(cat "$WORK/.gitfault-cmd")" ]; then
      echo "fatal: unable to write new object: No space left on device" >&2
      exit 128
    fi
  done
fi
if [ -f "$WORK/.worktreefault" ]; then
  for a in "$@"; do
    if [ "$a" = add ] || [ "$a" = --detach ]; then
      echo "fatal: could not create work tree dir: No space left on device" >&2
      exit 128
    fi
  done
fi
exec REALGIT "$@"
-- standin --
#!/bin/sh
# A stand-in review CLI: records its stdin into $WORK/.standin/<name>.stdin
# and answers with .standin/<name>.answer, after .standin/<name>.sleep
# seconds, with .standin/<name>.stderr on stderr and .standin/<name>.exit
# as exit code when those exist.
name=$(basename "$0")
d="$WORK/.standin"
cat > "$d/$name.stdin"
if [ -f "$d/$name.sleep" ]; then sleep "$(cat "$d/$name.sleep")"; fi
if [ -f "$d/$name.stderr" ]; then cat "$d/$name.stderr" >&2; fi
cat "$d/$name.answer"
if [ -f "$d/$name.exit" ]; then exit "$(cat "$d/$name.exit")"; fi
exit 0
`
