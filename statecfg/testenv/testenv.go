// Package testenv is the one hermetic environment of everything that runs
// git or agent-gauntlet away from the machine's own settings: unit tests
// (in-process, through t.Setenv), testscript suites (through their Setup),
// processes started by tests and benchmarks, and the demo. HOME and the XDG
// directories point into a directory of the caller's, git reads only the
// configuration written there (fixed identity, default branch main, no
// signing), and the variables that switch agent-gauntlet's behaviour (CI
// mode, stop-hook overrides) are cleared.
//
// The variable names come from statecfg/config, where the code that reads
// them finds them too.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Identity of every commit made in a hermetic environment.
const (
	GitName  = "Gauntlet Test"
	GitEmail = "test@example.com"
)

// GitConfig is the global git configuration of a hermetic environment.
const GitConfig = "[init]\n\tdefaultBranch = main\n[user]\n\tname = " + GitName + "\n\temail = " + GitEmail +
	"\n[commit]\n\tgpgsign = false\n"

// Cleared are the variables set empty in a hermetic environment: CI
// detection, the stop hook's environment overrides and loop guard, and a
// fixed author date.
var Cleared = []string{
	config.EnvCI, config.EnvGitHubActions, config.EnvGitHubBaseRef, config.EnvGitHubSHA,
	config.EnvStopHookEnabled, config.EnvStopHookIntervalMinutes, config.EnvStopHookActive,
	"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE",
}

// Unset are git's repository variables, which must not even be set empty
// (an inherited GIT_DIR would point every git command elsewhere).
var Unset = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"}

// Env is a hermetic environment whose home is Home.
type Env struct {
	// Home is $HOME; it holds .gitconfig and the XDG directories.
	Home string
}

// New makes home (created if needed) the home of a hermetic environment and
// writes its git configuration.
func New(home string) (Env, error) {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return Env{}, fmt.Errorf("hermetic environment: %w", err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(GitConfig), 0o644); err != nil {
		return Env{}, fmt.Errorf("hermetic environment: %w", err)
	}
	return Env{Home: home}, nil
}

// Vars returns the environment's variables as NAME=value, in a fixed order;
// the Cleared ones come last, with empty values.
func (e Env) Vars() []string {
	vars := []string{
		"HOME=" + e.Home,
		"XDG_CONFIG_HOME=" + filepath.Join(e.Home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(e.Home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(e.Home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(e.Home, ".local", "state"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(e.Home, ".gitconfig"),
		"GIT_AUTHOR_NAME=" + GitName,
		"GIT_AUTHOR_EMAIL=" + GitEmail,
		"GIT_COMMITTER_NAME=" + GitName,
		"GIT_COMMITTER_EMAIL=" + GitEmail,
		"GORACE=" + RaceOptions(os.Getenv("GORACE")),
	}
	for _, k := range Cleared {
		vars = append(vars, k+"=")
	}
	return vars
}

// RaceOptions is the race runtime's options (GORACE) of a hermetic
// environment: given, the caller's, with atexit_sleep_ms=0 added unless
// given sets it. The runtime of a race-built program pauses a second at
// every exit with status 0 by default; under go test -race, the test
// binary that testscript runs as agent-gauntlet is one, started thousands
// of times by the suites. A race is still reported where it happens, and
// the exit status still says so. The option changes nothing in a program
// built without -race.
func RaceOptions(given string) string {
	for _, opt := range strings.Fields(given) {
		if strings.HasPrefix(opt, "atexit_sleep_ms=") {
			return given
		}
	}
	return strings.TrimSpace(given + " atexit_sleep_ms=0")
}

// Apply sets every variable of Vars with setenv (a testscript Env's Setenv,
// say).
func (e Env) Apply(setenv func(key, value string)) {
	for _, kv := range e.Vars() {
		k, v, _ := strings.Cut(kv, "=")
		setenv(k, v)
	}
}

// Environ is the whole environment of a child process that inherits nothing
// else: PATH=path, then Vars, then extra (NAME=value each).
func (e Env) Environ(path string, extra ...string) []string {
	env := append([]string{"PATH=" + path}, e.Vars()...)
	return append(env, extra...)
}

// Inherit is base (os.Environ, say) without any variable Vars or Unset
// names, followed by Vars: a child process keeps the rest of the caller's
// environment.
func (e Env) Inherit(base []string) []string {
	vars := e.Vars()
	drop := map[string]bool{}
	for _, kv := range vars {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
	}
	for _, k := range Unset {
		drop[k] = true
	}
	var env []string
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			env = append(env, kv)
		}
	}
	return append(env, vars...)
}

// Setenv makes the test process hermetic for the duration of t: a fresh
// home in t.TempDir, every variable of Vars set with t.Setenv, the Unset
// ones removed (restored after the test). Tests that call it cannot run in
// parallel.
func Setenv(t testing.TB) Env {
	t.Helper()
	e, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e.Apply(t.Setenv)
	for _, k := range Unset {
		t.Setenv(k, "") // registers the restore
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
	}
	return e
}
