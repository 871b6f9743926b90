package runner

import (
	"context"
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/scope"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// DetectOptions configure Detect.
type DetectOptions struct {
	// BaseBranch overrides base_branch (-b).
	BaseBranch string
	// Commit detects the changes of one commit (-c).
	Commit string
	// Uncommitted detects staged, unstaged and untracked changes only (-u).
	Uncommitted bool
	// All lists every entry point and job as if everything had changed:
	// `dir/*` wildcards expand to the existing sub-directories.
	All bool
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// DetectedJob is one job a run would execute.
type DetectedJob struct {
	ID string
	// Kind is KindCheck or KindReview.
	Kind       string
	Name       string
	EntryPoint string
	WorkingDir string
	Parallel   bool
}

// Detection is what Detect found.
type Detection struct {
	// Root is the absolute project root.
	Root string
	// BaseBranch is the effective base branch.
	BaseBranch string
	// Mode is "local", "uncommitted", "commit", "ci" or "all".
	Mode string
	// Files are the changed paths (none in All mode).
	Files []string
	// EntryPoints are the expanded entry point paths, in order.
	EntryPoints []string
	// Jobs are the jobs of a `run` (checks and reviews).
	Jobs []DetectedJob
	// Warnings are change detection and entry point warnings (the
	// configuration's are in Config.Warnings).
	Warnings []string
	// NotApplicable are the check jobs left out because none of the
	// changed files is left for them (glob, deletions), one line each:
	// `Not applicable: <id> (<reason>)`.
	NotApplicable []string
}

// Detect lists the changed files of the project cfg (see
// config.LoadProject) and the jobs a run would execute for them, without
// taking the lock, writing logs or running anything.
func Detect(ctx context.Context, cfg *config.Config, opts DetectOptions) (Detection, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	root := cfg.Root
	eff := config.Resolve(cfg, getenv)
	ci := eff.CI
	d := Detection{Root: root, BaseBranch: eff.Base(opts.BaseBranch)}

	var expanded []entry.Expanded
	if opts.All {
		d.Mode = "all"
		expanded = entry.ExpandAll(root, cfg.EntryPoints)
	} else {
		if err := git.Available(); err != nil {
			return d, err
		}
		if err := scope.CheckRevisions(ctx, root, opts.Commit, opts.BaseBranch); err != nil {
			return d, err
		}
		spec := scope.Spec(d.BaseBranch, opts.Commit, opts.Uncommitted, ci, eff.Head)
		d.Mode = string(spec.Mode)
		ch, err := git.ChangedFiles(ctx, root, spec)
		if err != nil {
			return d, err
		}
		d.Files = scope.WithoutDir(ch.Files, scope.InsideRel(root, cfg.LogDirPath()))
		d.Warnings = append(d.Warnings, ch.Warnings...)
		var notes []string
		expanded, notes = entry.Expand(root, cfg.EntryPoints, d.Files)
		d.Warnings = append(d.Warnings, notes...)
	}
	seen := map[string]bool{}
	for _, ep := range expanded {
		if !seen[ep.Path] {
			seen[ep.Path] = true
			d.EntryPoints = append(d.EntryPoints, ep.Path)
		}
	}
	jobs, warnings := entry.Jobs(cfg, expanded, entry.Filter{Checks: true, Reviews: true, CI: ci})
	if !opts.All {
		var missing []string
		jobs, missing = entry.Present(root, jobs, d.Files)
		d.Warnings = append(d.Warnings, missing...)
	}
	d.Warnings = append(d.Warnings, warnings...)
	if !opts.All {
		var skipped []entry.NotApplicable
		jobs, skipped = entry.Narrow(root, jobs, expanded, d.Files, nil)
		for _, s := range skipped {
			d.NotApplicable = append(d.NotApplicable, s.Line())
		}
	}
	d.Jobs = detectedJobs(jobs)
	return d, nil
}

// AllJobs lists the jobs of the project at root as if every file had
// changed (detect --all: `dir/*` wildcards expand to the existing
// sub-directories), in run order. ci selects the gates of a CI run
// (run_in_ci, and review gates only when .gauntlet/ci.yml opts them in)
// whatever the environment says; otherwise those of a local run. The
// warnings name gates that an entry point lists but the configuration lacks.
func AllJobs(root string, cfg *config.Config, ci bool) ([]DetectedJob, []string) {
	jobs, warnings := entry.Jobs(cfg, entry.ExpandAll(root, cfg.EntryPoints), entry.Filter{Checks: true, Reviews: true, CI: ci})
	return detectedJobs(jobs), warnings
}

// detectedJobs describes jobs for Detect and AllJobs.
func detectedJobs(jobs []gate.Job) []DetectedJob {
	out := make([]DetectedJob, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, DetectedJob{ID: j.ID, Kind: string(j.Kind), Name: j.Name,
			EntryPoint: j.EntryPoint, WorkingDir: j.WorkingDir, Parallel: j.Parallel})
	}
	return out
}
