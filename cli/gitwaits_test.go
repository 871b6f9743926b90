package cli

import (
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// gitWait is one file git opens that the fixed list of git's files
// (cli/internal/stophook/gitfiles.go) leaves out: one row of
// TestNoCommandWaitsOnAGitFile.
type gitWait struct {
	// name names it; setup makes git open it and puts a FIFO there;
	// teardown takes the FIFO away and puts back what git had.
	name, setup, teardown string
	// shown is how the answers name it (a regexp).
	shown string
}

// gitWaits are git's files of the repository, of the user and of a
// repository inside the work tree that the fixed list omits, and two it
// holds (HEAD, packed-refs) as controls.
var gitWaits = []gitWait{
	{name: "config.worktree", setup: "exec git config extensions.worktreeConfig true\nexec mkfifo .git/config.worktree\n",
		teardown: "rm .git/config.worktree\n", shown: `\.git/config\.worktree \(a named pipe`},
	{name: "loose ref", setup: "rm .git/refs/heads/work\nexec mkfifo .git/refs/heads/work\n",
		teardown: "rm .git/refs/heads/work\nexec git update-ref refs/heads/work refs/heads/main\n", shown: `\.git/refs/heads/work \(a named pipe`},
	{name: "commit-graph", setup: "exec mkfifo .git/objects/info/commit-graph\n",
		teardown: "rm .git/objects/info/commit-graph\n", shown: `\.git/objects/info/commit-graph \(a named pipe`},
	{name: "global config", setup: "cp $HOME/.gitconfig $WORK/gitconfig\nrm $HOME/.gitconfig\nexec mkfifo $HOME/.gitconfig\n",
		teardown: "rm $HOME/.gitconfig\ncp $WORK/gitconfig $HOME/.gitconfig\n", shown: `home/\.gitconfig \(a named pipe`},
	{name: "include", setup: "exec git config include.path $WORK/inc.fifo\nexec mkfifo $WORK/inc.fifo\n",
		teardown: "rm $WORK/inc.fifo\n", shown: `inc\.fifo \(a named pipe`},
	{name: "attributesFile", setup: "exec git config core.attributesFile $WORK/attr.fifo\nexec mkfifo $WORK/attr.fifo\n",
		teardown: "rm $WORK/attr.fifo\n", shown: `attr\.fifo \(a named pipe`},
	{name: "nested HEAD", setup: "exec git init -q src/sub\nrm src/sub/.git/HEAD\nexec mkfifo src/sub/.git/HEAD\n",
		teardown: "rm src/sub\n", shown: `src/sub/\.git/HEAD \(a named pipe`},
	{name: "listed HEAD", setup: "rm .git/HEAD\nexec mkfifo .git/HEAD\n",
		teardown: "rm .git/HEAD\ncp head .git/HEAD\n", shown: `\.git/HEAD \(a named pipe`},
	{name: "listed packed-refs", setup: "exec mkfifo .git/packed-refs\n",
		teardown: "rm .git/packed-refs\n", shown: `\.git/packed-refs \(a named pipe`},
}

// gitDeviceReads are links to endless devices at git files: git opens
// them at once and reads without end, so the watch finds the device held
// open (statecfg/kit/gitcmd) and the answers name the link. Rows of
// TestNoCommandWaitsOnAGitFile on Linux.
var gitDeviceReads = func() []gitWait {
	var out []gitWait
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		d := "a link to " + regexp.QuoteMeta(dev) + ", a character device"
		out = append(out,
			gitWait{name: filepath.Base(dev) + " loose ref", setup: "rm .git/refs/heads/work\nsymlink .git/refs/heads/work -> " + dev + "\n",
				teardown: "rm .git/refs/heads/work\nexec git update-ref refs/heads/work refs/heads/main\n", shown: `\.git/refs/heads/work \(` + d},
			gitWait{name: filepath.Base(dev) + " attributesFile", setup: "exec git config core.attributesFile $WORK/attr.dev\nsymlink attr.dev -> " + dev + "\n",
				teardown: "rm attr.dev\n", shown: `attr\.dev \(` + d},
		)
	}
	return out
}()

// TestNoCommandWaitsOnAGitFile: no command waits on a FIFO at a file git
// opens, nor reads without end from a link to a device there (Linux:
// gitDeviceReads), whatever the file: the stop blocks at once naming it (never the
// deadline's infrastructure_error approve), `run` fails naming it,
// `status` answers; taken away, the work is judged. Every stop runs with
// --timeout 10, so that a stop that waited answers within seconds with
// the approve the assertions refuse (no assertion is on time). On Linux
// the watch of every git process finds the file (statecfg/kit/gitcmd);
// elsewhere only the fixed list does, and the rows it omits are skipped.
func TestNoCommandWaitsOnAGitFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs are a unix file kind")
	}
	dir := t.TempDir()
	for _, w := range gitWaits {
		if runtime.GOOS != "linux" && !strings.HasPrefix(w.name, "listed") {
			continue
		}
		writeScript(t, dir, "git wait "+w.name, gitWaitScript(w))
	}
	if runtime.GOOS == "linux" {
		for _, w := range gitDeviceReads {
			writeScript(t, dir, "git read "+w.name, gitWaitScript(w))
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// gitWaitScript is the script of row w.
func gitWaitScript(w gitWait) string {
	var b strings.Builder
	b.WriteString("# what is not a file at " + w.name + "\n")
	b.WriteString("env GAUNTLET_STOP_HOOK_ACTIVE=\ncp gitignore .gitignore\n")
	b.WriteString("exec git init -q -b main\nexec git add -A\nexec git commit -q -m base\nexec agent-gauntlet trust --yes\n")
	b.WriteString("exec git checkout -q -b work\n\n")
	b.WriteString("# a failing change and the file: the stop blocks at once naming it\ncp bad.txt src/a.txt\n" + w.setup)
	b.WriteString("stdin stop.json\nexec agent-gauntlet stop-hook --timeout 10\n")
	b.WriteString("hookjson decision=block status=failed\nstdout '" + w.shown + "'\nstdout 'what is not a file'\n\n")
	b.WriteString("# run fails naming it; status answers\n! exec agent-gauntlet run\nstderr '" + w.shown + "'\nexec agent-gauntlet status\n\n")
	b.WriteString("# taken away, the work is judged\n" + w.teardown)
	b.WriteString("stdin stop.json\nexec agent-gauntlet stop-hook --timeout 10\nhookjson decision=block status=failed\nstdout 'lint'\n! stdout 'what is not a file'\n")
	b.WriteString(gitWaitFixtures)
	return b.String()
}

const gitWaitFixtures = `-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- head --
ref: refs/heads/work
-- gitignore --
gauntlet_logs/
-- bad.txt --
BAD
-- src/a.txt --
a
-- .gauntlet/config.yml --
base_branch: main
stop_hook:
  run_interval_minutes: 0
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
