package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"regexp"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// TestHeldVerdictsAgreeWithWritten holds the shortcut of recordResults
// (verdicts that all came from the result cache are held in memory, not
// written) to the path that writes every batch at once. Invariant: after
// any sequence of batches of gate results (checks and review slots;
// passes, failures, errors, pre-existing failures; cached or run), ends
// (a save with a change of its own) and interruptions (flush):
//   - the book in memory is the one the writing path has;
//   - the file is never ahead of the writing path's: it is that path's
//     file as of the last batch that ran a gate, end or interruption, and
//     after an end or an interruption it is the writing path's file
//     exactly (nothing held is lost).
func TestHeldVerdictsAgreeWithWritten(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		clock := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
		s := &services{cons: console.New(nil), now: func() time.Time { return clock }}
		fast, slow := heldRecord(t), heldRecord(t)
		var lastWritten []byte // the slow path's file when the fast one last wrote
		steps := rapid.IntRange(1, 12).Draw(rt, "steps")
		for i := range steps {
			heldBack := false // only cached results since the last write
			clock = clock.Add(time.Duration(rapid.IntRange(0, 2).Draw(rt, "tick")) * time.Second)
			run := i + 1
			switch rapid.IntRange(0, 5).Draw(rt, "kind") {
			case 0: // the run's end: a save with a change of its own
				end := func(bk *verdicts.Book) error { bk.Finish(clock, true, true, false); return nil }
				fast.save(s, end)
				slow.save(s, end)
			case 1: // an interrupted run
				fast.flush(s)
				slow.flush(s)
			default:
				results := rapid.SliceOfN(resultGen(), 1, 3).Draw(rt, "results")
				env := rapid.SampledFrom([]string{"", "env-a", "env-b"}).Draw(rt, "env")
				recordResults(s, fast, run, env, results)
				recordVerdicts(s, slow, run, env, results, false) // every batch written at once
				heldBack = true                                   // unless a gate that ran reached a verdict
				for _, r := range results {
					check, slots := verdictsOf(r, run, clock, env)
					heldBack = heldBack && (r.Cached != nil || check == nil && len(slots) == 0)
				}
			}
			if got, want := bookJSON(rt, fast.Book), bookJSON(rt, slow.Book); !bytes.Equal(got, want) {
				rt.Fatalf("step %d: book in memory\n%s\nwant\n%s", i, got, want)
			}
			if !heldBack {
				lastWritten = fileOf(rt, slow)
			}
			if got := fileOf(rt, fast); !bytes.Equal(got, lastWritten) {
				rt.Fatalf("step %d (held back %v): file\n%s\nwant\n%s", i, heldBack, got, lastWritten)
			}
		}
		fast.flush(s)
		if got, want := fileOf(rt, fast), fileOf(rt, slow); !bytes.Equal(got, want) {
			rt.Fatalf("after the end: file\n%s\nwant\n%s", got, want)
		}
	})
}

// heldRecord is an empty book kept in a directory of its own.
func heldRecord(t *testing.T) *Record {
	return &Record{Book: verdicts.NewBook(), key: verdicts.Key{CommonDir: t.TempDir(), Project: ".", Worktree: "."}, keyed: true}
}

// resultGen generates a gate result as a run's scheduler reports it: a
// check or a review's slots, run or taken from the result cache (a pass
// or a pre-existing failure only).
func resultGen() *rapid.Generator[gate.Result] {
	return rapid.Custom(func(t *rapid.T) gate.Result {
		cached := rapid.Bool().Draw(t, "cached")
		statuses := []gate.Status{gate.StatusPass, gate.StatusFail, gate.StatusError, gate.StatusPreExisting}
		if cached {
			statuses = []gate.Status{gate.StatusPass, gate.StatusPreExisting}
		}
		r := gate.Result{Status: rapid.SampledFrom(statuses).Draw(t, "status")}
		if cached {
			r.Cached = &gate.Cached{Run: 1, PreExisting: r.Status == gate.StatusPreExisting}
		}
		if rapid.Bool().Draw(t, "check") {
			r.JobID = rapid.SampledFrom([]string{"check:.:a", "check:.:b"}).Draw(t, "job")
			r.LogPath = "/logs/" + r.JobID + ".log"
			r.Infrastructure = r.Status == gate.StatusError && rapid.Bool().Draw(t, "infrastructure")
			return r
		}
		r.JobID = "review:.:r"
		for i := range rapid.IntRange(1, 2).Draw(t, "slots") {
			sl := gate.Slot{Adapter: "claude", Index: i + 1, Status: rapid.SampledFrom(statuses[:2]).Draw(t, "slot")}
			if sl.Status == gate.StatusFail {
				sl.Open = []gate.Violation{{File: "a.go", Line: i, Issue: "wrong", Status: "new"}}
			}
			r.Slots = append(r.Slots, sl)
		}
		return r
	})
}

func bookJSON(t *rapid.T, b *verdicts.Book) []byte {
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fileOf is the book's file, nil when there is none, without its ID
// (verdicts.Book.ID: each book's own, drawn when it is first written).
func fileOf(t *rapid.T, r *Record) []byte {
	data, err := os.ReadFile(r.key.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return bookID.ReplaceAll(data, nil)
}

// bookID is the line of a book's file that holds its ID.
var bookID = regexp.MustCompile(`(?m)^  "id": "[^"]*",\n`)
