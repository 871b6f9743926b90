package stophook

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// The baselines a stop compares with (the trusted configuration an
// earlier stop ran with, the ignore rules it saw) are never what the
// agent did before the stop: a stop whose work tree's book holds none yet
// compares with the project's shared baseline (verdicts.Baseline), which
// agent-gauntlet trust and init record when a person acts and every stop
// keeps up to date, in every work tree; with none, the stop says what it
// cannot compare. A re-trust never moves the commit a record names as the
// start of the agent's work past commits no stop judged (startPoint).

// RecordTrust records files as the trusted configuration of the project
// at p (how says how a person accepted it), at now, with the baselines the
// project's stops compare with when none is recorded yet: this trusted
// configuration and the ignore rules as they are now (getenv is the
// environment, for the user's ignore file). The record names as the start
// of the agent's work HEAD's commit (git's empty tree, trust.EmptyStart, before the first
// commit: trust.HeadCommit), or the one the record it replaces
// named when no stop ran with that one (startPoint).
func RecordTrust(ctx context.Context, p place.Place, how trust.How, files config.Files, getenv func(string) string, now time.Time) error {
	head, _ := trust.HeadCommit(ctx, p) // "" when unknown: the record then names no start point
	old, _ := trust.ReadRecord(p)       // an unusable one is replaced, its start point with it
	base := verdicts.ReadBaseline(p.CommonDir, p.Project())
	rec := trust.Record{TrustedAt: now, How: how, Commit: startPoint(old, base, head), Files: files}
	if err := trust.WriteRecord(p, rec); err != nil {
		return err
	}
	written, err := trust.ReadRecord(p)
	if err != nil || written == nil {
		return err
	}
	// Before any stop, the baseline is the earliest record a person made:
	// the one replaced, when this version did not record it (an older
	// version's), else this one; the ignore rules are a person's only
	// when no record came before (whatever hides files now may be the
	// agent's, and the first stop says it has nothing to compare with).
	first := written
	if old != nil {
		first = old
	}
	seen := recordSeen(*first, first.TrustedAt)
	seen.Desc += trustedBeforeStops
	rules, _ := ignoreRules(ctx, p, getenv, true, func(string, ...any) {})
	sealed := sealRules(rules, nil, true, now)
	sealed.Desc = trustSawRules
	if old != nil {
		rekeyOlder(p, *old)
	}
	return verdicts.UpdateBaseline(p.CommonDir, p.Project(), func(b *verdicts.Baseline) bool {
		changed := false
		if b.Trust == nil {
			b.Trust, changed = &seen, true
		}
		if b.Rules == nil && old == nil && rules[listedMark] != "" {
			shared := shareRules(sealed, p)
			b.Rules, changed = &shared, true
		}
		return changed
	})
}

// rekeyOlder gives the record old, about to be replaced, the key of its
// files where an older version keyed it by how and when it was made (the
// project's baseline, this work tree's verdict book): recording the same
// files anew is then no change. A failure leaves the older key, which
// only tells a change of the same files.
func rekeyOlder(p place.Place, old trust.Record) {
	seen, legacy := recordSeen(old, time.Time{}), recordLegacyKey(old)
	_ = verdicts.UpdateBaseline(p.CommonDir, p.Project(), func(b *verdicts.Baseline) bool {
		t := rekey(b.Trust, legacy, seen)
		changed := t != b.Trust
		b.Trust = t
		return changed
	})
	k := verdicts.KeyOf(p)
	if b, err := verdicts.Read(k); err != nil || b == nil || rekey(b.Trust, legacy, seen) == b.Trust {
		return // no book, or nothing to rekey: nothing is made
	}
	_ = verdicts.Update(k, func(b *verdicts.Book) error {
		t := rekey(b.Trust, legacy, seen)
		if t == b.Trust {
			return errLeaveBook
		}
		b.Trust = t
		return nil
	})
}

// startPoint is the commit a new record names as the start of the agent's
// work: head, unless the record it replaces (old) named another and no
// stop ran with old (base): the commits between were judged by no stop,
// and moving the start past them would take them for the base's own.
func startPoint(old *trust.Record, base verdicts.Baseline, head string) string {
	if old == nil || old.Commit == head {
		return head
	}
	if base.Stopped && base.Trust != nil && rekey(base.Trust, recordLegacyKey(*old), recordSeen(*old, time.Time{})).Key == recordSeen(*old, time.Time{}).Key {
		return head
	}
	return old.Commit
}

// recordLegacyKey is legacyKey of rec.
func recordLegacyKey(rec trust.Record) string {
	at := rec.TrustedAt
	return legacyKey(trust.Status{Source: trust.SourceRecord, How: rec.How, TrustedAt: &at})
}

// recordSeen is rec as a stop sees the trusted configuration (trustSeen).
func recordSeen(rec trust.Record, now time.Time) verdicts.TrustSeen {
	at := rec.TrustedAt
	return trustSeen(trust.Status{Source: trust.SourceRecord, How: rec.How, TrustedAt: &at, Commit: rec.Commit, Digest: rec.Digest()}, now)
}

// trustedBeforeStops ends the description of a trusted configuration
// recorded by agent-gauntlet trust or init before any stop ran with it
// (seenWhen).
const trustedBeforeStops = ", before any stop ran"

// trustChangeNote tells the change c of the trusted configuration: since
// the stop that saw it as it was, or, when no stop had seen it, since it
// was first trusted.
func trustChangeNote(c *verdicts.TrustChange) string {
	to := fmt.Sprintf("it is %s, seen first at %s", runner.SafeText(c.To.Desc), stamp(c.To.At))
	if from, ok := strings.CutSuffix(c.From.Desc, trustedBeforeStops); ok {
		return fmt.Sprintf("The trusted configuration changed after it was first trusted, before any stop ran: %s; "+
			"when first trusted, at %s, it was %s. If no person did that, the agent changed its own gates.",
			to, stamp(c.From.At), runner.SafeText(from))
	}
	return fmt.Sprintf("The trusted configuration changed since an earlier stop: %s; at the stop of %s it was %s. "+
		"If no person did that, the agent changed its own gates.", to, stamp(c.From.At), runner.SafeText(c.From.Desc))
}

// trustSawRules is the description of the ignore rules agent-gauntlet
// trust or init recorded, before any stop saw them.
const trustSawRules = "the ignore rules as they were when the configuration was trusted"

// sparseName is the name a baseline gives the sparse-checkout patterns of
// whichever work tree it is read in: each work tree has its own file.
const sparseName = "$GIT_DIR/info/sparse-checkout"

// shareRules is seen, the ignore rules of the work tree of p, named as the
// shared baseline names them (sparseName).
func shareRules(seen verdicts.TrustSeen, p place.Place) verdicts.TrustSeen {
	return renameRule(seen, filepath.Join(p.GitDir, "info", "sparse-checkout"), sparseName)
}

// localRules is the baseline's ignore rules named as the work tree of p
// names them.
func localRules(seen verdicts.TrustSeen, p place.Place) verdicts.TrustSeen {
	return renameRule(seen, sparseName, filepath.Join(p.GitDir, "info", "sparse-checkout"))
}

// renameRule is seen with its rule file from renamed to, its key made
// again.
func renameRule(seen verdicts.TrustSeen, from, to string) verdicts.TrustSeen {
	files := maps.Clone(seen.Files)
	if v, ok := files[from]; ok {
		delete(files, from)
		files[to] = v
	}
	out := sealRules(files, nil, true, seen.At)
	out.Desc, out.Lines = seen.Desc, seen.Lines // the rules as seen then, not as now
	return out
}

// noBaselineNote is what the first stop of a project in a work tree says
// when no baseline of the ignore rules was recorded (a project trusted by
// an older version, or never by a person), and what it leaves unverified:
// the files the rules hide now (f), named.
func noBaselineNote(f hiddenFiles) (note, unverified string) {
	return "No earlier record of the ignore rules was found for this project (no stop of it ran in any work tree, " +
			"and none was recorded when its configuration was trusted): this stop adopts them as they are, so a file they hide now is no change to any gate.",
		"the files the ignore rules hide from git now (no earlier record of them to compare with): " + f.text()
}

// noTrustBaselineNote is what the first stop of a project in a work tree
// says when no trusted configuration an earlier stop ran with was
// recorded, nor the one first trusted.
func noTrustBaselineNote(desc string) string {
	return fmt.Sprintf("No earlier stop of this project recorded the trusted configuration it ran with, in any work tree: "+
		"this stop takes the one in force (%s) as it is, and a change of it before this stop cannot be told.", desc)
}

// inherit starts the book b of a work tree that holds no baseline yet from
// the project's shared one (base), in the work tree of p: the trusted
// configuration and its last change, the ignore rules. It reports what
// neither held.
func inherit(b *verdicts.Book, base verdicts.Baseline, p place.Place) (noTrust, noRules bool) {
	if b.Trust == nil && base.Trust != nil {
		t := *base.Trust
		b.Trust = &t
		if b.TrustChange == nil && base.TrustChange != nil {
			c := *base.TrustChange
			b.TrustChange = &c
		}
	}
	if b.Excludes == nil && base.Rules != nil {
		r := localRules(*base.Rules, p)
		b.Excludes = &r
	}
	return b.Trust == nil, b.Excludes == nil
}

// keepBaseline records in the project's shared baseline what a stop of
// session saw in the work tree of p: the trusted configuration (seen; a
// baseline an older version keyed legacy is rekeyed), and the ignore
// rules (rules) when it listed those in the work tree.
func (h *hook) keepBaseline(p place.Place, seen verdicts.TrustSeen, legacy string, rules verdicts.TrustSeen, session string) {
	err := verdicts.UpdateBaseline(p.CommonDir, p.Project(), func(b *verdicts.Baseline) bool {
		before := *b
		b.Trust = rekey(b.Trust, legacy, seen)
		if t := b.Trust; t != nil && t.Key == seen.Key && strings.HasSuffix(t.Desc, trustedBeforeStops) {
			b.Trust = &seen
		}
		b.SeeTrust(seen, session)
		if rules.Files[listedMark] != "" && (b.Rules == nil || b.Rules.Key != shareRules(rules, p).Key || b.Rules.Desc == trustSawRules) {
			shared := shareRules(rules, p)
			b.Rules = &shared
		}
		return before.Trust != b.Trust || !before.Stopped || before.Rules != b.Rules
	})
	if err != nil {
		h.warn("cannot record the project's baseline: %v", err)
	}
}

// settle replaces in b a baseline trust or init recorded that this stop
// saw unchanged (seen, rules) with what the stop saw: a later change is
// one since this stop. It reports whether it replaced any.
func settle(b *verdicts.Book, seen, rules verdicts.TrustSeen) bool {
	settled := false
	if t := b.Trust; t != nil && t.Key == seen.Key && strings.HasSuffix(t.Desc, trustedBeforeStops) {
		b.Trust, settled = &seen, true
	}
	if r := b.Excludes; r != nil && r.Key == rules.Key && r.Desc == trustSawRules {
		b.Excludes, settled = &rules, true
	}
	return settled
}
