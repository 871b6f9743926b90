package gate

import (
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// The facts that depend on a job's kind, for each kind and for a job
// without its gate's configuration.
func TestKindFacts(t *testing.T) {
	chk := &config.Check{Name: "lint", File: ".gauntlet/checks/lint.yml", Timeout: time.Minute, FailFast: true, Cache: config.CacheEntryPoint, Command: "make lint"}
	rev := &config.Review{Name: "q", File: ".gauntlet/reviews/q.md", Timeout: 2 * time.Minute, Cache: config.CacheOff}
	tests := []struct {
		name      string
		job       Job
		file      string
		timeout   time.Duration
		failFast  bool
		cache     config.CacheScope
		defined   bool
		command   string
		readsDiff bool
	}{
		{"check", Job{Kind: KindCheck, Check: chk}, chk.File, time.Minute, true, config.CacheEntryPoint, true, "make lint", false},
		{"review", Job{Kind: KindReview, Review: rev}, rev.File, 2 * time.Minute, false, config.CacheOff, true, "", true},
		{"a check without its configuration", Job{Kind: KindCheck}, "", 0, false, "", false, "", false},
		{"a review holding a check", Job{Kind: KindReview, Check: chk}, chk.File, time.Minute, true, config.CacheEntryPoint, false, "", true},
	}
	for _, tt := range tests {
		j := tt.job
		if j.File() != tt.file || j.Timeout() != tt.timeout || j.FailFast() != tt.failFast || j.CacheSetting() != tt.cache ||
			j.Defined() != tt.defined || j.Command() != tt.command || j.ReadsDiff() != tt.readsDiff {
			t.Errorf("%s: file %q timeout %s fail_fast %v cache %q defined %v command %q reads diff %v", tt.name,
				j.File(), j.Timeout(), j.FailFast(), j.CacheSetting(), j.Defined(), j.Command(), j.ReadsDiff())
		}
	}
}
