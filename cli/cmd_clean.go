package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// CleanCmd is `agent-gauntlet clean`.
type CleanCmd struct{}

// Run archives the logs and the execution state of the project a stop
// hook whose session is in the working directory judges (stophook.Judge)
// into <log_dir>/previous/, log_dir being the configuration in force
// there (the trusted one, whose logs and retry budget the stop hook
// keeps, never a work tree's that moved it), under the run lock
// (runner.Clean). It says which project and log directory it cleaned.
// Without a project it refuses (exit 2) and touches nothing: no record
// there says which files the gauntlet wrote. A configuration in force that
// does not load (or a trusted one without gates) does not stop it: the log
// directory is then the one a config.yml that loads names (the one in
// force's, else the work tree's), else the default, and a warning says
// why and which (stophook.Judgment.Housekeeping); only the gauntlet's own
// files there are archived, as always. It exits 2 only when no log
// directory passes the rules of log_dir, and 1 while a run is in progress
// (lock held).
func (c *CleanCmd) Run(env *Env) error {
	j, err := stophook.Judge(env.Ctx, env.Cwd, env.Getenv, time.Now())
	if err != nil {
		return err
	}
	if j.Root == "" {
		return usageError(fmt.Errorf("clean: %w: nothing was moved or deleted", &config.NotFoundError{Dir: env.Cwd}))
	}
	h, err := j.Housekeeping(env.Ctx)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agent-gauntlet: clean: no log directory of %s to clean; nothing was moved or deleted:\n", runner.SafeText(j.Root))
		return configError(env.Stderr, err)
	}
	writeHousekeeping(env, j, h)
	if st := j.Trust; st != nil && !st.Trusted && j.Source != trust.SourceNone {
		// The log directory is the trusted configuration's: say how the
		// work tree's differs (deleted, log_dir moved, ...).
		fmt.Fprintf(env.Stderr, "Trust: %s (project %s)\n", st.Describe(), runner.SafeText(j.Root))
	}
	res, err := runner.Clean(env.Ctx, runner.CleanOptions{Config: h.Config, Dir: env.Cwd, Getenv: env.Getenv,
		GatesUnknown: h.From != stophook.FromInForce, Gates: h.WorkTree})
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	var problems *config.Errors
	if errors.As(err, &problems) {
		return configError(env.Stderr, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Project: %s (logs in %s)\n", runner.SafeText(j.Root), runner.SafeText(res.LogDir))
	if res.Archived {
		fmt.Fprintln(env.Stdout, "Logs archived successfully.")
	} else {
		fmt.Fprintln(env.Stdout, "Nothing to clean.")
	}
	return nil
}

// writeHousekeeping prints the warnings of the configuration clean read
// and, when the one in force does not open, why and which configuration's
// log directory clean archives instead.
func writeHousekeeping(env *Env, j stophook.Judgment, h stophook.Housekeeping) {
	config.WriteWarnings(env.Stderr, h.Config.Warnings)
	if h.From == stophook.FromInForce {
		return
	}
	why := "does not load"
	if errors.Is(h.InForce, config.ErrNotFound) {
		why = "has no gates"
	}
	which := map[stophook.LogDirFrom]string{
		stophook.FromInForceSettings: "its config.yml names",
		stophook.FromWorkTree:        "the work tree's config.yml names",
		stophook.FromDefault:         config.DefaultLogDir + ", the default: no config.yml that loads names one",
	}[h.From]
	fmt.Fprintf(env.Stderr, "warning: the configuration the stop hook runs in %s (%s) %s; clean archives the log directory %s (only the gauntlet's own files there move):\n",
		runner.SafeText(j.Root), sourceText(j.Source), why, which)
	for _, l := range strings.Split(config.ErrorText(h.InForce), "\n") {
		fmt.Fprintln(env.Stderr, runner.SafeText(l))
	}
}

// sourceText says where a configuration in force comes from.
func sourceText(s trust.Source) string {
	switch s {
	case trust.SourceRecord:
		return "the trusted record"
	case trust.SourceHEAD:
		return "the one committed at HEAD"
	}
	return "the work tree's, which nobody trusted"
}
