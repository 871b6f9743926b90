package targets

import (
	"slices"
	"testing"
	"time"
)

func TestPlanSoak(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	p, err := PlanSoak("/repo", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"LIFECYCLE_SOAK=1", "LIFECYCLE_SEQUENCES=2000", "LIFECYCLE_SOAK_TIME=30m0s",
		"LIFECYCLE_PENDING=1", "LIFECYCLE_SAVE_DIR=/repo/cli/internal/lifecycle/testdata/pending"} {
		if !slices.Contains(p.Env, want) {
			t.Errorf("default plan %q lacks %q", p.Env, want)
		}
	}
	if p.Timeout != time.Hour {
		t.Errorf("timeout %s, want 1h", p.Timeout)
	}
	p, err = PlanSoak("/repo", env(map[string]string{EnvSoakSequences: "300", EnvSoakTime: "10m"}))
	if err != nil || !slices.Contains(p.Env, "LIFECYCLE_SEQUENCES=300") || !slices.Contains(p.Env, "LIFECYCLE_SOAK_TIME=10m0s") || p.Timeout != 40*time.Minute {
		t.Errorf("plan %+v, %v", p, err)
	}
	if _, err := PlanSoak("/repo", env(map[string]string{EnvSoakTime: "forever"})); err == nil {
		t.Error("a bad duration was accepted")
	}
}

// SOAK selects the soaks: the lifecycle one by default, the cache one, or
// both in that order; each with its environment.
func TestPlanSoaks(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	pkgs := func(runs []soakRun) []string {
		var out []string
		for _, r := range runs {
			out = append(out, r.Args[len(r.Args)-1])
		}
		return out
	}
	for suite, want := range map[string][]string{
		"":          {lifecyclePackage},
		"lifecycle": {lifecyclePackage},
		"cache":     {cacheDiffPackage},
		"all":       {lifecyclePackage, cacheDiffPackage},
	} {
		runs, err := PlanSoaks("/repo", env(map[string]string{EnvSoakSuite: suite}))
		if err != nil || !slices.Equal(pkgs(runs), want) {
			t.Errorf("SOAK=%q: %v, %v", suite, pkgs(runs), err)
		}
	}
	runs, err := PlanSoaks("/repo", env(map[string]string{EnvSoakSuite: "cache", EnvCacheSequences: "50"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CACHEDIFF_SOAK=1", "CACHEDIFF_SEQUENCES=50", "CACHEDIFF_SAVE_DIR=/repo/cli/internal/cachediff/testdata/regress"} {
		if !slices.Contains(runs[0].Env, want) {
			t.Errorf("cache plan %q lacks %q", runs[0].Env, want)
		}
	}
	for _, bad := range []map[string]string{{EnvSoakSuite: "everything"}, {EnvSoakSuite: "cache", EnvCacheSequences: "lots"}} {
		if _, err := PlanSoaks("/repo", env(bad)); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}
