package config

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// CheckFormats are the values of a check's format key: the output formats
// the runner reads findings from (runner/findings.Formats, which a test
// keeps equal to this list). Empty means the runner recognises the format
// from the command.
var CheckFormats = []string{
	"ansible-lint", "bandit", "black", "brakeman", "buf", "cargo-check", "cargo-test", "clippy", "dotenv-linter",
	"dotnet", "erb-lint", "eslint", "eslint-compact", "fasterer", "flake8", "go-consistent", "go-test", "go-test-json",
	"golangci-lint", "golint", "gosec", "govet", "haml-lint", "hlint", "isort", "jest", "junit", "luacheck", "misspell",
	"msbuild", "mypy", "pep8", "phpstan", "protolint", "psalm", "puppet-lint", "pydocstyle", "pylint", "pytest", "reek",
	"remark-lint", "rubocop", "ruff", "rustc", "sbt", "sbt-scalastyle", "scalac", "scalastyle", "slim-lint", "sorbet",
	"standardjs", "standardrb", "staticcheck", "stylelint", "text", "tsc", "tslint", "typos", "yamllint",
}

// parseOutput decodes a check's format and junit keys into chk.
func parseOutput(o *object, chk *Check) {
	if s, ok := o.nonEmpty("format"); ok {
		if slices.Contains(CheckFormats, s) {
			chk.Format = s
		} else {
			o.errorf("format", "must be an output format the gauntlet reads (got %q): one of %s", s, strings.Join(CheckFormats, ", "))
		}
	}
	if s, ok := o.nonEmpty("junit"); ok {
		if msg := junitProblem(s); msg != "" {
			o.errorf("junit", "%s", msg)
		} else {
			chk.JUnit = s
		}
	}
}

// junitProblem says what is wrong with a junit path or pattern ("" when
// nothing): relative to the working directory, inside it, a valid glob.
func junitProblem(p string) string {
	if msg := relativeProblem(p, "the check's working directory"); msg != "" {
		return msg
	}
	if filepath.Clean(p) == "." {
		return "must name a file (or a glob of files), not the directory itself"
	}
	if _, err := path.Match(filepath.ToSlash(p), ""); err != nil {
		return "is not a valid glob pattern: " + err.Error()
	}
	return ""
}
