package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/decisions"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/run"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// CleanOptions configure Clean.
type CleanOptions struct {
	// Config is the project (see config.LoadProject); nil when there is none.
	Config *config.Config
	// Dir holds the gauntlet_logs cleaned without a project; empty means
	// the cwd.
	Dir string
	// Getenv reads the environment (the global configuration's path); nil
	// means os.Getenv.
	Getenv func(string) string
	// Now is the debug log's clock; nil means time.Now.
	Now func() time.Time
	// GatesUnknown marks a Config read from a config.yml alone (the
	// configuration in force does not load): its gates are not known.
	// The logs are then named, and how long a run may hold the lock
	// bounded, by the gates of Gates; with Gates nil too no lock is stale
	// by its age.
	GatesUnknown bool
	// Gates is the whole configuration runs by hand run, when GatesUnknown
	// (nil when that does not load either).
	Gates *config.Config
}

// CleanResult is what Clean did.
type CleanResult struct {
	// LogDir is the log directory it cleaned.
	LogDir string
	// Archived is false when there was nothing to archive.
	Archived bool
	// Warnings are one line each (a stale lock taken over, an unreadable
	// global configuration, an entry of the log directory left in place),
	// without a prefix.
	Warnings []string
}

// CleanReason is why `agent-gauntlet clean` drops the verdicts it finds
// pending, as the gauntlet's records say it.
const CleanReason = "agent-gauntlet clean"

// Clean is `agent-gauntlet clean`: under the run lock it archives the logs
// and the execution state of the project opts.Config into
// <log_dir>/previous/, or of gauntlet_logs in opts.Dir when there is no
// project (judged by the rules of log_dir, with opts.Dir for the project
// root: a problem is a *config.Errors; ctx bounds its git question); the
// debug log records a manual CLEAN. The gauntlet's own records of the
// project's verdicts start over too, keeping when and why (CleanReason)
// with what was pending, for the person to be told. The violations the agent skipped in the
// review records are kept as decisions of their branch first (see
// runner/internal/decisions). A missing log directory has nothing to
// archive (and is not created). A run in progress is a *lock.HeldError.
func Clean(ctx context.Context, opts CleanOptions) (CleanResult, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	res := CleanResult{}
	debugSettings := config.DebugLog{}
	var root string
	if cfg := opts.Config; cfg != nil {
		root = cfg.Root
		res.LogDir = cfg.LogDirPath()
		eff := config.Resolve(cfg, opts.Getenv)
		res.Warnings = append(res.Warnings, eff.Warnings...)
		debugSettings = eff.DebugLog
	} else {
		dir, err := config.NoProjectLogDir(ctx, opts.Dir)
		if err != nil {
			return res, err
		}
		root, res.LogDir = filepath.Dir(dir), dir
	}
	if _, err := os.Stat(res.LogDir); errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	gates := opts.Config
	if opts.GatesUnknown {
		gates = opts.Gates
	}
	var bounds lock.Bounds
	if gates != nil {
		bounds.MaxAge = run.LockMaxAge(gates)
	}
	l, err := lock.AcquireWithin(res.LogDir, bounds)
	if err != nil {
		return res, err
	}
	if l.Warning != "" {
		res.Warnings = append(res.Warnings, l.Warning)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	branch := ""
	st, err := state.Read(res.LogDir)
	if err == nil && st != nil {
		branch = st.Branch
	}
	jn := cleanJobNames(gates)
	rec := decisions.RecordedOf(run.ReadRecord(ctx, root, res.LogDir, jn, st, opts.Now()).Book, res.LogDir, run.EnvIdentity())
	rec.Earlier = run.StateTaken(ctx, root, res.LogDir)
	res.Warnings = append(res.Warnings, decisions.Harvest(ctx, root, res.LogDir, jn, rec, branch,
		func(ctx context.Context) (git.Location, error) { return git.Locate(ctx, root) }, opts.Now())...)
	archived, err := run.Archive(root, res.LogDir, run.CleanUserRequest, debuglog.Open(res.LogDir, debugSettings, opts.Now))
	res.Archived = archived.Archived
	if opts.Config != nil {
		if werr := run.ClearRecord(ctx, root, CleanReason, opts.Now()); werr != nil {
			res.Warnings = append(res.Warnings, werr.Error())
		}
	}
	res.Warnings = append(res.Warnings, archived.Warnings...)
	if err != nil {
		err = fmt.Errorf("clean %s: %w", res.LogDir, err)
	}
	return res, errors.Join(err, l.Release())
}

// cleanJobNames names the log files of the project cfg; nil (escaped names
// only) without a project.
func cleanJobNames(cfg *config.Config) *logdir.JobNames {
	if cfg == nil {
		return nil
	}
	return entry.JobNames(cfg)
}

// RecordStopHook appends a stop hook's decision (allow or block) and its
// reason (the status, or `error: <message>`) to the debug log of logDir,
// when settings enable it.
func RecordStopHook(logDir string, settings config.DebugLog, now func() time.Time, decision, reason string) {
	debuglog.Open(logDir, settings, now).StopHook(decision, reason)
}
