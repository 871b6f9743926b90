package baseline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
)

// NoteCache is the Note of a result a Store answered.
const NoteCache = "from the result cache"

// Store keeps base results between runs: the result cache (docs/cache.md)
// implements it. A base result depends on the base commit's tree, the
// check's definition (command, working directory, timeout), the changed
// files it receives (Request.Job.Changed), what ${BASE_BRANCH} stands
// for (Request.BaseBranch) and what the base run sees beyond the tree
// (Request.World: the dependency copies, the environment naming the
// project); a store must key it by all of them, or answer a miss. Result.MarshalJSON and UnmarshalJSON give it a stable form.
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
			fmt.Fprintf(req.Log, "\n--- The same check on the base (commit %s): exits with code %d, %s; what it reported: ---\n",
				short(req.Commit), res.ExitCode, NoteCache)
			check.WriteFindings(req.Log, &res.Findings)
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

// resultVersion is the version of the stored form; a result stored in
// another form is a miss.
const resultVersion = 4

// resultJSON is the stored form of a Result.
type resultJSON struct {
	Version  int              `json:"v"`
	Passed   bool             `json:"passed"`
	ExitCode int              `json:"exit_code,omitempty"`
	Findings *findings.Result `json:"findings,omitempty"`
	// Unverified is Result.Unverified.
	Unverified []string `json:"unverified,omitempty"`
}

// MarshalJSON is the stable form of a result for a Store (the Note is not
// part of it).
func (r Result) MarshalJSON() ([]byte, error) {
	doc := resultJSON{Version: resultVersion, Passed: r.Passed}
	if !r.Passed {
		doc.ExitCode, doc.Findings, doc.Unverified = r.ExitCode, &r.Findings, r.Unverified
	}
	return json.Marshal(doc)
}

// UnmarshalJSON reads what MarshalJSON wrote. A result of another version,
// or with more than findings.MaxFindings findings, is an error: no result
// this package makes looks like it.
func (r *Result) UnmarshalJSON(data []byte) error {
	var doc resultJSON
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("stored base result: %w", err)
	}
	if doc.Version != resultVersion {
		return fmt.Errorf("stored base result: version %d, not %d", doc.Version, resultVersion)
	}
	if doc.Findings != nil && len(doc.Findings.Findings) > findings.MaxFindings {
		return fmt.Errorf("stored base result: %d findings, more than %d", len(doc.Findings.Findings), findings.MaxFindings)
	}
	*r = Result{Passed: doc.Passed}
	if !doc.Passed {
		r.ExitCode, r.Unverified = doc.ExitCode, doc.Unverified
		if doc.Findings != nil {
			r.Findings = *doc.Findings
		}
	}
	return nil
}
