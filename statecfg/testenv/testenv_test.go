package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestVars(t *testing.T) {
	e := Env{Home: "/h"}
	vars := e.Vars()
	for _, want := range []string{"HOME=/h", "XDG_CONFIG_HOME=/h/.config", "GIT_CONFIG_GLOBAL=/h/.gitconfig", "GIT_CONFIG_NOSYSTEM=1", "CI=", "GAUNTLET_STOP_HOOK_ACTIVE="} {
		if !slices.Contains(vars, want) {
			t.Errorf("Vars lacks %q: %q", want, vars)
		}
	}
	got := e.Inherit([]string{"PATH=/bin", "HOME=/real", "CI=true", "GIT_DIR=/x", "LANG=C"})
	if !slices.Contains(got, "PATH=/bin") || !slices.Contains(got, "LANG=C") || slices.Contains(got, "HOME=/real") ||
		slices.Contains(got, "CI=true") || slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "GIT_DIR=") }) {
		t.Errorf("Inherit = %q", got)
	}
	if env := e.Environ("/bin", "X=1"); env[0] != "PATH=/bin" || env[len(env)-1] != "X=1" {
		t.Errorf("Environ = %q", env)
	}
}

// A race-built program started in a hermetic environment (the test binary
// that testscript runs as agent-gauntlet, under go test -race) exits
// without the race runtime's pause (a second by default, at every exit
// with status 0), whatever else the caller's GORACE asks for; a pause the
// caller sets is kept.
func TestVarsRaceOptions(t *testing.T) {
	for _, tc := range []struct{ given, want string }{
		{"", "GORACE=atexit_sleep_ms=0"},
		{"halt_on_error=1", "GORACE=halt_on_error=1 atexit_sleep_ms=0"},
		{"log_path=/tmp/r  halt_on_error=1", "GORACE=log_path=/tmp/r  halt_on_error=1 atexit_sleep_ms=0"},
		{"atexit_sleep_ms=50", "GORACE=atexit_sleep_ms=50"},
		{"halt_on_error=1 atexit_sleep_ms=1000", "GORACE=halt_on_error=1 atexit_sleep_ms=1000"},
	} {
		t.Setenv("GORACE", tc.given)
		vars := Env{Home: "/h"}.Vars()
		if !slices.Contains(vars, tc.want) {
			t.Errorf("GORACE=%q: Vars = %q, want %q", tc.given, vars, tc.want)
		}
		inherited := Env{Home: "/h"}.Inherit([]string{"GORACE=" + tc.given})
		if n := len(slices.DeleteFunc(inherited, func(kv string) bool { return !strings.HasPrefix(kv, "GORACE=") })); n != 1 {
			t.Errorf("GORACE=%q: Inherit holds GORACE %d times", tc.given, n)
		}
	}
}

// A commit made in the hermetic environment carries its identity, on main,
// whatever the machine's git configuration says.
func TestSetenvGit(t *testing.T) {
	t.Setenv("GIT_DIR", "/nonexistent")
	t.Setenv("CI", "true")
	e := Setenv(t)
	if _, set := os.LookupEnv("GIT_DIR"); set {
		t.Fatal("GIT_DIR still set")
	}
	if os.Getenv("CI") != "" || os.Getenv("HOME") != e.Home {
		t.Fatalf("CI=%q HOME=%q", os.Getenv("CI"), os.Getenv("HOME"))
	}
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", repo, "log", "-1", "--format=%an <%ae> %D").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != GitName+" <"+GitEmail+"> HEAD -> main" {
		t.Errorf("commit = %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.Home, ".gitconfig")); err != nil {
		t.Error(err)
	}
}
