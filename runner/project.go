package runner

import (
	"context"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Load selects how much of a project's configuration LoadProject reads.
type Load int

// What LoadProject reads.
const (
	// LoadAll reads config.yml and every check and review gate file.
	LoadAll Load = iota
	// LoadSettings reads config.yml only, without checking entry points
	// against the gates: the stop hook's fast path.
	LoadSettings
	// LoadGates reads config.yml and every gate like LoadAll but runs no
	// process (config.LoadWithoutGit): for reading the gates' settings on
	// the stop hook's fast paths, never for running them.
	LoadGates
)

// LoadProject finds the project of dir, the nearest directory at or above
// it holding .gauntlet/config.yml (the search stops at the git top level),
// and loads its configuration; Config.Root is the project root and
// Config.Warnings the load's warnings. Without a project the error is a
// *config.NotFoundError naming dir; an invalid configuration is a
// *config.Errors listing every problem, with the warnings. Every command,
// the stop hook and ExecuteRun load a project this way. A directory that
// cannot be resolved (a deleted working directory) has no project. ctx
// bounds the one git question of LoadAll (is anything in log_dir tracked);
// LoadSettings and LoadGates run no process.
func LoadProject(ctx context.Context, dir string, load Load) (*config.Config, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	root, ok := config.FindRoot(dir)
	if !ok {
		return nil, &config.NotFoundError{Dir: dir}
	}
	switch load {
	case LoadSettings:
		return config.LoadProjectFile(root)
	case LoadGates:
		return config.LoadWithoutGit(root)
	}
	return config.Load(ctx, root)
}

// IsCI reports CI mode: CI=true or GITHUB_ACTIONS=true.
func IsCI(getenv func(string) string) bool {
	return getenv(config.EnvCI) == "true" || getenv(config.EnvGitHubActions) == "true"
}

// EffectiveBaseBranch is -b, else GITHUB_BASE_REF in CI mode, else the
// configured base_branch.
func EffectiveBaseBranch(flag string, cfg *config.Config, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	if IsCI(getenv) {
		if ref := getenv(config.EnvGitHubBaseRef); ref != "" {
			return ref
		}
	}
	return cfg.BaseBranch
}
