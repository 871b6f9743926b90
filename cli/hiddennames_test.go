package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// ruleSource is a place an ignore rule can come from: one column of
// TestHiddenFilesAreNamed. rules are the testscript lines that add the
// rule PAT there.
type ruleSource struct{ name, rules string }

// ruleSources are every source git reads: the root and a nested
// .gitignore, info/exclude, core.excludesFile set in the repository's
// configuration, in a file it includes, and in the hook's environment.
var ruleSources = []ruleSource{
	{"root gitignore", "exec sh -c 'echo \"PAT\" >> .gitignore'"},
	{"nested gitignore", "exec sh -c 'echo \"PAT\" >> src/.gitignore'"},
	{"info exclude", "exec sh -c 'echo \"PAT\" >> .git/info/exclude'"},
	{"excludesFile", "exec git config core.excludesFile $WORK/ex\nexec sh -c 'echo \"PAT\" > $WORK/ex'"},
	{"include path", "exec sh -c 'printf \"[core]\\n\\texcludesFile = %s\\n\" $WORK/ex2 > $WORK/inc.cfg && echo \"PAT\" > $WORK/ex2'\n" +
		"exec git config include.path $WORK/inc.cfg"},
	{"GIT_CONFIG env", "env GIT_CONFIG_COUNT=1\nenv GIT_CONFIG_KEY_0=core.excludesFile\nenv GIT_CONFIG_VALUE_0=$WORK/ex3\n" +
		"exec sh -c 'echo \"PAT\" > $WORK/ex3'"},
}

// hiddenKind is what the new rule hides: the other column. make are the
// lines that make the files, pattern the rule, named the paths the
// answer must name, exactly, in its parentheses.
type hiddenKind struct{ name, make, pattern, named string }

// hiddenKinds are a new file, a new directory of files, and nothing new:
// in every row the tracked src/t.LOG (git hides no tracked file) and
// src/sub/o.LOG, ignored before by an unchanged rule of a deeper
// .gitignore, match the rule too and are never named.
var hiddenKinds = []hiddenKind{
	{"new file", "cp $WORK/fine.txt src/evil.LOG", "*.LOG", "src/evil.LOG"},
	{"new directory", "mkdir src/hid\ncp $WORK/fine.txt src/hid/x.txt\ncp $WORK/fine.txt src/hid/y.txt", "hid/", "src/hid/"},
	{"older rule only", "", "*.LOG", "none in the work tree now"},
}

// Invariant: whenever the answer says an ignore-rule change hides files
// from the gates, it names the paths (at most ten, the rest counted) that
// exist in the work tree, lie under an entry point, and are ignored by a
// rule the change added or altered, not those ignored before the change
// by an unchanged rule, nor tracked ones, which git does not hide; when
// it cannot list them it says so instead of naming none. The table runs
// every rule source by every kind of hidden path, the change made after
// a first stop, before the project's first stop, and (split) the rule
// told first and the file it hides made after that answer: the answer
// names exactly the newly hidden existing paths.
func TestHiddenFilesAreNamed(t *testing.T) {
	dir := t.TempDir()
	for _, src := range ruleSources {
		for _, k := range hiddenKinds {
			for _, w := range []string{"after stop", "first stop", "split"} {
				if w == "split" && k.make == "" {
					continue
				}
				writeScript(t, dir, "named "+src.name+" "+k.name+" "+w, hiddenNamesScript(src, k, w))
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// hiddenNamesScript is the script of the rule source src hiding k, when w.
func hiddenNamesScript(src ruleSource, k hiddenKind, w string) string {
	setup := namedSetup
	if w == "first stop" {
		setup, _, _ = strings.Cut(setup, "stdin stop.json")
	}
	rules := strings.ReplaceAll(src.rules, "PAT", k.pattern)
	want := "hookjson decision=approve 'systemMessage~newly hide from git, under src \\(" + regexp.QuoteMeta(k.named) + "\\)'\n"
	var change string
	switch {
	case w == "split":
		change = rules + "\nstdin $WORK/stop.json\nexec agent-gauntlet stop-hook\n" +
			"hookjson decision=approve 'systemMessage~newly hide from git, under src \\(none in the work tree now\\)'\n" +
			k.make + "\n"
	default:
		change = k.make + "\n" + rules + "\n"
	}
	return "# " + src.name + " hides a " + k.name + " (" + w + ")\n" + setup +
		"\n# the agent's new files and rule\n" + change +
		"stdin $WORK/stop.json\nexec agent-gauntlet stop-hook\n" + want + namedFiles
}

// namedSetup makes the project: a check on src that passes, and a first
// stop that records the rules.
const namedSetup = `env GAUNTLET_STOP_HOOK_ACTIVE=
exec git init -q -b main
exec git add -A
exec git commit -q -m base
cp fine.txt src/sub/o.LOG
exec agent-gauntlet trust --yes
exec git checkout -q -b work
stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=approve 'systemMessage!~ignore'
`

// namedFiles are the scripts' files.
const namedFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
*.log
-- src/a.txt --
fine
-- src/t.LOG --
tracked
-- src/sub/.gitignore --
o.LOG
-- fine.txt --
fine
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

// With no commit yet and no baseline (a project an older version trusted
// before its first commit), the first stop compares the rules with none:
// every untracked path they hide now under the entry points is named,
// whatever rule hides it, since every rule is new.
func TestNoCommitNamesWhatIsHidden(t *testing.T) {
	dir := t.TempDir()
	writeScript(t, dir, "no commit names the hidden", "# the rules hide files before the first commit and stop, no record of them\n"+
		"env GAUNTLET_STOP_HOOK_ACTIVE=\nexec git init -q -b main\ncp fine.txt src/sub/o.LOG\nexec agent-gauntlet trust --yes\n"+
		"rm .git/agent-gauntlet/baseline\ncp fine.txt src/evil.LOG\nexec sh -c 'echo \"*.LOG\" >> .git/info/exclude'\n"+
		"stdin $WORK/stop.json\nexec agent-gauntlet stop-hook\n"+
		"hookjson 'systemMessage~newly hide from git, under src \\(src/evil\\.LOG, src/sub/o\\.LOG, src/t\\.LOG\\)'\n"+
		namedFiles)
	testscript.Run(t, ScriptParams(dir))
}

// A changed ignore file outside the work tree is told apart from its
// older lines (the verdict book keeps its rules): a path an older line of
// it still decides is not named, between two stops and before the first.
func TestOlderLineOfAChangedFileIsNotNamed(t *testing.T) {
	dir := t.TempDir()
	for _, w := range []string{"after stop", "first stop"} {
		setup := strings.Replace(namedSetup, "exec agent-gauntlet trust --yes\n",
			"cp fine.txt src/o2.LOG\nexec sh -c 'echo o2.LOG >> .git/info/exclude'\nexec agent-gauntlet trust --yes\n", 1)
		if w == "first stop" {
			setup, _, _ = strings.Cut(setup, "stdin stop.json")
		}
		writeScript(t, dir, "older line "+w, "# the agent puts a rule before the person's in info/exclude ("+w+")\n"+setup+
			"cp fine.txt src/evil.LOG\nexec sh -c 'printf \"*.LOG\\nevil2.LOG\\n\" | cat - .git/info/exclude > ex.new && mv ex.new .git/info/exclude'\n"+
			"stdin $WORK/stop.json\nexec agent-gauntlet stop-hook\n"+
			"hookjson decision=approve 'systemMessage~newly hide from git, under src \\(src/evil\\.LOG\\)'\n"+namedFiles)
	}
	testscript.Run(t, ScriptParams(dir))
}
