package findings

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// reporter is a program known to report, in one run, every failure it
// would report past its first, as long as each option it is given is one
// of safe: an option not listed may cap what it reports (grep -m, cmp),
// summarise it (grep -l, -c, -q, diff -q, gofmt -l, a --check that names
// each file once) or run another program (find -exec, a git alias).
type reporter struct {
	// safe are the options known neither to cap, stop early nor
	// summarise, by name (a long option's name is the text before `=`).
	safe []string
	// any: every option is safe (shell builtins and programs that fail
	// as a whole).
	any bool
	// clustered: a single dash joins short options (`-rn` is -r -n);
	// valued are the short options whose value may follow in the
	// same word (`-A3`).
	clustered bool
	valued    string
	// env names the variable that adds options to every run (read with
	// the stops below, which only the command line can show the
	// gauntlet's rerun how to undo).
	env string
}

// Options of the test runners whose early stop shows in their output and
// that the rerun (rerun.go) takes off the command line; given through
// the environment they stop with nothing to take off.
var envStops = []string{"-failfast", "--failfast", "-test.failfast", "-x", "--exitfirst", "--maxfail", "--bail", "-b"}

var grepSafe = []string{"-r", "-R", "-n", "-i", "-w", "-x", "-v", "-E", "-F", "-G", "-P", "-H", "-h", "-s", "-I", "-o", "-a", "-z", "-T", "-b", "-e", "-f", "-A", "-B", "-C",
	"--recursive", "--dereference-recursive", "--line-number", "--ignore-case", "--word-regexp", "--line-regexp", "--invert-match",
	"--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp", "--with-filename", "--no-filename", "--no-messages",
	"--binary-files", "--text", "--null-data", "--initial-tab", "--byte-offset", "--only-matching", "--regexp", "--file",
	"--include", "--exclude", "--exclude-dir", "--after-context", "--before-context", "--context", "--color", "--colour"}

var goTestSafe = []string{"-run", "-skip", "-v", "-count", "-race", "-msan", "-asan", "-cover", "-covermode", "-coverpkg", "-coverprofile",
	"-json", "-short", "-timeout", "-tags", "-p", "-parallel", "-cpu", "-vet", "-failfast", "-shuffle", "-bench", "-benchtime",
	"-benchmem", "-mod", "-modfile", "-trimpath", "-ldflags", "-gcflags", "-asmflags", "-buildvcs", "-C", "-a", "-x", "-work", "-fullpath"}

var pytestSafe = []string{"-q", "-qq", "-v", "-vv", "-vvv", "-x", "--exitfirst", "--maxfail", "-k", "-m", "--tb", "-r", "-ra", "-rA", "-rf", "-rfE",
	"--no-header", "--no-summary", "-s", "--capture", "-W", "--junitxml", "--junit-xml", "--color", "--durations", "--import-mode",
	"--rootdir", "-n", "--strict-markers", "--disable-warnings", "-p", "--runxfail", "-l", "--showlocals"}

// complete are the programs known to report all their failures in one
// run with the options each lists: linters and type checkers that read
// everything they are given, and the test runners whose early stops
// (go test -failfast, pytest -x, jest --bail, cargo test without
// --no-fail-fast, a Maven reactor or Gradle build that skipped what came
// after a failure) this package reads from their output as a Stop. Not
// here: find (its -exec runs any program), cmp (its first difference
// only), git but for `git grep` and `git diff` (an alias runs any shell
// command), wc, and golangci-lint (it caps repeated issues unless told
// not to).
var complete = map[string]reporter{
	"go test":     {safe: goTestSafe, env: "GOFLAGS"},
	"go vet":      {safe: []string{"-tags", "-json", "-C", "-mod", "-trimpath", "-x", "-n", "-a"}, env: "GOFLAGS"},
	"gofmt":       {safe: []string{"-d", "-e", "-s", "-r"}, clustered: true, valued: "r"},
	"goimports":   {safe: []string{"-d", "-e", "-local", "-format-only", "-srcdir"}},
	"staticcheck": {safe: []string{"-checks", "-tags", "-f", "-go", "-tests", "-show-ignored", "-fail", "-matrix"}, env: "GOFLAGS"},
	"pytest":      {safe: pytestSafe, env: "PYTEST_ADDOPTS"},
	"py.test":     {safe: pytestSafe, env: "PYTEST_ADDOPTS"},
	"jest": {safe: []string{"--bail", "-b", "--ci", "--coverage", "--runInBand", "-i", "--verbose", "--json", "--outputFile", "--testPathPattern",
		"--watchAll", "--passWithNoTests", "--maxWorkers", "-w", "--colors", "--no-cache", "--config", "-c", "--silent", "--selectProjects"}},
	"cargo test": {safe: []string{"--no-fail-fast", "--workspace", "--all", "-p", "--package", "--release", "--all-features", "--features",
		"-F", "--no-default-features", "--lib", "--tests", "--bins", "--examples", "--doc", "-q", "--quiet", "-v", "--verbose", "--locked",
		"--offline", "--frozen", "--all-targets", "--target", "-j", "--jobs", "--color", "--manifest-path", "--exclude"}},
	"mvn": {safe: []string{"-fae", "--fail-at-end", "-ff", "--fail-fast", "-B", "--batch-mode", "-q", "--quiet", "-e", "--errors", "-X", "--debug",
		"-T", "--threads", "-pl", "--projects", "-am", "--also-make", "-amd", "-P", "-U", "-o", "--offline", "-ntp", "--no-transfer-progress", "-f", "--file", "-s", "--settings"}},
	"gradle": {safe: []string{"--continue", "-q", "--quiet", "-i", "--info", "--stacktrace", "-s", "--scan", "--no-daemon", "--offline", "--parallel",
		"--build-cache", "--console", "-p", "--project-dir", "--warning-mode", "--fail-fast"}},
	"eslint": {safe: []string{"-c", "--config", "--ext", "--max-warnings", "-f", "--format", "--no-eslintrc", "--cache", "--cache-location",
		"--ignore-path", "--ignore-pattern", "--no-error-on-unmatched-pattern", "--report-unused-disable-directives", "--color", "--no-color",
		"--resolve-plugins-relative-to", "--rulesdir", "-o", "--output-file", "--no-inline-config", "--env", "--parser"}},
	"tsc": {safe: []string{"--noEmit", "-p", "--project", "--pretty", "--strict", "--incremental", "--skipLibCheck", "--noEmitOnError",
		"--noUnusedLocals", "--noUnusedParameters", "--noImplicitAny", "--target", "--module", "--jsx", "--lib", "--allowJs", "--checkJs",
		"--esModuleInterop", "--moduleResolution", "--strictNullChecks", "--listFiles", "--extendedDiagnostics"}},
	"ruff": {safe: []string{"--no-fix", "--output-format", "--select", "--ignore", "--extend-select", "--extend-ignore", "--config",
		"--exit-zero", "--show-fixes", "--no-cache", "--line-length", "--target-version", "--preview", "--diff", "--exclude", "--extend-exclude"}},
	"flake8": {safe: []string{"--select", "--ignore", "--extend-ignore", "--extend-select", "--max-line-length", "--count", "--show-source",
		"--statistics", "--config", "--exclude", "--extend-exclude", "--max-complexity", "--isolated", "-j", "--jobs"}},
	"mypy": {safe: []string{"--strict", "--ignore-missing-imports", "--config-file", "--python-version", "--no-incremental", "--show-error-codes",
		"--pretty", "--no-error-summary", "--follow-imports", "--namespace-packages", "--explicit-package-bases", "-p", "--package", "-m",
		"--module", "--install-types", "--non-interactive", "--check-untyped-defs", "--disallow-untyped-defs", "--warn-unused-ignores", "--cache-dir", "--no-color-output"}},
	"pylint": {safe: []string{"--disable", "--enable", "--rcfile", "-j", "--jobs", "--output-format", "--reports", "--score", "-rn", "-sn",
		"--fail-under", "--exit-zero", "--recursive", "--ignore", "--ignore-paths", "--max-line-length"}},
	"prettier": {safe: []string{"--config", "--ignore-path", "--no-config", "--plugin", "--parser"}},
	"black":    {safe: []string{"--diff", "-l", "--line-length", "-t", "--target-version", "--config", "--color", "--no-color", "--preview", "-S", "--skip-string-normalization", "--exclude", "--extend-exclude"}},
	"isort":    {safe: []string{"--diff", "--profile", "--settings-path", "--sp", "-l", "--line-length", "--skip", "--skip-glob"}},
	"shellcheck": {safe: []string{"-x", "-s", "-S", "-e", "-f", "-o", "-a", "-C", "-P", "--shell", "--severity", "--exclude", "--format",
		"--external-sources", "--enable", "--check-sourced", "--color", "--source-path", "--norc"}, clustered: true, valued: "sSefoCP"},
	"grep":  {safe: grepSafe, clustered: true, valued: "efABC"},
	"egrep": {safe: grepSafe, clustered: true, valued: "efABC"},
	"fgrep": {safe: grepSafe, clustered: true, valued: "efABC"},
	"rg": {safe: []string{"-n", "-i", "-s", "-S", "-w", "-x", "-v", "-F", "-P", "-U", "-g", "-t", "-T", "-e", "-u", "-uu", "-uuu", "-H", "-N",
		"-A", "-B", "-C", "-o", "--glob", "--type", "--type-not", "--regexp", "--hidden", "--no-ignore", "--with-filename", "--no-heading",
		"--heading", "--line-number", "--no-line-number", "--after-context", "--before-context", "--context", "--color", "--colour",
		"--only-matching", "--json", "--vimgrep", "--ignore-case", "--case-sensitive", "--smart-case", "--word-regexp", "--invert-match",
		"--fixed-strings", "--pcre2", "--multiline"}},
	"git grep": {safe: []string{"-n", "-i", "-w", "-v", "-E", "-F", "-G", "-P", "-e", "-f", "-I", "-h", "-H", "-a", "-r", "-A", "-B", "-C",
		"--line-number", "--ignore-case", "--word-regexp", "--invert-match", "--extended-regexp", "--fixed-strings", "--basic-regexp",
		"--perl-regexp", "--untracked", "--cached", "--no-index", "--no-exclude-standard", "--exclude-standard", "--full-name",
		"--heading", "--break", "--column", "--color", "--no-color", "--text", "--recursive", "--and", "--or", "--not", "--all-match"},
		clustered: true, valued: "efABC"},
	"git diff": {safe: []string{"--exit-code", "--check", "--no-index", "--cached", "--staged", "-U", "--unified", "--color", "--no-color",
		"-w", "-b", "--ignore-all-space", "--ignore-space-change", "--ignore-blank-lines", "-R", "--no-renames", "-M", "--find-renames",
		"--text", "-a", "--patch", "-p", "-u", "--histogram", "--patience", "--minimal", "--no-ext-diff", "--no-textconv"},
		clustered: true, valued: "UM"},
	"diff": {safe: []string{"-u", "-U", "-r", "-N", "-a", "-b", "-w", "-B", "-i", "-c", "-C", "-p", "-d", "-E", "-Z", "-x", "-X",
		"--unified", "--context", "--recursive", "--new-file", "--unidirectional-new-file", "--text", "--ignore-space-change",
		"--ignore-all-space", "--ignore-blank-lines", "--ignore-case", "--strip-trailing-cr", "--color", "--label", "--exclude",
		"--exclude-from", "--show-c-function", "--minimal", "--ignore-tab-expansion", "--ignore-trailing-space", "--no-dereference"},
		clustered: true, valued: "UCxX"},
	"test": {any: true}, "[": {any: true}, "true": {any: true}, "false": {any: true}, ":": {any: true}, "echo": {any: true},
	"printf": {any: true}, "cd": {any: true}, "export": {any: true}, "cat": {any: true}, "ls": {any: true},
}

// unsafeOption is the first option of args that r is not known to take
// without capping, stopping early or summarising what it reports; ""
// when there is none.
func (r reporter) unsafeOption(args []string) string {
	if r.any {
		return ""
	}
	for _, a := range args {
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		if !r.safeOption(a) {
			return a
		}
	}
	return ""
}

// safeOption reports whether option a (one word) is one r lists.
func (r reporter) safeOption(a string) bool {
	name, _, _ := strings.Cut(a, "=")
	if listed(r.safe, name) {
		return true
	}
	if !r.clustered || strings.HasPrefix(a, "--") {
		return false
	}
	for i, c := range a[1:] {
		if !listed(r.safe, "-"+string(c)) {
			return false
		}
		if strings.ContainsRune(r.valued, c) && i+2 < len(a) {
			return true // the rest is its value
		}
	}
	return true
}

// envOption is the first option that getenv's r.env (and, for GOFLAGS,
// the go command's own settings file) adds that is not safe there; "".
func (r reporter) envOption(getenv func(string) string) string {
	if r.env == "" {
		return ""
	}
	v := getenv(r.env)
	if v == "" && r.env == "GOFLAGS" {
		v = goEnvFile(getenv)
	}
	for _, a := range strings.Fields(v) {
		name, _, _ := strings.Cut(a, "=")
		if listed(envStops, name) || !r.safeOption(a) {
			return a
		}
	}
	return ""
}

// goEnvFile is GOFLAGS as `go env -w` set it in the go command's
// settings file ($GOENV, else go/env under the user's configuration
// directory); "" when there is none.
func goEnvFile(getenv func(string) string) string {
	p := getenv("GOENV")
	if p == "off" {
		return ""
	}
	if p == "" {
		dir := getenv("XDG_CONFIG_HOME")
		switch {
		case dir != "":
		case getenv("HOME") == "":
			return ""
		case runtime.GOOS == "darwin":
			dir = filepath.Join(getenv("HOME"), "Library", "Application Support")
		default:
			dir = filepath.Join(getenv("HOME"), ".config")
		}
		p = filepath.Join(dir, "go", "env")
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "GOFLAGS="); ok {
			return v
		}
	}
	return ""
}

// listed reports whether s is in list.
func listed(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
