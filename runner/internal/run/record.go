package run

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// The verdict book (statecfg/verdicts) is where a run finds what earlier
// runs left to verify, the retry budget and the interval's start, and
// where it records its own verdicts as they happen. The log directory is
// the agent's side: its review JSON files are read for the agent's marks
// (fixed, skipped, a note) and nothing else; a project without a book yet
// gets one made from its log directory, once.

// Record is the verdict book of a project in its work tree, as a run or a
// reader found it.
type Record struct {
	// mu serializes the changes of a run's gates, which end in parallel.
	mu sync.Mutex
	// Book is the book; never nil.
	Book *verdicts.Book
	// Seeded is true when Book was just made from the log directory: the
	// project had no book (an older version's or the TypeScript tool's
	// logs), or Damaged says why its book could not be used.
	Seeded  bool
	Damaged string
	// key is where the book is kept; keyed is false for a project with no
	// place for records (not in a git work tree), whose book lives in
	// memory, made from the log directory each time.
	key   verdicts.Key
	keyed bool
	// held is true when Book holds changes its file does not (hold).
	held bool
}

// ReadRecord reads the verdict book of the project at root, whose log
// directory is logDir and whose configured jobs jn names (entry.JobNames),
// at now. A project with no book, or a damaged one, gets one made from
// its log directory and its execution state st when they hold anything
// (verdicts.Book.Seed), else an empty one; nothing is written. It runs no
// git process unless git's location variables are set.
func ReadRecord(ctx context.Context, root, logDir string, jn *logdir.JobNames, st *state.State, now time.Time) *Record {
	r := &Record{}
	if pl, err := place.Locate(ctx, root); err == nil {
		r.key, r.keyed = verdicts.KeyOf(pl), true
		b, err := verdicts.Read(r.key)
		switch {
		case err != nil:
			r.Damaged = err.Error()
		case b != nil:
			r.Book = b
			return r
		}
	}
	r.Book = verdicts.NewBook()
	if has, _ := logdir.HasLogs(logDir); has || st != nil || r.Damaged != "" {
		taken := StateTaken(ctx, root, logDir)
		l := legacyOf(logDir, jn, taken)
		l.Unproven = st != nil && !taken
		r.Book.Seed(l, st, now)
		r.Seeded = true
	}
	if r.Damaged != "" {
		r.Book.Lost(now, r.Damaged+"; what it held was read again from the log directory")
	}
	return r
}

// StateTaken reports whether the execution state of the log directory
// logDir may stand for the runs before the verdict book of the project at
// root (verdicts.IntervalStart): only in a project an earlier tool could
// have left, one in which this version has not started a log directory
// (logdir.Started) nor been trusted by a person (a trust record other
// than one a stop adopted from HEAD, trust.HowHEAD). Anywhere else a
// state with no book is no record of a run: this version writes its book
// at every run, and the agent can write the state.
func StateTaken(ctx context.Context, root, logDir string) bool {
	if logdir.Started(logDir) {
		return false
	}
	pl, err := place.Locate(ctx, root)
	if err != nil {
		return true // no repository: no record of this version either
	}
	rec, err := trust.ReadRecord(pl)
	return err == nil && (rec == nil || rec.How == trust.HowHEAD)
}

// save applies change to the book and writes it whole (verdicts.Update):
// the run holds the run lock, so its book is the one truth while it runs.
// A book that cannot be written is a warning: the run goes on with the
// book in memory.
func (r *Record) save(s *services, change func(*verdicts.Book) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := change(r.Book); err != nil {
		s.cons.Printf(lineWarning, fmt.Sprintf("verdicts not recorded: %v", err))
		return
	}
	r.write(s)
}

// hold applies change to the book in memory only: the next save (or
// flush) writes it with its own change. A change that fails is a warning,
// as in save.
func (r *Record) hold(s *services, change func(*verdicts.Book) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := change(r.Book); err != nil {
		s.cons.Printf(lineWarning, fmt.Sprintf("verdicts not recorded: %v", err))
		return
	}
	r.held = r.keyed
}

// flush writes what hold left in memory only, when anything.
func (r *Record) flush(s *services) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held {
		r.write(s)
	}
}

// write writes the book to its file (nothing for a book with no place);
// the caller holds mu.
func (r *Record) write(s *services) {
	if !r.keyed {
		return
	}
	r.held = false
	err := verdicts.Update(r.key, func(b *verdicts.Book) error {
		*b = *r.Book
		return nil
	})
	if err != nil {
		s.cons.Printf(lineWarning, fmt.Sprintf("verdicts not recorded in %s: %v", r.key.Path(), err))
	}
}

// Path is where the book is kept ("" for a project with no place for
// records).
func (r *Record) Path() string {
	if !r.keyed {
		return ""
	}
	return r.key.Path()
}

// legacyOf is what the log directory logDir holds of the jobs jn names:
// the checks whose latest log failed or erred, and each review slot's
// latest verdict (pass or fail; a run in which it erred is passed over,
// see review.Latest), with its violations as the file holds them.
func legacyOf(logDir string, jn *logdir.JobNames, earlier bool) verdicts.Legacy {
	l := verdicts.Legacy{Checks: map[string]string{}}
	names, err := logdir.Scan(logDir)
	if err != nil {
		return l
	}
	for _, n := range names {
		l.Run = max(l.Run, n.Run)
	}
	for job := range check.Failing(logDir, names, jn, func(string) bool { return true }) {
		l.Checks[job] = ""
	}
	records, _ := review.Latest(logDir, names, jn)
	for _, rec := range records {
		// Only what a run wrote or left is a verdict: a review JSON the
		// agent planted is none, and an entry it added to one reports
		// nothing (see logdir.Held).
		held, wrote := logdir.Held(rec.Path, earlier)
		if rec.JSON && !wrote {
			continue
		}
		s := verdicts.LegacySlot{Job: rec.Job, Slot: rec.Slot, Adapter: rec.Adapter, Run: rec.Run}
		switch rec.Status {
		case gate.StatusFail:
			s.Status = verdicts.StatusFail
		case gate.StatusPass, gate.StatusSkippedPriorPass:
			s.Status = verdicts.StatusPass
		default:
			continue
		}
		if rec.JSON {
			s.JSON = filepath.Base(rec.Path)
		}
		for _, v := range rec.Violations {
			// A legacy log has no marks to read later: its skips are left
			// out now. A review JSON keeps every violation; its marks apply
			// from the file.
			if !rec.JSON && review.StatusOf(v) == gate.ViolationSkipped {
				continue
			}
			if rec.JSON && held != nil && !held[review.EntryKey(v)] {
				continue
			}
			s.Violations = append(s.Violations, bookViolation(v))
		}
		l.Slots = append(l.Slots, s)
	}
	return l
}

// bookViolation is a reviewer's violation as the book keeps it.
func bookViolation(v gate.Violation) verdicts.Violation {
	out := verdicts.Violation{ID: review.ID(v), File: v.File, Anchor: v.Anchor, Issue: v.Issue, Fix: v.Fix, Priority: v.Priority}
	if n, ok := parse.LineNumber(v.Line); ok {
		out.Line = n
	} else {
		out.LineText = parse.LineText(v.Line)
	}
	return out
}

// GateViolation is a violation of the book as the gates and the CLI are
// given it: the reviewer's words, the agent's status (new, fixed,
// skipped) and note.
func GateViolation(a verdicts.Annotated) gate.Violation {
	v := gate.Violation{File: a.File, Issue: a.Issue, Fix: a.Fix, Priority: a.Priority, Status: a.Status, ID: a.ID, Anchor: a.Anchor}
	if a.Line > 0 {
		v.Line = a.Line
	} else {
		v.Line = a.LineText
	}
	if a.Note != "" {
		v.Result = a.Note
	}
	return v
}

// openRecord is the run's verdict book (ReadRecord). A book just made from
// the log directory is written at once; a stored one that could not be
// used is a warning.
func openRecord(ctx context.Context, s *services, p *project, jn *logdir.JobNames, st *state.State) *Record {
	r := ReadRecord(ctx, p.root, p.logDir, jn, st, s.now())
	if p.opts.Untrusted {
		r.keyed = false // read, never written (Options.Untrusted)
	}
	if r.Damaged != "" {
		s.cons.Printf(lineWarning, fmt.Sprintf("%s; what is pending was read again from the log directory", r.Damaged))
	}
	if r.Seeded {
		r.save(s, func(*verdicts.Book) error { return nil })
	}
	return r
}

// previous is what the previous run recorded of the work tree it judged,
// as the book says (its branch and snapshot), the rest from the execution
// state st. A book that records no run yet has no previous run.
func (r *Record) previous(st state.State) state.State {
	b := r.Book
	sn := b.Snapshot
	if sn == nil {
		return state.State{PreExisting: st.PreExisting}
	}
	st.Branch = b.Branch
	st.WorkingTreeRef, st.Commit, st.RunNumber, st.Scope, st.ReviewDefinitions = sn.Ref, sn.Commit, sn.Run, sn.Scope, sn.Definitions
	return st
}

// follow records that the work tree is on branch now. The verdicts of
// another branch are dropped, with when and why, for the person to be
// told: they were about work the run no longer sees. A detached HEAD
// (mid-rebase, a checked-out commit) is no branch change either way.
func (r *Record) follow(s *services, branch string) {
	was := r.Book.Branch
	if branch == "" || branch == was || branch == detachedHEAD {
		return
	}
	now := s.now()
	r.save(s, func(b *verdicts.Book) error {
		if was != "" && was != detachedHEAD {
			b.Clear(now, fmt.Sprintf("the branch changed from %s to %s", was, branch), nil)
		}
		b.Branch = branch
		return nil
	})
}

// Verdicts is what the verdict book of a project leaves to verify, for
// the readers between runs (status, the hooks, update-review).
type Verdicts struct {
	// Record is the book.
	*Record
	// Pending is what it leaves to verify of the configured jobs, the
	// agent's marks merged in; Warnings name the review JSON files whose
	// marks could not be read.
	Pending  verdicts.Pending
	Warnings []string
}

// ReadVerdicts reads the verdict book of the project cfg at now (a book
// made from the log directory when there is none, see ReadRecord), and
// what it leaves to verify of the jobs the configuration can give. A
// configuration read without its gate files (config.Project.Settings)
// gives no job: then everything the book holds is pending, never nothing.
// It writes nothing.
func ReadVerdicts(ctx context.Context, cfg *config.Config, now time.Time) Verdicts {
	logDir := cfg.LogDirPath()
	jobs := configuredJobs(cfg)
	var v Verdicts
	st, err := state.Read(logDir)
	if err != nil {
		v.Warnings = append(v.Warnings, err.Error())
	}
	v.Record = ReadRecord(ctx, cfg.Root, logDir, jobs.names, st, now)
	if v.Damaged != "" {
		v.Warnings = append(v.Warnings, v.Damaged)
	}
	keep := jobs.has
	if len(cfg.Checks)+len(cfg.Reviews) == 0 {
		keep = nil
	}
	var ws []string
	v.Pending, ws = v.Book.Pending(logDir, EnvIdentity(), keep)
	v.Warnings = append(v.Warnings, ws...)
	return v
}

// ClearRecord drops the verdicts of the project at root (verdicts.Book.Clear)
// at now, for reason, when it has a book; the caller holds the run lock.
func ClearRecord(ctx context.Context, root, reason string, now time.Time) error {
	pl, err := place.Locate(ctx, root)
	if err != nil {
		return nil
	}
	key := verdicts.KeyOf(pl)
	if b, err := verdicts.Read(key); b == nil && err == nil {
		return nil
	}
	return verdicts.Update(key, func(b *verdicts.Book) error {
		b.Clear(now, reason, nil)
		return nil
	})
}

// MarkStart records, for the project at root, HEAD (git's empty tree
// before the first commit) as the last point the gates were seen to pass
// on the current branch, when the records hold none for it yet: work
// committed onto a base branch that is HEAD's own is then checked from
// there (see begun.reachBack). It returns the branch and the point, ""
// for none (a detached HEAD, no place for records).
func MarkStart(ctx context.Context, root string, now time.Time) (branch, point string, err error) {
	pl, err := place.Locate(ctx, root)
	if err != nil {
		return "", "", nil
	}
	loc, err := git.Locate(ctx, root)
	if err != nil {
		return "", "", err
	}
	head, err := git.Head(ctx, root)
	if err != nil {
		return "", "", err
	}
	if loc.Branch == detachedHEAD {
		return "", "", nil
	}
	if head == "" {
		head = git.EmptyTree
	}
	err = verdicts.Update(verdicts.KeyOf(pl), func(b *verdicts.Book) error {
		if p, ok := b.VerifiedOn(loc.Branch); ok {
			head = p.Commit
			return nil
		}
		b.MarkVerified(loc.Branch, head, now)
		return nil
	})
	return loc.Branch, head, err
}

// StoredBook is the verdict book stored for the project at root: nil when
// there is none (or no place for one), an error when one exists that
// cannot be used.
func StoredBook(ctx context.Context, root string) (*verdicts.Book, error) {
	pl, err := place.Locate(ctx, root)
	if err != nil {
		return nil, nil
	}
	return verdicts.Read(verdicts.KeyOf(pl))
}
