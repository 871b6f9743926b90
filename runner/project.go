package runner

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// loadProject finds the project root at or above dir and loads its
// configuration. found is false when there is no .gauntlet/config.yml (err
// then says where it looked); an invalid configuration is one error listing
// every problem. warnings are the load's warnings, also on failure.
func loadProject(dir string) (root string, cfg *config.Config, warnings []string, found bool, err error) {
	root, ok := config.FindRoot(dir)
	if !ok {
		abs, _ := filepath.Abs(dir)
		return "", nil, nil, false, fmt.Errorf("no %s found in %s or any parent directory up to the git top level",
			filepath.Join(config.Dir, config.ProjectFile), abs)
	}
	cfg, err = config.Load(root)
	if err != nil {
		var errs *config.Errors
		if errors.As(err, &errs) {
			warnings = errs.Warnings
			err = fmt.Errorf("invalid configuration:\n  %s", strings.Join(errs.Lines(), "\n  "))
		}
		return root, nil, warnings, true, err
	}
	return root, cfg, cfg.Warnings, true, nil
}

// diffSpecFor is the change scope a run or detect asks for: one commit
// (-c), the uncommitted changes (-u), CI's range, or the local changes
// against base.
func diffSpecFor(base, commit string, uncommitted, ci bool, getenv func(string) string) gate.DiffSpec {
	spec := gate.DiffSpec{BaseBranch: base}
	switch {
	case commit != "":
		spec.Mode, spec.Commit = gate.DiffCommit, commit
	case uncommitted:
		spec.Mode = gate.DiffUncommitted
	case ci:
		spec.Mode, spec.Head = gate.DiffCI, getenv(config.EnvGitHubSHA)
	default:
		spec.Mode = gate.DiffLocal
	}
	return spec
}
