// Package scripttest holds what every testscript suite of the cli module
// shares: the hermetic environment under $WORK, and a PATH that holds only
// the machine's programs the suites may rely on.
package scripttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

// HostTools are the machine's programs a script finds on its PATH: a shell
// and the POSIX utilities, git, the Go toolchain (and the C toolchain cgo
// uses), make, node and npm. Nothing else the machine has is there: no
// python3, pytest, cargo or rustup, no linter, no review CLI (claude,
// codex, ...), no other package manager. What init detects and proposes,
// which tools a check finds and which reviewer answers must not depend on
// what happens to be installed: a script that needs such a program makes a
// stand-in in $WORK/bin (or a PATH of its own with linkbin). A program of
// the list that the machine lacks is absent too; a script that needs it
// says so with [!exec:name] skip.
var HostTools = []string{
	// shells and POSIX utilities
	"sh", "bash", "dash", "env", "cat", "cp", "mv", "rm", "mkdir", "rmdir", "ls", "ln", "chmod",
	"touch", "head", "tail", "wc", "sort", "uniq", "tr", "cut", "sed", "grep", "egrep", "fgrep",
	"awk", "find", "xargs", "diff", "cmp", "comm", "printf", "echo", "test", "[", "true", "false",
	"sleep", "kill", "date", "dirname", "basename", "tee", "readlink", "realpath", "stat",
	"mktemp", "od", "dd", "seq", "yes", "id", "uname", "mkfifo", "timeout", "nohup", "expr",
	"nproc", "tac", "rev", "paste", "fold", "split", "du", "df", "tar", "gzip", "gunzip",
	"sha256sum", "sha1sum", "md5sum", "cksum", "base64", "hostname", "install", "truncate",
	"printenv", "nice", "ps", "pgrep", "pkill", "setsid", "sync", "flock", "file", "which",
	"whoami", "chown", "tput",
	// version control and the toolchains the suites build with
	"git", "go", "gofmt", "gcc", "cc", "as", "ld", "make",
	// node and npm: CI machines have them (see .ci/run)
	"node", "npm", "npx",
}

// Hermetic makes a script's environment independent of the machine: the
// testenv environment with its home in $WORK/home, and a PATH of $WORK/bin
// (for stand-in executables), the suite's own commands (agent-gauntlet)
// and HostTools, looked up on the PATH the script was given.
func Hermetic(e *testscript.Env) error {
	given := e.Getenv("PATH")
	if err := HermeticHome(e); err != nil {
		return err
	}
	tools, err := hostTools(filepath.Dir(e.WorkDir), given)
	if err != nil {
		return err
	}
	path := []string{filepath.Join(e.WorkDir, "bin")}
	if d := commandsDir(given); d != "" {
		path = append(path, d)
	}
	e.Setenv("PATH", strings.Join(append(path, tools), string(os.PathListSeparator)))
	return nil
}

// HermeticHome is Hermetic with the machine's whole PATH after $WORK/bin:
// for the suite of the real agent CLIs, which runs what npm installed.
func HermeticHome(e *testscript.Env) error {
	env, err := testenv.New(filepath.Join(e.WorkDir, "home"))
	if err != nil {
		return err
	}
	bin := filepath.Join(e.WorkDir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return fmt.Errorf("hermetic setup: %w", err)
	}
	env.Apply(e.Setenv)
	e.Setenv("PATH", bin+string(os.PathListSeparator)+e.Getenv("PATH"))
	return nil
}

// commandsDir is the directory of the suite's own commands on path, which
// testscript.Main puts first: a "bin" directory in a "testscript-main*"
// one. "" when there is none.
func commandsDir(path string) string {
	for _, d := range filepath.SplitList(path) {
		if filepath.Base(d) == "bin" && strings.HasPrefix(filepath.Base(filepath.Dir(d)), "testscript-main") {
			return d
		}
	}
	return ""
}

// toolDirs are the directories of HostTools links, one per directory of
// scripts' work directories, made once.
var toolDirs = struct {
	sync.Mutex
	made map[string]string
}{made: map[string]string{}}

// hostTools returns a directory, beside the scripts' work directories in
// root (so that no script's git repository sees it, and testscript removes
// it with them), of links to the HostTools found on path. Version managers'
// shims directories are passed over: a shim needs its manager and the real
// HOME.
func hostTools(root, path string) (string, error) {
	toolDirs.Lock()
	defer toolDirs.Unlock()
	if d, ok := toolDirs.made[root]; ok {
		return d, nil
	}
	dir := filepath.Join(root, ".hosttools")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("host tools: %w", err)
	}
	for _, name := range HostTools {
		p := lookPath(name, path)
		if p == "" {
			continue
		}
		if err := os.Symlink(p, filepath.Join(dir, name)); err != nil && !os.IsExist(err) {
			return "", fmt.Errorf("host tools: %w", err)
		}
	}
	toolDirs.made[root] = dir
	return dir, nil
}

// lookPath is the executable name on path, version managers' shims
// directories passed over; "" when there is none.
func lookPath(name, path string) string {
	for _, d := range filepath.SplitList(path) {
		if d == "" || filepath.Base(d) == "shims" {
			continue
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
		}
	}
	return ""
}
