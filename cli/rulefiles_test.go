package cli

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// ruleFile is one of git's rule files a stop's git commands read: one row
// of TestStopNeverWaitsOnARuleFile.
type ruleFile struct {
	// name names it; path is where it is (a script path); setup and
	// teardown are the lines that make git read it and take it away.
	name, path, setup, teardown string
	// shown is how the block names it.
	shown string
	// dirBlocks says a directory there blocks too: git fails on an
	// exclude file that is a directory.
	dirBlocks bool
}

// ruleFiles are git's rule files of a work tree: ignore files at the top,
// at the entry point and in untracked directories below it, an
// attributes file, the repository's own exclude and attributes files, the
// user's global ignore and attributes files, and the file
// core.excludesFile names.
var ruleFiles = []ruleFile{
	{name: "top gitignore", path: ".gitignore", setup: "rm .gitignore\n", teardown: "cp gitignore .gitignore\n", shown: ".gitignore"},
	{name: "entry point gitignore", path: "src/.gitignore", shown: "src/.gitignore"},
	{name: "deep gitignore", path: "src/new/deeper/.gitignore", setup: "mkdir src/new/deeper\n", teardown: "rm src/new\n", shown: "src/new/deeper/.gitignore"},
	{name: "gitattributes", path: "src/.gitattributes", shown: "src/.gitattributes"},
	{name: "info exclude", path: ".git/info/exclude", setup: "mkdir .git/info\nrm .git/info/exclude\n", shown: "info/exclude", dirBlocks: true},
	{name: "info attributes", path: ".git/info/attributes", setup: "mkdir .git/info\n", shown: "info/attributes"},
	{name: "global ignore", path: "$XDG_CONFIG_HOME/git/ignore", setup: "mkdir $XDG_CONFIG_HOME/git\n", shown: "git/ignore", dirBlocks: true},
	{name: "global attributes", path: "$XDG_CONFIG_HOME/git/attributes", setup: "mkdir $XDG_CONFIG_HOME/git\n", shown: "git/attributes"},
	{name: "core excludesFile", path: "$WORK/elsewhere/ignore", setup: "mkdir $WORK/elsewhere\nexec git config core.excludesFile $WORK/elsewhere/ignore\n",
		teardown: "exec git config --unset core.excludesFile\n", shown: "elsewhere/ignore", dirBlocks: true},
}

// ruleKind is what a rule file is made: blocks says the stop blocks
// naming it (what an open would wait on, or read no rules from); the
// others are read at once or not at all, and the stop judges the work.
type ruleKind struct {
	name, make string
	blocks     bool
}

var ruleKinds = []ruleKind{
	{name: "FIFO", make: "exec mkfifo PATH\n", blocks: true},
	{name: "link to a FIFO", make: "exec mkfifo $WORK/fifo\nsymlink PATH -> $WORK/fifo\n", blocks: true},
	{name: "link to a device", make: "symlink PATH -> /dev/zero\n", blocks: true},
	{name: "directory", make: "mkdir PATH\n"},
	{name: "dangling link", make: "symlink PATH -> $WORK/nothing\n"},
}

// TestStopNeverWaitsOnARuleFile: where git reads its ignore or attribute
// rules, what an open would wait on (a FIFO, a link to one) or read no
// rules from (a device) is the agent's to take away: every stop answers
// at once with a block naming it, never the deadline's approve; and what
// git reads at once or not at all (a directory, a dangling link) leaves
// the stop to judge the work. The rule files are every one git reads
// (ruleFiles) and every kind of non-file (ruleKinds), with and without
// the run interval holding the gates back. Every stop runs with
// --timeout 10: one that waited would answer within seconds, as the
// deadline's infrastructure_error approve the assertions refuse (no
// assertion is on time).
func TestStopNeverWaitsOnARuleFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs are a unix file kind")
	}
	dir := t.TempDir()
	for _, f := range ruleFiles {
		for _, k := range ruleKinds {
			writeScript(t, dir, f.name+" "+k.name, ruleScript(f, k, 0))
		}
		writeScript(t, dir, f.name+" FIFO within the interval", ruleScript(f, ruleKinds[0], 60))
	}
	writeScript(t, dir, "rule files control", ruleScript(ruleFile{}, ruleKind{}, 0))
	testscript.Run(t, ScriptParams(dir))
}

// ruleScript is the script of rule file f made kind k, with the run
// interval minutes; f's zero value is the control (no rule file made).
func ruleScript(f ruleFile, k ruleKind, interval int) string {
	var b strings.Builder
	b.WriteString("# " + f.name + " made " + k.name + "\n")
	b.WriteString("env GAUNTLET_STOP_HOOK_ACTIVE=\ncp gitignore .gitignore\n")
	b.WriteString("exec sed -i s/INTERVAL/" + strconv.Itoa(interval) + "/ .gauntlet/config.yml\n")
	b.WriteString("exec git init -q -b main\nexec git add -A\nexec git commit -q -m base\nexec agent-gauntlet trust --yes\n")
	b.WriteString("exec git checkout -q -b work\n\n# a first stop passes\ncp ok.txt src/new/b.txt\n")
	b.WriteString("stdin stop.json\nexec agent-gauntlet stop-hook --timeout 10\nhookjson decision=approve status=passed\n\n")
	b.WriteString("# the rule file made what it is, with a failing change\ncp bad.txt src/a.txt\n")
	if f.path != "" {
		b.WriteString(f.setup + strings.ReplaceAll(k.make, "PATH", f.path))
	}
	b.WriteString("stdin stop.json\nexec agent-gauntlet stop-hook --timeout 10\n")
	switch {
	case k.blocks || (k.name == "directory" && f.dirBlocks):
		b.WriteString("hookjson decision=block status=failed\nstdout '" + strings.ReplaceAll(f.shown, ".", `\.`) + `'` + "\n")
		b.WriteString("stdout 'what is not a file'\n")
		b.WriteString("\n# taken away, the work is judged\nrm " + f.path + "\n" + f.teardown)
		b.WriteString("stdin stop.json\nexec agent-gauntlet stop-hook --timeout 10\n")
		if interval > 0 {
			b.WriteString("hookjson decision=approve status=interval_not_elapsed\n")
		} else {
			b.WriteString("hookjson decision=block status=failed\nstdout 'lint'\n")
		}
	default:
		b.WriteString("hookjson decision=block status=failed\nstdout 'lint'\n! stdout 'what is not a file'\n")
	}
	b.WriteString(ruleFixtures)
	return b.String()
}

const ruleFixtures = `-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- gitignore --
gauntlet_logs/
-- ok.txt --
ok
-- bad.txt --
BAD
-- src/a.txt --
a
-- src/new/keep.txt --
keep
-- .gauntlet/config.yml --
base_branch: main
stop_hook:
  run_interval_minutes: INTERVAL
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [lint]
-- .gauntlet/checks/lint.yml --
command: "! grep -rn BAD ."
working_directory: src
timeout: 600
`
