package targets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// lifecyclePackage is the model-based lifecycle test, relative to cliModule.
const lifecyclePackage = "./internal/lifecycle"

// pendingDir is where the lifecycle test keeps the minimal failing
// sequences agent-gauntlet does not pass yet, relative to the repository
// root (testdata/regress holds those it passes).
var pendingDir = filepath.Join(cliModule, "internal", "lifecycle", "testdata", "pending")

// Soak settings and their defaults.
const (
	// EnvSoakSequences is the number of sequences of a soak.
	EnvSoakSequences = "LIFECYCLE_SEQUENCES"
	// EnvSoakTime bounds a soak (a Go duration).
	EnvSoakTime = "LIFECYCLE_SOAK_TIME"
	// DefaultSoakSequences and DefaultSoakTime apply when they are unset.
	DefaultSoakSequences = 2000
	DefaultSoakTime      = 30 * time.Minute
)

// SoakPlan is what a soak runs: the environment of the lifecycle test and
// the go test timeout.
type SoakPlan struct {
	Env     []string
	Timeout time.Duration
}

// PlanSoak reads the soak settings (getenv) and returns the plan: the
// lifecycle soak on, its count and time, the pending sequences replayed
// (one that now passes must be moved to testdata/regress), and the new
// minimal failing sequences saved into the pending directory under root.
// The go test timeout leaves room for shrinking the last failure.
func PlanSoak(root string, getenv func(string) string) (SoakPlan, error) {
	seqs := getenv(EnvSoakSequences)
	if seqs == "" {
		seqs = fmt.Sprint(DefaultSoakSequences)
	}
	budget := DefaultSoakTime
	if s := getenv(EnvSoakTime); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return SoakPlan{}, fmt.Errorf("%s=%q: want a positive Go duration such as 45m", EnvSoakTime, s)
		}
		budget = d
	}
	return SoakPlan{
		Env: []string{
			"LIFECYCLE_SOAK=1",
			"LIFECYCLE_PENDING=1",
			EnvSoakSequences + "=" + seqs,
			EnvSoakTime + "=" + budget.String(),
			"LIFECYCLE_SAVE_DIR=" + filepath.Join(root, pendingDir),
		},
		Timeout: budget + 30*time.Minute,
	}, nil
}

// Soak runs the model-based lifecycle test on many random sequences
// (LIFECYCLE_SEQUENCES, default 2000, within LIFECYCLE_SOAK_TIME, default
// 30m) and writes each new minimal failing sequence into
// cli/internal/lifecycle/testdata/pending; it first replays the pending
// ones, each of which must still fail (once agent-gauntlet passes one, it
// moves to testdata/regress, which every test run replays).
func Soak(ctx context.Context) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	plan, err := PlanSoak(root, os.Getenv)
	if err != nil {
		return err
	}
	return run(ctx, filepath.Join(root, cliModule), plan.Env, "go", "test", "-v", "-count=1",
		"-timeout", plan.Timeout.String(), "-run", "^(TestLifecyclePending|TestLifecycleSoak)$", lifecyclePackage)
}
