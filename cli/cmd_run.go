package cli

import (
	"context"
	"errors"

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
	scopeFlags `embed:""`
	Gate       string `short:"g" name:"gate" placeholder:"NAME" help:"Run only the gate with this name."`
	WorkingDir string `name:"working-directory" placeholder:"DIR" help:"Run only the gates whose working directory is DIR, relative to the project root (one job of ci list-jobs)."`
}

// RunCmd is `agent-gauntlet run`.
type RunCmd struct {
	gateFlags `embed:""`
}

// Run executes every applicable check and review gate.
func (c *RunCmd) Run(env *Env) error { return runGauntlet(env, runner.KindsAll, "run", c.gateFlags) }

// runGauntlet runs ExecuteRun for some gate kinds and turns its status into
// the exit code: 128+n when signal n ended the run (SIGINT, SIGTERM,
// SIGHUP, SIGQUIT alike: its gates' process groups killed, the lock
// released); 0 for passed, passed_with_warnings, no_applicable_gates and
// no_changes; 2 for configuration and command-line errors, printed here; 1
// otherwise. ExecuteRun has printed everything else worth saying, errors
// included.
func runGauntlet(env *Env, kinds runner.Kinds, command string, f gateFlags) error {
	res := runner.ExecuteRun(env.Ctx, runner.Options{
		Dir:         env.Cwd,
		Kinds:       kinds,
		Command:     command,
		BaseBranch:  f.BaseBranch,
		Gate:        f.Gate,
		WorkingDir:  f.WorkingDir,
		Commit:      f.Commit,
		Uncommitted: f.Uncommitted,
		Stdout:      env.Stdout,
		Stderr:      env.Stderr,
		Getenv:      env.Getenv,
	})
	var sig *SignalError
	if errors.As(context.Cause(env.Ctx), &sig) {
		return exitPrinted(sig.ExitCode())
	}
	if res.ConfigErr != nil {
		return configError(env.Stderr, res.ConfigErr)
	}
	if code := runner.ExitCode(res.Status); code != ExitOK {
		return exitPrinted(code)
	}
	return nil
}
