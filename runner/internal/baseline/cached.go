package baseline

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// NoteCache is the Note of a result a Store answered.
const NoteCache = "from the result cache"

// Store keeps base results between runs: the result cache (docs/cache.md)
// implements it. A base result depends on the base commit's tree, the
// check's definition (command, working directory, timeout), the changed
// files it receives (Request.Job.Changed) and what ${BASE_BRANCH} stands
// for (Request.BaseBranch); a store must key it by all of them, or answer
// a miss. Result.MarshalJSON and UnmarshalJSON give it a stable form.
type Store interface {
	// Load returns the result recorded for req; ok is false on a miss
	// (and on any error: a cache never fails a run).
	Load(ctx context.Context, req Request) (res Result, ok bool)
	// Save records res, just computed for req. Errors are the store's to
	// report; the run goes on.
	Save(ctx context.Context, req Request, res Result)
}

// Cached is the Source that asks Store first and, on a miss, Next (a
// temporary worktree), saving what Next found. A base that could not be
// run (an error) is not saved: the next run tries again.
type Cached struct {
	Store Store
	Next  ClosingSource
}

// Base answers req from the store, else from Next.
func (c Cached) Base(ctx context.Context, req Request) (Result, error) {
	if res, ok := c.Store.Load(ctx, req); ok {
		res.Note = NoteCache
		if res.Passed {
			fmt.Fprintf(req.Log, "\n--- The same check on the base (commit %s): passes there, %s ---\n", short(req.Commit), NoteCache)
		} else {
			fmt.Fprintf(req.Log, "\n--- The same check on the base (commit %s): exits with code %d, %s; its error lines (normalised): ---\n",
				short(req.Commit), res.Fingerprint.ExitCode, NoteCache)
			for _, l := range res.Fingerprint.Texts() {
				fmt.Fprintf(req.Log, "  %s\n", l)
			}
		}
		return res, nil
	}
	res, err := c.Next.Base(ctx, req)
	if err == nil && ctx.Err() == nil {
		c.Store.Save(ctx, req, res)
	}
	return res, err
}

// Close closes Next.
func (c Cached) Close() { c.Next.Close() }

// resultJSON is the stored form of a Result.
type resultJSON struct {
	Passed   bool `json:"passed"`
	ExitCode int  `json:"exit_code,omitempty"`
	// Lines are the fingerprint's error lines: the hash of each normalised
	// line (hex) and its shown text, sorted by hash.
	Lines    []lineJSON `json:"lines,omitempty"`
	Overflow bool       `json:"overflow,omitempty"`
}

type lineJSON struct {
	Hash uint64 `json:"h"`
	Text string `json:"t"`
}

// MarshalJSON is the stable form of a result for a Store (the Note is not
// part of it).
func (r Result) MarshalJSON() ([]byte, error) {
	doc := resultJSON{Passed: r.Passed}
	if !r.Passed {
		doc.ExitCode, doc.Overflow = r.Fingerprint.ExitCode, r.Fingerprint.Overflow
		for h, t := range r.Fingerprint.lines {
			doc.Lines = append(doc.Lines, lineJSON{Hash: h, Text: t})
		}
		sort.Slice(doc.Lines, func(i, j int) bool { return doc.Lines[i].Hash < doc.Lines[j].Hash })
	}
	return json.Marshal(doc)
}

// UnmarshalJSON reads what MarshalJSON wrote. More than MaxLines lines is
// an error: no fingerprint this package makes holds them.
func (r *Result) UnmarshalJSON(data []byte) error {
	var doc resultJSON
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("stored base result: %w", err)
	}
	if len(doc.Lines) > MaxLines {
		return fmt.Errorf("stored base result: %d error lines, more than %d", len(doc.Lines), MaxLines)
	}
	*r = Result{Passed: doc.Passed}
	if !doc.Passed {
		r.Fingerprint = Fingerprint{ExitCode: doc.ExitCode, Overflow: doc.Overflow, lines: make(map[uint64]string, len(doc.Lines))}
		for _, l := range doc.Lines {
			r.Fingerprint.lines[l.Hash] = l.Text
		}
	}
	return nil
}
