package stophook

import (
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// A new record names as the start of the agent's work HEAD's commit, or
// the one the record it replaces named when no stop ran with that record:
// for every record replaced (none, one at HEAD, one before the first
// commit, one at an older commit) and every baseline (none, one trust
// recorded, one a stop saw of that record, one a stop saw of another),
// the start never moves past commits no stop judged.
func TestStartPoint(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	rec := func(commit string) *trust.Record {
		return &trust.Record{TrustedAt: at, How: trust.HowYes, Commit: commit}
	}
	other := recordSeen(trust.Record{TrustedAt: at.Add(time.Hour), How: trust.HowYes, Files: config.Files{"config.yml": []byte("other\n")}}, at)
	sawOld := func(old *trust.Record, stopped bool) verdicts.Baseline {
		s := recordSeen(*old, at)
		return verdicts.Baseline{Trust: &s, Stopped: stopped}
	}
	for _, c := range []struct {
		name string
		old  *trust.Record
		base func(old *trust.Record) verdicts.Baseline
		want string
	}{
		{"no record", nil, nil, "head"},
		{"record at HEAD", rec("head"), nil, "head"},
		{"before the first commit by an older version, no stop", rec(""), nil, ""},
		{"before the first commit, no stop", rec(trust.EmptyStart), nil, trust.EmptyStart},
		{"before the first commit, a stop ran with it", rec(trust.EmptyStart), func(o *trust.Record) verdicts.Baseline { return sawOld(o, true) }, "head"},
		{"older commit, no stop", rec("c0"), nil, "c0"},
		{"older commit, recorded by trust only", rec("c0"), func(o *trust.Record) verdicts.Baseline { return sawOld(o, false) }, "c0"},
		{"older commit, a stop ran with it", rec("c0"), func(o *trust.Record) verdicts.Baseline { return sawOld(o, true) }, "head"},
		{"before the first commit by an older version, a stop ran with it", rec(""), func(o *trust.Record) verdicts.Baseline { return sawOld(o, true) }, "head"},
		{"older commit, a stop of an older version ran with it", rec("c0"), func(o *trust.Record) verdicts.Baseline {
			s := recordSeen(*o, at)
			s.Key = recordLegacyKey(*o)
			return verdicts.Baseline{Trust: &s, Stopped: true}
		}, "head"},
		{"older commit, a stop ran with the same files recorded earlier", rec("c0"), func(o *trust.Record) verdicts.Baseline {
			s := recordSeen(trust.Record{TrustedAt: at.Add(-time.Hour), How: trust.HowInit, Files: o.Files}, at)
			return verdicts.Baseline{Trust: &s, Stopped: true}
		}, "head"},
		{"older commit, a stop ran with another", rec("c0"), func(*trust.Record) verdicts.Baseline {
			return verdicts.Baseline{Trust: &other, Stopped: true}
		}, "c0"},
	} {
		var base verdicts.Baseline
		if c.base != nil {
			base = c.base(c.old)
		}
		if got := startPoint(c.old, base, "head"); got != c.want {
			t.Errorf("%s: start point %q, want %q", c.name, got, c.want)
		}
	}
}
