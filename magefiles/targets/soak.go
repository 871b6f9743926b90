package targets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// cacheDiffPackage is the differential test of the result cache, relative
// to cliModule.
const cacheDiffPackage = "./internal/cachediff"

// cacheRegressDir is where the differential test keeps its minimal failing
// sequences, relative to the repository root.
var cacheRegressDir = filepath.Join(cliModule, "internal", "cachediff", "testdata", "regress")

// Settings of the cache soak.
const (
	// EnvSoakSuite selects the soaks: lifecycle (the default), cache or
	// all.
	EnvSoakSuite = "SOAK"
	// EnvCacheSequences is the number of sequences of the cache soak.
	EnvCacheSequences = "CACHEDIFF_SEQUENCES"
	// DefaultCacheSequences applies when it is unset.
	DefaultCacheSequences = 300
)

// soakRun is one soak: the go test arguments and environment.
type soakRun struct {
	Env  []string
	Args []string
}

// PlanSoaks reads the soak settings (getenv) and returns the soaks to run,
// in order: the lifecycle soak (PlanSoak), the cache soak (its sequences,
// CACHEDIFF_SEQUENCES, default 300, in TestCacheDiffSoak, with its minimal
// failing sequence saved into its regression directory under root), or
// both.
func PlanSoaks(root string, getenv func(string) string) ([]soakRun, error) {
	suite := getenv(EnvSoakSuite)
	var runs []soakRun
	if suite == "" || suite == "lifecycle" || suite == "all" {
		plan, err := PlanSoak(root, getenv)
		if err != nil {
			return nil, err
		}
		runs = append(runs, soakRun{Env: plan.Env, Args: []string{"test", "-v", "-count=1", "-timeout", plan.Timeout.String(),
			"-run", "^(TestLifecyclePending|TestLifecycleSoak)$", lifecyclePackage}})
	}
	if suite == "cache" || suite == "all" {
		seqs := getenv(EnvCacheSequences)
		if seqs == "" {
			seqs = fmt.Sprint(DefaultCacheSequences)
		}
		n, err := strconv.Atoi(seqs)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s=%q: want a positive number of sequences", EnvCacheSequences, seqs)
		}
		runs = append(runs, soakRun{
			Env: []string{"CACHEDIFF_SOAK=1", EnvCacheSequences + "=" + seqs,
				"CACHEDIFF_SAVE_DIR=" + filepath.Join(root, cacheRegressDir)},
			// A sequence takes a few seconds; shrinking one takes minutes.
			Args: []string{"test", "-count=1", "-v", "-timeout", (time.Duration(n)*20*time.Second + 30*time.Minute).String(),
				"-run", "^TestCacheDiffSoak$", cacheDiffPackage}})
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s=%q: want lifecycle, cache or all", EnvSoakSuite, suite)
	}
	return runs, nil
}

// Soak runs many random sequences of the model-based tests, the one SOAK
// selects: lifecycle (the default: LIFECYCLE_SEQUENCES, default 2000,
// within LIFECYCLE_SOAK_TIME, default 30m), cache (the result cache's
// differential test: CACHEDIFF_SEQUENCES, default 300) or all. Each new
// minimal failing sequence is written into the test's testdata: the
// lifecycle test's pending directory (it first replays the pending ones,
// each of which must still fail; once agent-gauntlet passes one, it moves
// to testdata/regress), the cache test's regress directory, which every
// test run replays.
func Soak(ctx context.Context) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	runs, err := PlanSoaks(root, os.Getenv)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if err := run(ctx, filepath.Join(root, cliModule), r.Env, "go", r.Args...); err != nil {
			return err
		}
	}
	return nil
}
