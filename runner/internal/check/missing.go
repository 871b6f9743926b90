package check

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// Exit codes by which a shell (and env, nice, timeout, xargs) says a
// program could not be run: not found, found but not executable.
const (
	exitNotFound      = 127
	exitNotExecutable = 126
)

// missingTail bounds how much of the end of a command's output is read for
// the shell's word on a program it could not run.
const missingTail = 4096

// notFoundRE matches the lines by which shells and program launchers say a
// program could not be run, capturing its name: dash's `sh: 1: NAME: not
// found`, bash's `sh: line 1: NAME: command not found` and `NAME: No such
// file or directory`, `Permission denied`, coreutils' `env: 'NAME': No
// such file or directory` (in ASCII or typographic quotes), timeout's
// `failed to run command 'NAME'`.
var notFoundRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:failed to run command |: )['‘"]?([^'‘’":\n]+?)['’"]?: (?:command )?(?:not found|No such file or directory|Permission denied)\s*$`)
})

// Missing is what the shell said of a program it could not run.
type Missing struct {
	// Program is the program as the command named it.
	Program string
	// Infrastructure is true when the program is the machine's, not the
	// project's: see ProgramOfMachine.
	Infrastructure bool
}

// MissingProgram reads the shell's own verdict on a failed command: its
// exit code 127 or 126, the message that names the program it could not
// run (the last such line of output, read from its end), a program the
// command itself names (its configured text, which the agent's files
// cannot change: a script of the project printing such a line proves
// nothing), and that program still not found now. ok is false for any
// other failure. dir is the command's working directory, root the
// project's.
func MissingProgram(command string, code int, output io.ReaderAt, size int64, dir, root string) (Missing, bool) {
	if code != exitNotFound && code != exitNotExecutable {
		return Missing{}, false
	}
	matches := notFoundRE().FindAllSubmatch(tail(output, size), -1)
	if len(matches) == 0 {
		return Missing{}, false
	}
	prog := strings.TrimSpace(string(matches[len(matches)-1][1]))
	if prog == "" || !names(command, prog) || runnable(prog, dir) {
		return Missing{}, false
	}
	return Missing{Program: prog, Infrastructure: ProgramOfMachine(prog, dir, root)}, true
}

// names reports whether command holds prog as a word of its own.
func names(command, prog string) bool {
	for i := 0; ; {
		j := strings.Index(command[i:], prog)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(prog)
		if (start == 0 || wordEdge(command[start-1])) && (end == len(command) || wordEdge(command[end])) {
			return true
		}
		i = start + 1
	}
}

// wordEdge reports whether c may stand next to a program's name in a
// command: a blank or shell punctuation.
func wordEdge(c byte) bool { return strings.IndexByte(" \t\n;&|()<>`'\"{}=$", c) >= 0 }

// runnable reports whether prog can be run now: a path (with '/')
// executable there, relative to dir; a name found on PATH.
func runnable(prog, dir string) bool {
	if !strings.Contains(prog, "/") {
		_, err := exec.LookPath(prog)
		return err == nil
	}
	p := prog
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// ProgramOfMachine reports whether a program that could not be run is the
// machine's to provide, not the change's to fix: a name looked up on PATH,
// or a path outside the project (relative paths are relative to dir). A
// path inside the project (a script of its own the change deleted or left
// without its executable bit) is the change's.
func ProgramOfMachine(prog, dir, root string) bool {
	if !strings.Contains(prog, "/") && !strings.HasPrefix(prog, ".") {
		return true
	}
	p := prog
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// tail is the end of output (size bytes long), at most missingTail bytes.
func tail(output io.ReaderAt, size int64) []byte {
	start := max(size-missingTail, 0)
	buf := make([]byte, size-start)
	n, _ := output.ReadAt(buf, start)
	return buf[:n]
}

// PersonWanted returns the line of a failed command's output (the end of
// it) by which a program said it wanted a person the gauntlet never gives
// a check (procgroup.PersonWanted: a terminal, a password, an editor);
// ok is false when none does.
func PersonWanted(output io.ReaderAt, size int64) (line string, ok bool) {
	for _, l := range strings.Split(string(tail(output, size)), "\n") {
		for _, m := range procgroup.PersonWanted {
			if strings.Contains(l, m) {
				line, ok = strings.TrimSpace(l), true
			}
		}
	}
	return line, ok
}
