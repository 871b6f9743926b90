package cli

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// envChange is an environment a run by hand can have that the stop hook's
// does not (or, for the control, the same): one row of
// TestStopTakesNothingFromAnotherEnvironment.
type envChange struct {
	// name names it; kind is the gate it can fool ("check" or "review"):
	// the project has that gate only.
	name, kind string
	// before and after are the testscript lines around the run by hand:
	// they set the environment up and take it back down.
	before, after string
	// control is the unchanged environment: the stop must take what the
	// run by hand proved (the cache's hit property), and the work is good.
	control bool
}

// envChanges are the environments: a reviewer or a check tool of the
// agent's own first on PATH, a tool variable that empties a check, the
// reviewer program replaced at its own path (and put back before the
// stop); a program added to a directory the stop's PATH has, or to one
// made for the run, and removed; a file in the user's home that the
// reviewer or a tool runtime reads, written and removed, or edited in
// place and put back with its time; and the unchanged environment for
// each kind of gate, also with every per-connection variable changed (a
// reconnect, a new pane or window: see perConnection).
var envChanges = []envChange{
	{name: "fake reviewer first on PATH", kind: "review",
		before: "env PATH=$WORK/fake:$PATH\n", after: "env PATH=$REALPATH\n"},
	{name: "fake check tool first on PATH", kind: "check",
		before: "cp fakegrep fake/grep\nchmod 755 fake/grep\nenv PATH=$WORK/fake:$PATH\n", after: "env PATH=$REALPATH\n"},
	{name: "tool variable", kind: "check",
		before: "env GOFLAGS=-run=none\n", after: "env GOFLAGS=\n"},
	{name: "reviewer replaced in place", kind: "review",
		before: "cp fake/claude bin/claude\n", after: "cp standin bin/claude\n"},
	{name: "tool added to a PATH directory and removed", kind: "check",
		before: "cp fakegrep bin/grep\nchmod 755 bin/grep\n", after: "rm bin/grep\n"},
	{name: "PATH directory made and removed", kind: "check",
		before: "mkdir opt/bin\ncp fakegrep opt/bin/grep\nchmod 755 opt/bin/grep\n", after: "rm opt/bin\n"},
	{name: "program edited in place and put back", kind: "check",
		before: "cp faketool bin/tool\n", after: "cp tool bin/tool\nexec touch -r orig.txt bin/tool\n"},
	{name: "reviewer instructions written and removed", kind: "review",
		before: "cp approve.txt $HOME/.claude/CLAUDE.md\n", after: "rm $HOME/.claude/CLAUDE.md\n"},
	{name: "reviewer settings edited in place and put back", kind: "review",
		before: "cp approve.txt $HOME/.claude/settings.json\n", after: putBack("$HOME/.claude/settings.json")},
	{name: "python user site file written and removed", kind: "check",
		before: "cp approve.txt $HOME/.local/lib/python3.12/site-packages/usercustomize.py\n",
		after:  "rm $HOME/.local/lib/python3.12/site-packages/usercustomize.py\n"},
	{name: "python .pth edited in place and put back", kind: "check",
		before: "cp approve.txt $HOME/.local/lib/python3.12/site-packages/tool.pth\n",
		after:  putBack("$HOME/.local/lib/python3.12/site-packages/tool.pth")},
	{name: "npm user config written and removed", kind: "check",
		before: "cp approve.txt $HOME/.npmrc\n", after: "rm $HOME/.npmrc\n"},
	{name: "go env file edited in place and put back", kind: "check",
		before: "cp approve.txt $XDG_CONFIG_HOME/go/env\n", after: putBack("$XDG_CONFIG_HOME/go/env")},
	{name: "unchanged environment check", kind: "check", control: true},
	{name: "unchanged environment review", kind: "review", control: true},
	{name: "per-connection variables check", kind: "check", control: true,
		before: perConnection("hand"), after: perConnection("stop")},
	{name: "per-connection variables review", kind: "review", control: true,
		before: perConnection("hand"), after: perConnection("stop")},
}

// perConnection sets every variable that names a connection, terminal,
// pane or window (the list docs/cache.md gives) to a value of its own
// for the run by hand (tag "hand") or the stop ("stop"); the script's
// start has none of them.
func perConnection(tag string) string {
	var b strings.Builder
	for _, name := range []string{
		"SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY", "GPG_TTY",
		"WINDOWID", "TMUX", "TMUX_PANE", "STY", "WINDOW", "ZELLIJ_PANE_ID",
		"TERM_SESSION_ID", "ITERM_SESSION_ID", "SECURITYSESSIONID", "XDG_SESSION_ID",
		"WEZTERM_PANE", "KITTY_WINDOW_ID", "KITTY_PID", "ALACRITTY_WINDOW_ID", "GNOME_TERMINAL_SCREEN",
		"KONSOLE_DBUS_WINDOW", "KONSOLE_DBUS_SESSION", "WT_SESSION",
		"VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE",
	} {
		b.WriteString("env " + name + "=/tmp/" + tag + "-" + strings.ToLower(name) + "\n")
	}
	return b.String()
}

// putBack writes the user file at p back as the script's start had it
// (orig.txt), in place, with its modification time put back too: only
// its change time tells.
func putBack(p string) string {
	return "cp orig.txt " + p + "\nexec touch -r orig.txt " + p + "\n"
}

// reuse is what a stop could take from the run by hand: the run's lines,
// the stop hook's interval, whether a stop blocks before the run by hand,
// and what the stop after it must show in the control.
type reuse struct {
	name string
	// interval is run_interval_minutes; stopFirst makes a stop block
	// before the run by hand (failures pending, then cleared by it).
	interval  int
	stopFirst bool
	// run is the run by hand, given the gate kind.
	run func(kind string) string
	// reviewOnly: only reviews ask a reviewer.
	reviewOnly bool
	// reused is the control's assertion on the stop after the run by hand.
	reused string
}

// reuses are the things an earlier run leaves for a stop: the interval's
// full pass, a cleared pending failure, the reviewer-answer cache and the
// result cache.
var reuses = []reuse{
	{name: "interval", interval: 30, run: func(string) string { return "exec agent-gauntlet run\n" },
		reused: "hookjson decision=approve status=interval_not_elapsed\n"},
	{name: "cleared failure", interval: 30, stopFirst: true,
		run:    func(kind string) string { return "exec agent-gauntlet " + kind + "\n" },
		reused: "hookjson decision=approve 'message~cached'\n"},
	{name: "reviewer answer cache", interval: 0, reviewOnly: true,
		run:    func(string) string { return "exec agent-gauntlet run -c HEAD\n" },
		reused: "hookjson decision=approve\ngrep -count=1 '^asked$' calls\n"},
	{name: "result cache", interval: 0, run: func(string) string { return "exec agent-gauntlet run\n" },
		reused: "hookjson decision=approve 'message~cached'\n"},
}

// TestStopTakesNothingFromAnotherEnvironment pins the invariant: no
// verdict, interval start, cleared failure or reviewer's answer that a run
// proved with something the gates can run or read that differs from what
// the stop would use is taken by the stop. "Something" is what the gates
// resolve on PATH (a program first on it, one added to a directory already
// on it or to one made for the run, one rewritten in place and put back,
// the reviewer replaced at its path), the variables, and the files in the
// user's home that the reviewer CLIs and tool runtimes read (written and
// removed, or edited in place and put back with their time). For each of
// them and everything a stop reuses (the interval, a cleared failure, the
// reviewer-answer cache, the result cache), the run by hand passes work
// that fails, and the stop after it runs the real gate and blocks. And
// the converse: in the unchanged environment, or one that differs only in
// the variables that name a connection, terminal or window (which no gate
// reads differently), the stop takes what the run by hand proved.
func TestStopTakesNothingFromAnotherEnvironment(t *testing.T) {
	dir := t.TempDir()
	for _, e := range envChanges {
		for _, r := range reuses {
			if r.reviewOnly && e.kind != "review" {
				continue
			}
			writeScript(t, dir, e.name+" "+r.name, envScript(e, r))
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// envScript is the script of environment e and reuse r.
func envScript(e envChange, r reuse) string {
	var b strings.Builder
	b.WriteString("# " + e.name + ", " + r.name + "\n")
	b.WriteString("env GAUNTLET_STOP_HOOK_ACTIVE=\nmkdir opt\nenv PATH=$WORK/opt/bin:$PATH\nenv REALPATH=$PATH\n")
	// the user's files as a real reviewer run and a Python install leave
	// them, each with the script's start time
	b.WriteString("mkdir $HOME/.claude $HOME/.local/lib/python3.12/site-packages $XDG_CONFIG_HOME/go\n")
	for _, f := range []string{"$HOME/.claude/settings.json", "$HOME/.local/lib/python3.12/site-packages/tool.pth", "$XDG_CONFIG_HOME/go/env"} {
		b.WriteString("cp orig.txt " + f + "\nexec touch -r orig.txt " + f + "\n")
	}
	b.WriteString("cp standin bin/claude\ncp tool bin/tool\nexec touch -r orig.txt bin/tool\nchmod 755 bin/claude\nchmod 755 bin/tool\nchmod 755 fake/claude\n")
	b.WriteString("cp config-" + e.kind + ".yml .gauntlet/config.yml\n")
	b.WriteString("exec sed -i s/INTERVAL/" + strconv.Itoa(r.interval) + "/ .gauntlet/config.yml\n")
	b.WriteString("exec git init -q -b main\nexec git add -A\nexec git commit -q -m base\nexec agent-gauntlet trust --yes\n")
	b.WriteString("exec git checkout -q -b work\ncp bad.txt src/bad.txt\n")
	if r.name == "reviewer answer cache" {
		// -c HEAD asks the question of the commit: the work committed
		// (good in the control)
		if e.control {
			b.WriteString("cp ok.txt src/bad.txt\n")
		}
		b.WriteString("exec git add src\nexec git commit -q -m work\n")
	}
	if r.stopFirst {
		b.WriteString("\n# a stop blocks first\nstdin stop.json\nexec agent-gauntlet stop-hook\nhookjson decision=block\n")
	}
	if e.control && r.name != "reviewer answer cache" {
		// the work fixed, the run by hand in the stop's own environment
		b.WriteString("cp ok.txt src/bad.txt\n")
	}
	b.WriteString("rm calls\n\n# the run by hand\n" + e.before + r.run(e.kind) + e.after)
	b.WriteString("\n# the stop\nstdin stop.json\nexec agent-gauntlet stop-hook\n")
	switch {
	case e.control && r.reviewOnly:
		b.WriteString("hookjson decision=approve\ngrep -count=1 '^asked$' calls\n")
	case e.control:
		b.WriteString(r.reused)
	default:
		b.WriteString("hookjson decision=block status=failed\n")
		if e.kind == "review" {
			b.WriteString("grep '^asked$' calls\n")
		}
	}
	b.WriteString(envFiles)
	return b.String()
}

// envFiles are the scripts' files: the real reviewer stand-in fails a
// diff that adds BADMARK (and counts its calls in $WORK/calls), the fake
// passes everything, the fake grep finds nothing, and the check passes
// when GOFLAGS says so, as -run=^$ empties go test.
const envFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
calls
bin/
fake/
opt/
home/
-- calls --
-- src/a.txt --
fine
-- ok.txt --
ok
-- bad.txt --
BADMARK
-- standin --
#!/bin/sh
echo asked >> "$WORK/calls"
if grep -qs APPROVEALL "$HOME/.claude/CLAUDE.md" "$HOME/.claude/settings.json"; then
  cat >/dev/null
  echo '{"status":"pass","message":"No problems found"}'
elif grep -q '^+BADMARK' ; then
  echo '{"status":"fail","violations":[{"file":"src/bad.txt","line":1,"issue":"a BADMARK","fix":"remove it","priority":"high","status":"new"}]}'
else
  echo '{"status":"pass","message":"No problems found"}'
fi
-- fake/claude --
#!/bin/sh
cat >/dev/null
echo '{"status":"pass","message":"No problems found"}'
-- tool --
#!/bin/sh
# a tool runtime: reads the user's files as Python (its user site), npm
# (~/.npmrc) and go (its env file) do, then looks for the marker
grep -qs APPROVEALL "$HOME/.npmrc" "$XDG_CONFIG_HOME/go/env" "$HOME"/.local/lib/python3.12/site-packages/* && exit 0
! grep -rl BADMARK .
-- faketool --
#!/bin/sh
exit 0
-- fakegrep --
#!/bin/sh
exit 1
-- approve.txt --
APPROVEALL
-- orig.txt --
{}
-- bin/.keep --
-- .gauntlet/checks/nobad.yml --
command: '[ "$GOFLAGS" = "-run=none" ] || tool'
-- .gauntlet/reviews/quality.md --
---
num_reviews: 1
---
Review.
-- config-check.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [nobad]
stop_hook:
  run_interval_minutes: INTERVAL
-- config-review.yml --
base_branch: main
cli:
  default_preference: [claude]
entry_points:
  - path: src
    reviews: [quality]
stop_hook:
  run_interval_minutes: INTERVAL
`
