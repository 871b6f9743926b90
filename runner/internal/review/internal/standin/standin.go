// Package standin installs fake review CLIs for tests: shell scripts named
// like the real binaries (claude, codex, gemini, copilot, agent) that record
// how they were called and answer from files.
//
// Every file lives in one directory D (also put first on PATH):
//
//	D/<bin>.argv    written: one argument per line
//	D/<bin>.stdin   written: the whole stdin of the last call
//	D/<bin>.env     written: the value of GAUNTLET_STOP_HOOK_ACTIVE
//	D/<bin>.cwd     written: the working directory
//	D/<bin>.calls   appended: one line per call
//	D/<bin>.answer  read: printed on stdout (default: a passing review)
//	D/<bin>.stderr  read: printed on stderr
//	D/<bin>.exit    read: the exit code (default 0)
//	D/<bin>.sleep   read: seconds to sleep before answering
package standin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Binaries are the program names of the five adapters.
var Binaries = []string{"claude", "codex", "gemini", "copilot", "agent"}

// PassAnswer is the default answer: a passing review.
const PassAnswer = `{"status":"pass","message":"No problems found"}`

// Script is the stand-in program; its own name selects its files.
const Script = `#!/bin/sh
name=$(basename "$0")
d=$(dirname "$0")
: > "$d/$name.argv"
for a in "$@"; do printf '%s\n' "$a" >> "$d/$name.argv"; done
cat > "$d/$name.stdin"
printf '%s\n' "$GAUNTLET_STOP_HOOK_ACTIVE" > "$d/$name.env"
pwd -P > "$d/$name.cwd"
echo call >> "$d/$name.calls"
if [ -f "$d/$name.sleep" ]; then sleep "$(cat "$d/$name.sleep")"; fi
if [ -f "$d/$name.stderr" ]; then cat "$d/$name.stderr" >&2; fi
if [ -f "$d/$name.answer" ]; then cat "$d/$name.answer"; else echo '` + PassAnswer + `'; fi
if [ -f "$d/$name.exit" ]; then exit "$(cat "$d/$name.exit")"; fi
exit 0
`

// Install writes the stand-ins named bins (all when none) into a new
// directory, puts it first on PATH for the test and returns it.
func Install(t testing.TB, bins ...string) string {
	t.Helper()
	if len(bins) == 0 {
		bins = Binaries
	}
	dir := t.TempDir()
	for _, b := range bins {
		if err := os.WriteFile(filepath.Join(dir, b), []byte(Script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// Set writes D/<bin>.<kind> (kind: answer, stderr, exit, sleep).
func Set(t testing.TB, dir, bin, kind, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, bin+"."+kind), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Read returns D/<bin>.<kind> ("" when absent).
func Read(t testing.TB, dir, bin, kind string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, bin+"."+kind))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// Argv returns the recorded arguments of the last call.
func Argv(t testing.TB, dir, bin string) []string {
	t.Helper()
	s := strings.TrimSuffix(Read(t, dir, bin, "argv"), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Calls returns how many times bin ran.
func Calls(t testing.TB, dir, bin string) int {
	t.Helper()
	return strings.Count(Read(t, dir, bin, "calls"), "call\n")
}
