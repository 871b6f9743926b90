package findings

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMayStopEarly: a command is known to run, past its first failure,
// all it would run only when every program in it reports all its
// failures in one run (or its stops show in its output) and nothing in
// the shell decides, at a failure, to run less. The table is the shell
// forms that can stop early (an `exit` after `;` or `||`, a subshell or
// group holding `&&`, a loop with `exit`, `set -e`, a script, `sh -c`, a
// make recipe, a package script, an `if`, a function, a program named as
// it runs) each wrapped around the same tools, against the forms that
// cannot (one tool, `!`, `;`, `|`, `||` between complete tools, a
// command substitution).
func TestMayStopEarly(t *testing.T) {
	getenv := noEnv(t)
	tools := []string{"grep -rn BAD .", "go vet ./...", "npx eslint .", "ruff check .", "pytest -x", "go test -failfast ./...", "tsc --noEmit"}
	stops := []string{
		"%[1]s && exit 1; %[2]s && exit 1; true",
		"! %[1]s || exit 1; ! %[2]s",
		"( ! %[1]s && ! %[2]s )",
		"{ %[1]s && exit 1; %[2]s && exit 1; }",
		"for p in A B; do %[1]s && exit 1; done; %[2]s",
		"set -e; %[1]s; %[2]s",
		"set -euo pipefail; %[1]s; %[2]s",
		"set -o errexit; %[1]s; %[2]s",
		"sh ../tools/ci.sh; %[1]s; %[2]s",
		"sh -c \"! %[1]s && ! %[2]s\"",
		"bash -c '%[1]s; %[2]s'",
		"make check",
		"npm test",
		"npm run lint",
		"./run-all.sh",
		"if %[1]s; then %[2]s; fi",
		"while %[1]s; do %[2]s; done",
		"f() { %[1]s || return 1; %[2]s; }; f",
		"$LINT; %[1]s",
		"eval '%[1]s'; %[2]s",
		". ./lint.sh",
		"%[1]s; { %[2]s; } && true",
		"(%[1]s); %[2]s || exit 1",
	}
	runsAll := []string{
		"%[1]s",
		"! %[1]s",
		"%[1]s; %[2]s",
		"! %[1]s; ! %[2]s",
		"%[1]s | %[2]s",
		"%[1]s || %[2]s",
		"( %[1]s; %[2]s )",
		"{ ! %[1]s; %[2]s; }",
		"test -z \"$(%[1]s)\"",
		"X=1 %[1]s; %[2]s 2>&1",
		"set -x; %[1]s; %[2]s",
		"for p in a b; do %[1]s; done",
		"case x in x) %[1]s;; esac",
	}
	for _, a := range tools {
		for _, b := range tools {
			for _, f := range stops {
				cmd := fmt.Sprintf(f, a, b)
				if why := mayStopEarly(cmd, getenv); why == "" {
					t.Errorf("%q: known to run all it would, but it may stop at its first failure", cmd)
				}
			}
			for _, f := range runsAll {
				cmd := fmt.Sprintf(f, a, b)
				if why := mayStopEarly(cmd, getenv); why != "" {
					t.Errorf("%q: may stop early (%s), but it runs all it would", cmd, why)
				}
			}
		}
	}
}

// noEnv is an environment with nothing set but a HOME with no settings.
func noEnv(t *testing.T) func(string) string {
	home := t.TempDir()
	return func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

// TestMayStopEarlyOptions: "reports all its failures" is a claim about a
// program, its options and the environment it reads, and holds only for
// a listed program whose every option is one it lists as safe. Each
// program is run with each of its safe options (known to report all),
// and with each option that caps, stops early, summarises or runs
// another program, and each unlisted program (may stop early).
func TestMayStopEarlyOptions(t *testing.T) {
	getenv := noEnv(t)
	// An option that caps, summarises or runs another program, for every
	// listed program that takes options, and one no program lists.
	unsafe := []string{"-m1", "-m", "--max-count=1", "-l", "-L", "-c", "-q", "--quiet", "--count", "--files-with-matches",
		"--files-without-match", "--brief", "--check", "--list-different", "--statistics", "--max-same-issues=3",
		"-exec", "-O", "--no-such-option"}
	for name, r := range complete {
		if r.any {
			continue
		}
		for _, o := range r.safe {
			cmd := name + " " + o + " x"
			if why := mayStopEarly(cmd, getenv); why != "" {
				t.Errorf("%q: may stop early (%s), but every option of it is safe", cmd, why)
			}
		}
		for _, o := range unsafe {
			if r.safeOption(o) {
				continue // a safe option of this program (pytest -m, eslint -c ...)
			}
			for _, form := range []string{"%s %s x", "! %s %s x", "%s %s x | true"} {
				cmd := fmt.Sprintf(form, name, o)
				if why := mayStopEarly(cmd, getenv); why == "" {
					t.Errorf("%q: known to report all, but %s may cap or summarise it", cmd, o)
				}
			}
		}
	}
	told := []string{
		`git -c alias.ci="!sh tools/ci.sh" ci`,
		"git lint",
		"git ci",
		"git -C sub grep -n BAD",
		"find tools -name ci.sh -exec sh {} +",
		"find src -type d -empty",
		"! grep -rn -m1 BAD src",
		"! grep -rnm1 BAD src",
		"! grep -rl BAD src",
		"! grep -rL BAD src",
		"! grep -rc BAD src",
		"! grep -rq BAD src",
		"! grep --max-count 1 -rn BAD src",
		"! git grep -l BAD -- src",
		"! git grep -n -m1 BAD -- src",
		"! git grep -O BAD",
		"cmp src/a.txt src/exp.txt",
		"diff -q src/a.txt src/exp.txt",
		"diff --brief src/a.txt src/exp.txt",
		"! gofmt -l . | grep .",
		"test -z \"$(gofmt -l .)\"",
		"prettier --check .",
		"black --check .",
		"isort -c .",
		"ruff format --check .",
		"flake8 -q .",
		"golangci-lint run",
		"grep -rn BAD . | wc -l",
		"GOFLAGS=-failfast go test ./...",
		"env GOFLAGS=-failfast go test ./...",
		"export GOFLAGS=-failfast; go test ./...",
		"GOFLAGS=$X go test ./...",
		"PYTEST_ADDOPTS=-x pytest",
		"PYTEST_ADDOPTS='--maxfail=1' pytest -q",
		"go test -exec ./wrap ./...",
	}
	for _, cmd := range told {
		if why := mayStopEarly(cmd, getenv); why == "" {
			t.Errorf("%q: known to report all its failures, but it may not", cmd)
		}
	}
	quiet := []string{
		"! grep -rn BAD src",
		"! grep -rn -A3 -e BAD --include=*.go src",
		"! git grep -n BAD -- src",
		"git diff --exit-code",
		"diff -u src/a.txt src/exp.txt",
		"gofmt -d .",
		"go test -failfast ./...",
		"pytest -x",
		"GOFLAGS=-mod=mod go test ./...",
		"PYTEST_ADDOPTS=-q pytest",
	}
	for _, cmd := range quiet {
		if why := mayStopEarly(cmd, getenv); why != "" {
			t.Errorf("%q: may stop early (%s), but it reports all", cmd, why)
		}
	}
}

// TestMayStopEarlyEnv: options a program reads from the environment it
// runs in count as given, and `go env -w GOFLAGS=...` (the go command's
// settings file) as much as GOFLAGS: each stop option there, for each
// program reading it, may stop early; the command line's -failfast does
// not (the rerun takes it off).
func TestMayStopEarlyEnv(t *testing.T) {
	home := t.TempDir()
	envFile := filepath.Join(home, ".config", "go", "env")
	cases := []struct {
		env     map[string]string
		goenv   string // the settings file's text
		command string
		stops   bool
	}{
		{nil, "", "go test ./...", false},
		{map[string]string{"GOFLAGS": "-failfast"}, "", "go test ./...", true},
		{map[string]string{"GOFLAGS": "-failfast=true -mod=mod"}, "", "go test ./...", true},
		{map[string]string{"GOFLAGS": "-mod=mod"}, "", "go test ./...", false},
		{map[string]string{"GOFLAGS": "-exec=./wrap"}, "", "go test ./...", true},
		{nil, "GOFLAGS=-failfast\n", "go test ./...", true},
		{nil, "GOFLAGS=-failfast\n", "go vet ./...", true},
		{nil, "GOPROXY=off\n", "go test ./...", false},
		{map[string]string{"GOENV": "off"}, "GOFLAGS=-failfast\n", "go test ./...", false},
		{map[string]string{"GOFLAGS": "-mod=mod"}, "GOFLAGS=-failfast\n", "go test ./...", false},
		{map[string]string{"PYTEST_ADDOPTS": "-x"}, "", "pytest", true},
		{map[string]string{"PYTEST_ADDOPTS": "--exitfirst"}, "", "py.test -q", true},
		{map[string]string{"PYTEST_ADDOPTS": "--maxfail=2"}, "", "pytest", true},
		{map[string]string{"PYTEST_ADDOPTS": "-q"}, "", "pytest", false},
		{map[string]string{"PYTEST_ADDOPTS": "-x"}, "", "grep -rn BAD .", false},
	}
	for _, c := range cases {
		if err := os.MkdirAll(filepath.Dir(envFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(envFile, []byte(c.goenv), 0o644); err != nil {
			t.Fatal(err)
		}
		getenv := func(k string) string {
			if k == "HOME" {
				return home
			}
			return c.env[k]
		}
		if why := mayStopEarly(c.command, getenv); (why != "") != c.stops {
			t.Errorf("%q with %v, settings %q: may stop early %q, want %v", c.command, c.env, c.goenv, why, c.stops)
		}
	}
}
