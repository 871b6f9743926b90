package run

import (
	"context"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/adapter"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// MaxRunDuration adds up every configured job's timeouts (a review's for
// each slot on each CLI, each CLI's probe once) and the overhead; a gate
// without timeout leaves runs unbounded.
func TestMaxRunDuration(t *testing.T) {
	root := t.TempDir()
	cfg := &config.Config{
		Root: root,
		CLI:  config.CLI{DefaultPreference: []string{"claude", "codex"}},
		Checks: map[string]*config.Check{
			"lint": {Name: "lint", Timeout: 2 * time.Minute, RunLocally: true, RunInCI: true},
			"test": {Name: "test", Timeout: 5 * time.Minute, RunLocally: true, RunInCI: false},
		},
		Reviews: map[string]*config.Review{
			"q": {Name: "q", Timeout: time.Minute, NumReviews: 2, RunLocally: true},
		},
		EntryPoints: []config.EntryPoint{{Path: "src", Checks: []string{"lint", "test"}, Reviews: []string{"q"}}},
	}
	got, ok := MaxRunDuration(cfg)
	// lint (locally and in CI: one job), test, q: 2 slots × 2 CLIs.
	want := runOverhead + 2*time.Minute + 5*time.Minute + 4*time.Minute + 2*adapter.ProbeTimeout
	if !ok || got != want {
		t.Errorf("MaxRunDuration = %s, %v; want %s", got, ok, want)
	}
	if age := LockMaxAge(cfg); age != want+stopGrace {
		t.Errorf("LockMaxAge = %s", age)
	}
	cfg.Checks["test"].Timeout = 0
	if d, ok := MaxRunDuration(cfg); ok || LockMaxAge(cfg) != 0 {
		t.Errorf("a check without timeout: %s, %v", d, ok)
	}
	cfg.Checks["test"].Timeout = 400 * 24 * time.Hour
	if d, ok := MaxRunDuration(cfg); ok {
		t.Errorf("a timeout over the bound: %s, %v", d, ok)
	}
}

// A run's lock ends at the earliest of its longest run and its context's
// deadline, each with the grace to stop.
func TestLockBounds(t *testing.T) {
	cfg := &config.Config{Root: t.TempDir(), Checks: map[string]*config.Check{"lint": {Name: "lint", Timeout: time.Hour, RunLocally: true}},
		EntryPoints: []config.EntryPoint{{Path: ".", Checks: []string{"lint"}}}}
	b := lockBounds(context.Background(), cfg)
	if b.MaxAge != runOverhead+time.Hour+stopGrace || time.Until(b.Deadline) > b.MaxAge || time.Until(b.Deadline) < b.MaxAge-time.Minute {
		t.Errorf("bounds without a deadline: %+v", b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, _ := ctx.Deadline()
	if b := lockBounds(ctx, cfg); !b.Deadline.Equal(d.Add(stopGrace)) {
		t.Errorf("bounds with a deadline: %+v, want %s", b, d.Add(stopGrace))
	}
	cfg.Checks["lint"].Timeout = 0
	if b := lockBounds(context.Background(), cfg); b.MaxAge != 0 || !b.Deadline.IsZero() {
		t.Errorf("unbounded: %+v", b)
	}
}
