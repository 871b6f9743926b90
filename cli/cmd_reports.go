package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/repo"
	runreport "github.com/agent-gauntlet/agent-gauntlet/cli/internal/report"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// formatJSON is --format's value for the JSON document.
const formatJSON = "json"

// reportFlags are the report flags of run, check and review.
type reportFlags struct {
	Format string `name:"format" enum:"text,json" default:"text" help:"Output format on stdout: text (the console lines go to stderr, nothing to stdout) or json (one JSON document describing the run, whatever its outcome; the console lines are only written to the console log, and stderr carries nothing but errors)."`
	JUnit  string `name:"junit" placeholder:"FILE" help:"Also write a JUnit XML report to FILE (relative to the current directory, outside the log directory): one test case per gate, for CI test reporters."`
	SARIF  string `name:"sarif" placeholder:"FILE" help:"Also write a SARIF 2.1.0 report to FILE (relative to the current directory, outside the log directory): failed checks and review violations, for GitHub code scanning."`
}

// json reports whether --format json was given.
func (f reportFlags) json() bool { return f.Format == formatJSON }

// reportPaths are the absolute paths of the report files to write ("" for
// none).
type reportPaths struct {
	junit, sarif string
}

// list lists the report files.
func (p reportPaths) list() []string {
	var out []string
	for _, f := range []string{p.junit, p.sarif} {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// precheck refuses, before a run locks or writes anything, a report file
// inside the log directory of the project cfg, whose files are the
// gauntlet's own (clean archives them, run numbering and verification read
// them), or inside .gauntlet/, the configuration, or one that is a
// directory. Paths are compared after resolving symbolic links.
func (p reportPaths) precheck(cfg *config.Config) error {
	dirs := []struct{ what, path string }{
		{"the log directory", cfg.LogDirPath()},
		{"the configuration directory", filepath.Join(cfg.Root, config.Dir)},
	}
	for _, f := range p.list() {
		real := resolvePath(f)
		for _, d := range dirs {
			if within(real, resolvePath(d.path)) {
				return &reportPathError{Path: f, Reason: fmt.Sprintf("it is in %s %s, which holds only the gauntlet's own files: write it elsewhere", d.what, d.path)}
			}
		}
		if fi, err := os.Stat(f); err == nil && fi.IsDir() {
			return &reportPathError{Path: f, Reason: "it is a directory"}
		}
	}
	return nil
}

// reportPathError refuses a report file (see precheck): the command writes
// no report then.
type reportPathError struct {
	Path, Reason string
}

// Error names the file and why it is refused.
func (e *reportPathError) Error() string { return fmt.Sprintf("report file %s: %s", e.Path, e.Reason) }

// resolvePath is the absolute path p with the symbolic links of its
// longest existing prefix resolved.
func resolvePath(p string) string {
	p, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// reportPaths resolves the report flags against cwd.
func (f reportFlags) reportPaths(cwd string) (reportPaths, error) {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(cwd, p)
	}
	p := reportPaths{junit: abs(f.JUnit), sarif: abs(f.SARIF)}
	if p.junit != "" && filepath.Clean(p.junit) == filepath.Clean(p.sarif) {
		return p, fmt.Errorf("--junit and --sarif name the same file %s", f.JUnit)
	}
	return p, nil
}

// finishReports ends a run, check or review whose result is res: it
// writes the report files (none when paths is nil), prints the JSON
// document with --format json, and returns the command's exit (see
// runExit). A report that cannot be written is an error too, and fails a
// command that would have passed (exit 1).
func finishReports(env *Env, command string, f reportFlags, paths *reportPaths, res runner.RunResult) error {
	code, exit := runExit(env, f, res)
	r := runreport.Run{Command: command, Version: Version, Result: res, ExitCode: code}
	if paths != nil {
		if err := writeReports(env, *paths, &r); err != nil {
			r.ExitCode = max(code, ExitFailure)
			exit = &ExitError{Code: r.ExitCode, Err: errors.Join(unprinted(exit), err)}
		}
	}
	if f.json() {
		if err := runreport.WriteJSON(env.Stdout, r); err != nil {
			return errors.Join(exit, err)
		}
	}
	return exit
}

// runExit is the exit code of res and the error that ends the command
// with it (nil for success): a configuration or command-line error is
// printed as every command prints it (exit 2); a run a signal ended exits
// 128+n (see runGauntlet); any other failure was
// printed by the run, except with --format json, which silences the run:
// then its error, when it has one, is printed, on stderr, as the
// document's "error".
func runExit(env *Env, f reportFlags, res runner.RunResult) (int, error) {
	if res.ConfigErr != nil {
		return ExitUsage, configError(env.Stderr, res.ConfigErr)
	}
	var sig *SignalError
	if errors.As(context.Cause(env.Ctx), &sig) {
		return sig.ExitCode(), exitPrinted(sig.ExitCode())
	}
	code := runner.ExitCode(res.Status)
	switch {
	case code == ExitOK:
		return code, nil
	case f.json() && res.ErrorMessage != "":
		return code, &ExitError{Code: code, Err: errors.New(res.ErrorMessage)}
	}
	return code, exitPrinted(code)
}

// unprinted is err unless Main would print nothing for it.
func unprinted(err error) error {
	if errors.Is(err, errPrinted) {
		return nil
	}
	return err
}

// writeReports writes the JUnit and SARIF files of paths, creating their
// directories, and returns every failure.
func writeReports(env *Env, paths reportPaths, r *runreport.Run) error {
	var errs []error
	write := func(path, what string, w func(string, runreport.Run) error) {
		if path == "" {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			errs = append(errs, fmt.Errorf("write the %s report: %w", what, err))
			return
		}
		if err := w(path, *r); err != nil {
			errs = append(errs, fmt.Errorf("write the %s report: %w", what, err))
		}
	}
	if r.Result.Root != "" {
		if top, err := repo.TopLevel(env.Ctx, r.Result.Root); err == nil {
			if rel, err := filepath.Rel(top, r.Result.Root); err == nil {
				r.TopLevel, r.ProjectDir = top, filepath.ToSlash(rel)
			}
		}
	}
	write(paths.junit, "JUnit", runreport.WriteJUnit)
	write(paths.sarif, "SARIF", runreport.WriteSARIF)
	return errors.Join(errs...)
}
