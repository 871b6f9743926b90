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
