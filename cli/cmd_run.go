package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// scopeFlags are the change-scope flags shared by run, check, review and
// detect.
type scopeFlags struct {
	BaseBranch  string `short:"b" name:"base-branch" placeholder:"BRANCH" help:"Compare the changes against this branch instead of base_branch from .gauntlet/config.yml."`
	Commit      string `short:"c" name:"commit" placeholder:"SHA" xor:"scope" help:"Use the changes of this one commit instead of the current changes."`
	Uncommitted bool   `short:"u" name:"uncommitted" xor:"scope" help:"Use only staged, unstaged and untracked changes, ignoring committed ones."`
}

// gateFlags are the flags of run, check and review.
type gateFlags struct {
	scopeFlags  `embed:""`
	reportFlags `embed:""`
	Gate        string `short:"g" name:"gate" placeholder:"NAME" help:"Run only the gate with this name."`
	NoCache     bool   `name:"no-cache" help:"Run every gate, even those whose pass the result cache holds for exactly this input (passes are still recorded)."`
	WorkingDir  string `name:"working-directory" placeholder:"DIR" help:"Run only the gates whose working directory is DIR, relative to the project root (one job of ci list-jobs)."`
}

// RunCmd is `agent-gauntlet run`.
type RunCmd struct {
	gateFlags `embed:""`
}

// Run executes every applicable check and review gate.
func (c *RunCmd) Run(env *Env) error { return runGauntlet(env, runner.KindsAll, "run", c.gateFlags) }

// runGauntlet runs ExecuteRun for some gate kinds, writes the reports the
// flags ask for, and turns the status into the exit code: 128+n when
// signal n ended the run (SIGINT, SIGTERM, SIGHUP, SIGQUIT alike: its
// gates' process groups killed, the lock released); 0 for passed,
// passed_with_warnings, no_applicable_gates and no_changes; 2 for
// configuration and command-line errors, printed here; 1 otherwise.
// ExecuteRun has printed everything else worth saying, errors included,
// unless --format json silenced it (see finishReports).
func runGauntlet(env *Env, kinds runner.Kinds, command string, f gateFlags) error {
	paths, err := f.reportPaths(env.Cwd)
	if err != nil {
		res := runner.RunResult{Status: runner.StatusError, ErrorMessage: err.Error(), ConfigErr: err}
		res.Message = res.Headline(res.Detail())
		return finishReports(env, command, f.reportFlags, nil, res)
	}
	st := handTrust(env)
	if st.differs && !f.json() {
		// --format json keeps stderr silent: the report is the output.
		fmt.Fprintf(env.Stderr, "warning: %s\n", st.status.Describe())
	}
	res := runner.ExecuteRun(env.Ctx, runner.Options{
		Untrusted:     st.differs,
		NobodyTrusted: st.nobody,
		Dir:           env.Cwd,
		Kinds:         kinds,
		Command:       f.commandLine(command),
		BaseBranch:    f.BaseBranch,
		Gate:          f.Gate,
		WorkingDir:    f.WorkingDir,
		Commit:        f.Commit,
		Uncommitted:   f.Uncommitted,
		Precheck:      paths.precheck,
		Silent:        f.json(),
		NoCache:       f.NoCache,
		Version:       CacheVersion(),
		Stdout:        env.Stdout,
		Stderr:        env.Stderr,
		Getenv:        env.Getenv,
	})
	if err := spelled(res.ConfigErr); err != res.ConfigErr {
		res.ConfigErr, res.ErrorMessage = err, err.Error()
		res.Message = res.Headline(res.Detail())
	}
	var refused *reportPathError
	if errors.As(res.ConfigErr, &refused) {
		return finishReports(env, command, f.reportFlags, nil, res)
	}
	return finishReports(env, command, f.reportFlags, &paths, res)
}

// commandLine is the command with its flags, for the debug log's COMMAND
// event.
func (f gateFlags) commandLine(command string) string {
	parts := []string{command}
	if f.BaseBranch != "" {
		parts = append(parts, "-b", f.BaseBranch)
	}
	if f.Gate != "" {
		parts = append(parts, "-g", f.Gate)
	}
	if f.WorkingDir != "" {
		parts = append(parts, "--working-directory", f.WorkingDir)
	}
	if f.Commit != "" {
		parts = append(parts, "-c", f.Commit)
	}
	if f.Uncommitted {
		parts = append(parts, "-u")
	}
	return strings.Join(parts, " ")
}
