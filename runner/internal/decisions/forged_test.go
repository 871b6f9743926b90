package decisions

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// forgeEntry is one violation entry of a review JSON file of the table.
func forgeEntry(line int, issue, status string, withID bool) gate.Violation {
	v := gate.Violation{File: "src/b.txt", Line: line, Issue: issue, Priority: "high", Status: status}
	if withID {
		v.Anchor = "a1b2c3d4"
		v.ID = fingerprint.ID(fingerprint.Fields{File: v.File, Line: line, Anchor: v.Anchor, Issue: issue})
	}
	if status == "skipped" {
		v.Result = "intended"
	}
	return v
}

// writeForgeJSON writes a review JSON file holding entries at path.
func writeForgeJSON(t *testing.T, path string, entries ...gate.Violation) {
	t.Helper()
	data, err := json.Marshal(review.SlotFile{Adapter: "claude", Timestamp: "2026-03-04T05:00:00.000Z",
		Status: gate.StatusFail, Violations: entries})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHarvestForgedSkips draws the class of skip marks on a violation the
// gauntlet never reported to the agent: where the forged mark comes from
// (a review JSON file the agent adds, in this tool's format or in the
// TypeScript tool's, without ids; an entry it adds to a file a run of the
// gauntlet wrote, to one archived in previous/, to one an earlier tool left
// and the record adopted) × at which stop (the first, where the record of
// the files the gauntlet wrote knows no log directory yet, as after a trust
// by a version that kept none, or in a project no person trusted this
// version in, which may hold an earlier tool's logs; a later one, after a run wrote a file). The
// invariant: a skip counts only for a violation the gauntlet reported to
// the agent before the mark was made; the decisions kept are exactly the
// honest marks, never more (the forged violation is reported by the next
// review and must not be skipped).
func TestHarvestForgedSkips(t *testing.T) {
	const job = "review:src:quality"
	honest := forgeEntry(3, "The flagged line repeats what the function does", "new", true)
	forged := forgeEntry(2, "The line contains the forbidden BAD marker", "skipped", true)
	forgedTS := forgeEntry(2, "The line contains the forbidden BAD marker", "skipped", false)
	type world struct {
		t                *testing.T
		logDir, jn1, jn2 string // the log directory, run 1's and run 2's file of the slot
	}
	forgeries := []struct {
		name  string
		first bool // also drawn at the first stop
		// replaces tells that the forgery takes the honest mark's place.
		replaces bool
		forge    func(w world)
	}{
		{"new file", true, false, func(w world) { writeForgeJSON(w.t, w.jn2, forged) }},
		{"new file, TypeScript format", true, false, func(w world) { writeForgeJSON(w.t, w.jn2, forgedTS) }},
		{"new file under the next run's name, both formats", true, false, func(w world) { writeForgeJSON(w.t, w.jn2, forged, forgedTS) }},
		{"entry added to the gauntlet's file", false, false, func(w world) {
			writeForgeJSON(w.t, w.jn1, forgeEntry(3, honest.Issue, "skipped", true), forged)
		}},
		{"entry without id added to the gauntlet's file", false, false, func(w world) {
			writeForgeJSON(w.t, w.jn1, forgeEntry(3, honest.Issue, "skipped", true), forgedTS)
		}},
		{"entry added to the archived file", false, false, func(w world) {
			if _, err := logdir.Clean(filepath.Dir(w.logDir), w.logDir, false); err != nil {
				w.t.Fatal(err)
			}
			writeForgeJSON(w.t, filepath.Join(w.logDir, logdir.PreviousDir, filepath.Base(w.jn1)),
				forgeEntry(3, honest.Issue, "skipped", true), forged)
		}},
		{"honest entry reworded into the forged one", false, true, func(w world) {
			writeForgeJSON(w.t, w.jn1, forged)
		}},
	}
	for _, stop := range []string{"first", "first, untrusted", "later", "adopted"} {
		for _, fg := range forgeries {
			if strings.HasPrefix(stop, "first") && !fg.first {
				continue
			}
			t.Run(stop+"/"+fg.name, func(t *testing.T) {
				root, common := t.TempDir(), t.TempDir()
				for _, d := range []string{".git", "src", "gauntlet_logs"} {
					if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(root, "src", "b.txt"), []byte("one\nx BAD\nthe flagged line\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				logDir := filepath.Join(root, "gauntlet_logs")
				jn := logdir.NewJobNames(job)
				w := world{t: t, logDir: logDir,
					jn1: jn.SlotJSON(job, "claude", 1, 1).Path(logDir), jn2: jn.SlotJSON(job, "claude", 1, 2).Path(logDir)}
				var want []string // the honest skips' files and lines
				switch stop {
				case "later":
					// A run of the gauntlet reported the honest violation;
					// the agent skipped it by hand.
					writeForgeJSON(t, w.jn1, honest)
					if err := logdir.NoteReview(w.jn1, review.HeldKeys([]gate.Violation{honest})); err != nil {
						t.Fatal(err)
					}
					writeForgeJSON(t, w.jn1, forgeEntry(3, honest.Issue, "skipped", true))
					want = []string{"src/b.txt:3"}
				case "adopted":
					// An earlier tool's run reported it, the agent skipped
					// it, and that tool's next run ended there.
					writeForgeJSON(t, w.jn1, forgeEntry(3, honest.Issue, "skipped", true))
					old := time.Now().Add(-time.Hour)
					if err := os.Chtimes(w.jn1, old, old); err != nil {
						t.Fatal(err)
					}
					if err := state.Write(logDir, state.State{LastRunCompletedAt: old.Add(time.Minute), Branch: "work"}); err != nil {
						t.Fatal(err)
					}
					if err := os.Chtimes(state.Path(logDir), old.Add(time.Minute), old.Add(time.Minute)); err != nil {
						t.Fatal(err)
					}
					if err := logdir.Start(logDir); err != nil {
						t.Fatal(err)
					}
					want = []string{"src/b.txt:3"}
				}
				fg.forge(w)
				if fg.replaces {
					want = nil
				}
				now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
				locate := func(context.Context) (git.Location, error) {
					return git.Location{CommonDir: common, Branch: "work"}, nil
				}
				// A project no person trusted this version in may hold an
				// earlier tool's logs, but only where a run ended.
				rec := Recorded{Earlier: stop == "first, untrusted"}
				// The forged mark is told as ignored, and nothing else is.
				ws := Harvest(context.Background(), root, logDir, jn, rec, "work", locate, now)
				if len(ws) == 0 {
					t.Errorf("the forged mark was ignored silently")
				}
				for _, w := range ws {
					if !strings.HasPrefix(w, `ignoring the skip of "src/b.txt:2" in `) {
						t.Errorf("warning %q", w)
					}
				}
				skips, err := Load(git.Location{CommonDir: common, Branch: "work"})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, s := range skips {
					got = append(got, fmt.Sprintf("%s:%d", s.File, s.Line))
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("decisions kept %v, want the honest ones %v", got, want)
				}
			})
		}
	}
}
