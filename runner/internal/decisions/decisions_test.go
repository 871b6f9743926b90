package decisions

import (
	"fmt"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
)

// TestRecordSkips pins the decision book: a new decision is added, one
// about the same violation replaces the note (not the date), one about
// other code sharing its id is added, decisions are per project and
// branch, and the oldest go past maxSkips.
func TestRecordSkips(t *testing.T) {
	loc := git.Location{CommonDir: t.TempDir(), Branch: "feature"}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	first := Decision{ID: "aaaaaaa", File: "a.go", Line: 3, Anchor: "x", Issue: "Bad name", Note: "ok", SkippedAt: at}
	if n, err := Keep(loc, "feature", []Decision{first}); len(n) != 1 || err != nil {
		t.Fatalf("first: %v %v", n, err)
	}
	again := first
	again.ID, again.Note, again.SkippedAt = "bbbbbbb", "still ok", at.Add(time.Hour)
	if n, err := Keep(loc, "feature", []Decision{again}); len(n) != 0 || err != nil {
		t.Fatalf("same violation: %v %v", n, err)
	}
	skips, err := Load(loc)
	if err != nil || len(skips) != 1 || skips[0].Note != "still ok" {
		t.Fatalf("loaded %+v %v", skips, err)
	}
	if other, _ := Load(git.Location{CommonDir: loc.CommonDir, Branch: "main"}); len(other) != 0 {
		t.Errorf("another branch sees %+v", other)
	}
	if other, _ := Load(git.Location{CommonDir: loc.CommonDir, Branch: "feature", Prefix: "sub/"}); len(other) != 0 {
		t.Errorf("another project sees %+v", other)
	}
	// A decision about other code that carries the same id (carried over
	// from the violation its report was matched with) is a decision of its
	// own: it neither replaces the first nor is dropped.
	elsewhere := Decision{ID: skips[0].ID, File: "a.go", Line: 3, Anchor: "y", Issue: "Bad name", Note: "other code", SkippedAt: at}
	if n, err := Keep(loc, "feature", []Decision{elsewhere}); len(n) != 1 || err != nil {
		t.Fatalf("same id, other code: %v %v", n, err)
	}
	if skips, _ = Load(loc); len(skips) != 2 || skips[0].Anchor != "x" || skips[1].Anchor != "y" {
		t.Fatalf("same id, other code: loaded %+v", skips)
	}
	var many []Decision
	for i := range maxSkips + 10 {
		many = append(many, Decision{ID: fmt.Sprintf("id%05d", i), File: "b.go", Line: i + 1, Issue: fmt.Sprintf("problem number %d", i)})
	}
	if _, err := Keep(loc, "feature", many); err != nil {
		t.Fatal(err)
	}
	skips, _ = Load(loc)
	if len(skips) != maxSkips || skips[len(skips)-1].ID != fmt.Sprintf("id%05d", maxSkips+9) {
		t.Errorf("%d decisions kept, last %+v", len(skips), skips[len(skips)-1])
	}
}
