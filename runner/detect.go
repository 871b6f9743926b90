package runner

import (
	"context"
	"fmt"
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/entry"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// ConfigError is an error caused by the configuration or the command line
// (no or invalid .gauntlet/config.yml, an unknown gate): exit code 2.
type ConfigError struct{ Err error }

// Error returns the wrapped error's message.
func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *ConfigError) Unwrap() error { return e.Err }

// DetectOptions configure Detect.
type DetectOptions struct {
	// Dir is the project root or a directory below it; empty means the cwd.
	Dir string
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

// The kinds of a DetectedJob.
const (
	KindCheck  = string(gate.KindCheck)
	KindReview = string(gate.KindReview)
)

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
	// Warnings are configuration and detection warnings.
	Warnings []string
}

// Detect lists the changed files and the jobs a run would execute for
// them, without taking the lock, writing logs or running anything.
// Configuration problems are returned as *ConfigError.
func Detect(ctx context.Context, opts DetectOptions) (Detection, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Detection{}, fmt.Errorf("get working directory: %w", err)
		}
		dir = wd
	}
	root, cfg, _, _, err := loadProject(dir)
	if err != nil {
		return Detection{}, &ConfigError{Err: err}
	}
	ci := IsCI(getenv)
	d := Detection{Root: root, BaseBranch: EffectiveBaseBranch(opts.BaseBranch, cfg, getenv)}
	for _, w := range cfg.Warnings {
		d.Warnings = append(d.Warnings, fmt.Sprintf(lineWarning, w))
	}

	var expanded []entry.Expanded
	if opts.All {
		d.Mode = "all"
		expanded = entry.ExpandAll(root, cfg.EntryPoints)
	} else {
		if err := git.Available(); err != nil {
			return d, err
		}
		spec := diffSpecFor(d.BaseBranch, opts.Commit, opts.Uncommitted, ci, getenv)
		d.Mode = string(spec.Mode)
		ch, err := git.ChangedFiles(ctx, root, spec)
		if err != nil {
			return d, err
		}
		d.Files = withoutDir(ch.Files, insideRel(root, cfg.LogDirPath()))
		d.Warnings = append(d.Warnings, ch.Warnings...)
		expanded = entry.Expand(root, cfg.EntryPoints, d.Files)
	}
	seen := map[string]bool{}
	for _, ep := range expanded {
		if !seen[ep.Path] {
			seen[ep.Path] = true
			d.EntryPoints = append(d.EntryPoints, ep.Path)
		}
	}
	jobs, warnings := entry.Jobs(cfg, expanded, entry.Filter{Checks: true, Reviews: true, CI: ci})
	d.Warnings = append(d.Warnings, warnings...)
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

func detectedJobs(jobs []gate.Job) []DetectedJob {
	out := make([]DetectedJob, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, DetectedJob{ID: j.ID, Kind: string(j.Kind), Name: j.Name,
			EntryPoint: j.EntryPoint, WorkingDir: j.WorkingDir, Parallel: j.Parallel})
	}
	return out
}
