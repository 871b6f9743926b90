package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/debuglog"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// project is the project a run opened, with its settings and what the run
// asks of its repository once: read-only once open returns it.
type project struct {
	// opts are the run's options (Kinds never empty).
	opts Options
	cfg  *config.Config
	eff  config.Effective
	root string
	// logDir is the absolute log directory; logRel the same relative to
	// the root, "" when outside it: its files are never changes and never
	// part of a snapshot.
	logDir, logRel string
	// base is the effective base branch ("" when git is missing).
	base  string
	debug *debuglog.Log
	// loc is where the project sits in its repository (the key of the
	// agent's skip decisions and of the result cache), asked only when
	// needed; snap is the run's snapshot of the work tree.
	loc  *future[git.Location]
	snap *snapshot
	// baselines answer for the base of failed checks with baseline: true.
	baselines *baselines
	// env is the fingerprint of the environment the run's gates run in
	// (EnvIdentity), taken once when it opens.
	env string
}

// open loads the project (opts.Project, else the one of opts.Dir) and its
// effective settings (opts.Settings, else resolved with opts.Getenv),
// opens the debug log, and checks that git is there, the run's filters
// (checkFilters) and the revisions it names: a -c or -b that names nothing
// is a usage error, found before anything is locked, archived or written.
// The project is returned, with the error, once it is loaded.
func open(ctx context.Context, s *services, opts Options) (*project, error) {
	if opts.Kinds == "" {
		opts.Kinds = KindsAll
	}
	cfg, err := loadProject(ctx, opts)
	if err != nil {
		return nil, err
	}
	config.WriteWarnings(s.cons, cfg.Warnings)
	eff := opts.Settings
	if eff == nil {
		r := config.Resolve(cfg, opts.Getenv)
		eff = &r
	}
	for _, w := range eff.Warnings {
		s.cons.Printf(lineWarning, w)
	}
	p := &project{opts: opts, cfg: cfg, eff: *eff, root: cfg.Root, logDir: cfg.LogDirPath(), env: EnvIdentity()}
	p.logRel = scope.InsideRel(p.root, p.logDir)
	p.baselines = &baselines{cfg: cfg, root: p.root, next: s.deps.baseSource}
	p.debug = debuglog.Open(p.logDir, eff.DebugLog, s.now)
	p.debug.Event(debuglog.EventCommand, commandLine(opts.Command))
	if err := git.Available(); err != nil {
		return p, err
	}
	p.base = eff.Base(opts.BaseBranch)
	p.snap = newSnapshot(ctx, p.root, p.logRel, s.cons)
	p.loc = lazy(func() (git.Location, error) { return git.Locate(ctx, p.root) })
	if err := p.checkFilters(); err != nil {
		return p, &configError{err}
	}
	return p, scope.CheckRevisions(ctx, p.root, opts.Commit, opts.BaseBranch)
}

// loadProject loads the configuration of the run's project; a project
// that does not load is a configError.
func loadProject(ctx context.Context, opts Options) (*config.Config, error) {
	p := opts.Project
	if p == nil {
		dir := opts.Dir
		if dir == "" {
			wd, err := os.Getwd()
			if err != nil {
				return nil, fmt.Errorf("get working directory: %w", err)
			}
			dir = wd
		}
		var err error
		if p, err = config.OpenProject(dir); err != nil {
			return nil, &configError{err}
		}
	}
	cfg, err := p.All(ctx)
	if err != nil {
		return nil, &configError{err}
	}
	return cfg, nil
}

// commandLine is the COMMAND event of the debug log: the command and its
// flags, "run" when the caller names none.
func commandLine(command string) string {
	if command == "" {
		return "run"
	}
	return command
}

// checkFilters checks the caller's Precheck, -g (a gate of the run's
// kinds) and --working-directory (a directory inside the project, named
// relative to its root).
func (p *project) checkFilters() error {
	if p.opts.Precheck != nil {
		if err := p.opts.Precheck(p.cfg); err != nil {
			return err
		}
	}
	if p.opts.Gate != "" && !p.gateExists(p.opts.Gate) {
		return fmt.Errorf("no %s named %q in %s", p.kindsNoun(), p.opts.Gate, config.Dir)
	}
	wd := p.opts.WorkingDir
	if wd == "" {
		return nil
	}
	clean := filepath.Clean(wd)
	if filepath.IsAbs(wd) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fmt.Errorf("--working-directory %q: must be a directory relative to the project root %s", wd, p.root)
	}
	if fi, err := os.Stat(filepath.Join(p.root, clean)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--working-directory %q: no such directory in the project root %s", wd, p.root)
	}
	return nil
}

// kindsNoun names the gates of the run's kinds, for messages.
func (p *project) kindsNoun() string {
	switch p.opts.Kinds {
	case KindsChecks:
		return "check gate"
	case KindsReviews:
		return "review gate"
	}
	return "check or review gate"
}

// gateExists reports whether a gate of the run's kinds is called name.
func (p *project) gateExists(name string) bool {
	_, isCheck := p.cfg.Checks[name]
	_, isReview := p.cfg.Reviews[name]
	return (isCheck && p.opts.Kinds != KindsReviews) || (isReview && p.opts.Kinds != KindsChecks)
}

// pastCommit reports a look at a past commit (-c): it lives outside the
// work tree's lifecycle.
func (p *project) pastCommit() bool { return p.opts.Commit != "" }

// fullRun reports whether the run covers every gate that applies to the
// work tree as it is: every kind, no -g, --working-directory, -c, -u or
// -b, and the local scope (a CI-mode run compares HEAD with the base
// alone: the work tree's uncommitted changes are none of its), of gates
// someone trusted unless the stop hook runs them (Options.NobodyTrusted).
// Only a full run that passes starts the stop hook's interval, and only a
// full run may archive other gates' pending failures.
func (p *project) fullRun() bool {
	o := p.opts
	return o.Kinds == KindsAll && o.Gate == "" && o.WorkingDir == "" && o.Commit == "" && !o.Uncommitted && o.BaseBranch == "" &&
		p.diffSpec().Mode == gate.DiffLocal && (o.Agent || !o.NobodyTrusted)
}

// marksVerified reports whether a full run that passed (or found nothing
// changed) may record HEAD as the last point the branch's gates were seen
// to pass: only a run whose change set reaches back over the commits since
// the previous point (the local scope against the configured base, see
// begun.reachBack): a full run. A CI-mode run compares HEAD with the base
// alone, so on the base branch itself it judges none of the commits since.
func (p *project) marksVerified() bool {
	return p.fullRun()
}

// diffSpec is the change scope the flags and the environment choose.
func (p *project) diffSpec() gate.DiffSpec {
	return scope.Spec(p.base, p.opts.Commit, p.opts.Uncommitted, p.eff.CI, p.eff.Head)
}

// scopeName names the run's change scope in the execution state: the mode
// and the base branch its flags chose.
func (p *project) scopeName() string {
	spec := p.diffSpec()
	return string(spec.Mode) + " " + spec.BaseBranch
}
