// Package decisions keeps the agent's skip decisions: a review violation
// the agent marked skipped stays skipped on its branch, whatever happens to
// the logs, when a later review reports it again.
package decisions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// The agent's skip decisions are kept per project and branch in the store
// under the git common directory (statecfg/store, kind "decisions"), where
// archiving, clean and auto-clean never reach: a violation skipped on a
// branch stays skipped when a later review on that branch reports it again
// (see the fingerprint package for what "again" means), whatever happened
// to the logs in between.
const (
	// decisionsKind is the store's kind of record.
	decisionsKind = "decisions"
	// maxSkips bounds the decisions kept per project and branch; the oldest
	// go first.
	maxSkips = 500
	// decisionsVersion is the record format.
	decisionsVersion = 1
)

// decisionBook is the record of one project on one branch.
type decisionBook struct {
	Version int `json:"version"`
	// Project is the project root relative to the work tree's top level
	// ("." at the top level); Branch the branch.
	Project string     `json:"project"`
	Branch  string     `json:"branch"`
	Skips   []Decision `json:"skips"`
}

// Decision is one skip decision.
type Decision struct {
	ID     string `json:"id"`
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Anchor string `json:"anchor,omitempty"`
	Issue  string `json:"issue"`
	Note   string `json:"note"`
	// Review is the review job that reported it.
	Review    string    `json:"review,omitempty"`
	SkippedAt time.Time `json:"skipped_at"`
}

// gateSkip is the record as the review gates apply it.
func (r Decision) gateSkip() gate.Skip {
	return gate.Skip{ID: r.ID, File: r.File, Line: r.Line, Anchor: r.Anchor, Issue: r.Issue, Note: r.Note}
}

// same reports whether r and o are one decision: the same fingerprint at
// the same line. Not the same id alone: an id is carried over from the
// violation a report was matched with, so two decisions about different
// code may share one, and neither may replace the other.
func (r Decision) same(o Decision) bool {
	return r.File == o.File && r.Line == o.Line && fingerprint.SimilarIssues(r.Issue, o.Issue) &&
		(r.Anchor == o.Anchor || r.Anchor == "" || o.Anchor == "")
}

// decisionsOf is the store and key of the decisions of loc's project on
// branch.
func decisionsOf(loc git.Location, branch string) (store.Store, []string) {
	project := strings.TrimSuffix(loc.Prefix, "/")
	if project == "" {
		project = "."
	}
	return store.Open(loc.CommonDir, decisionsKind), []string{project, branch}
}

// Load reads the skip decisions of loc's project on its branch. A
// corrupt record reads as none (with the error, for a warning).
func Load(loc git.Location) ([]gate.Skip, error) {
	s, key := decisionsOf(loc, loc.Branch)
	var book decisionBook
	_, err := s.Read(&book, key...)
	out := make([]gate.Skip, 0, len(book.Skips))
	for _, r := range book.Skips {
		out = append(out, r.gateSkip())
	}
	return out, err
}

// Standing are the skip decisions of the project at root on the branch
// its work tree has checked out, oldest first, with that branch: every
// violation the agent skipped there instead of fixing, with its reason.
// They outlive the logs (archived or cleaned), so that whoever is told a
// stop passed with skipped violations can read which and why. It runs no
// git process in a repository git finds by its files.
func Standing(ctx context.Context, root string) ([]Decision, string, error) {
	pl, err := place.Locate(ctx, root)
	if err != nil {
		return nil, "", err
	}
	branch, err := git.BranchOf(pl.GitDir)
	if err != nil {
		return nil, "", err
	}
	s, key := decisionsOf(git.Location{CommonDir: pl.CommonDir, Prefix: pl.Prefix}, branch)
	var book decisionBook
	_, err = s.Read(&book, key...)
	return book.Skips, branch, err
}

// Keep adds the decisions to loc's project on branch (replacing a
// decision about the same violation) and returns those it did not hold
// yet.
func Keep(loc git.Location, branch string, skips []Decision) ([]Decision, error) {
	if len(skips) == 0 {
		return nil, nil
	}
	s, key := decisionsOf(loc, branch)
	var book decisionBook
	var added []Decision
	err := s.Update(&book, func() (bool, error) {
		book.Version, book.Project, book.Branch = decisionsVersion, key[0], branch
		added = added[:0]
		changed := false
		for _, sk := range skips {
			i := indexSkip(book.Skips, sk)
			switch {
			case i < 0:
				book.Skips = append(book.Skips, sk)
				added = append(added, sk)
				changed = true
			case book.Skips[i].Note != sk.Note || book.Skips[i].Anchor == "" && sk.Anchor != "":
				sk.SkippedAt = book.Skips[i].SkippedAt
				book.Skips[i] = sk
				changed = true
			}
		}
		if over := len(book.Skips) - maxSkips; over > 0 {
			book.Skips = book.Skips[over:]
		}
		return changed, nil
	}, key...)
	return added, err
}

// KeepMarked keeps skips the agent marked in review records written on
// branch logsBranch as decisions of that branch. A mark is a decision of
// the branch checked out when the agent made it; when the branch changed
// since those records were written (current differs), a mark not kept
// before may have been made on either side of the change, so it is kept
// as a decision of current too: what the agent marked after a checkout is
// never asked of it again.
func KeepMarked(loc git.Location, logsBranch, current string, skips []Decision) error {
	if logsBranch == "" {
		logsBranch = current
	}
	added, err := Keep(loc, logsBranch, skips)
	if err != nil || current == "" || current == logsBranch || len(added) == 0 {
		return err
	}
	_, err = Keep(loc, current, added)
	return err
}

// indexSkip is the index of the decision in list about the same violation
// as sk, or -1.
func indexSkip(list []Decision, sk Decision) int {
	for i, r := range list {
		if r.same(sk) {
			return i
		}
	}
	return -1
}

// Of is the decision an agent took by marking v skipped in review job's
// record; src gives the anchor of a violation stored without one (a file of
// the TypeScript tool, or a hand edit).
func Of(job string, v gate.Violation, src *fingerprint.Source, now time.Time) Decision {
	line, _ := parse.LineNumber(v.Line)
	anchor := v.Anchor
	if anchor == "" {
		anchor = src.Anchor(v.File, line)
	}
	return Decision{ID: review.ID(v), File: v.File, Line: line, Anchor: anchor, Issue: v.Issue,
		Note: review.ResultText(v), Review: job, SkippedAt: now.UTC()}
}

// Recorded is what the gauntlet's record of verdicts says of the review
// files of a log directory: the files it keeps as the slots' latest
// verdicts (by name) and the violations recorded there that the agent
// marked skipped, as that record reads the marks (an entry names a
// recorded violation by its id; what else the agent wrote there is
// ignored). The zero value records nothing.
type Recorded struct {
	Files   map[string]bool
	Skipped []verdicts.SkippedViolation
	// Earlier tells that a log directory the record of the files the
	// gauntlet wrote does not know may hold an earlier tool's logs (see
	// logdir.Held).
	Earlier bool
}

// RecordedOf is what book (nil: none) records of the review files of
// logDir, for a run in the environment env.
func RecordedOf(book *verdicts.Book, logDir, env string) Recorded {
	if book == nil {
		return Recorded{}
	}
	rec := Recorded{Files: map[string]bool{}}
	for _, slots := range book.Slots {
		for _, v := range slots {
			if v = v.In(env); v.JSON != "" {
				rec.Files[v.JSON] = true
			}
		}
	}
	p, _ := book.Pending(logDir, env, nil)
	rec.Skipped = p.Skipped
	return rec
}

// skippedInLogs are the violations marked skipped in the review JSON
// files of logDir the gauntlet wrote (its files named by jn; any run's, not
// only the newest of each slot: a mark is the agent's word in whichever of
// them it wrote it), as decisions, with a warning per unreadable file. A
// mark counts only on a violation the gauntlet reported to the agent before
// it was made: a file the agent added beside them holds no mark, nor does
// an entry the gauntlet did not write there (logdir.Held: one the agent
// added, or whose id, file, line or issue it changed); the
// files rec keeps as the slots' latest verdicts are read as rec reads them
// (only a recorded violation can be skipped there); in the others, a
// violation one entry marks skipped while another entry of the same file
// naming it does not stays unskipped (markedSkipped).
func skippedInLogs(logDir, root string, jn *logdir.JobNames, rec Recorded, now time.Time) ([]Decision, []string) {
	names, err := logdir.Scan(logDir)
	if err != nil {
		return nil, []string{err.Error()}
	}
	records, warnings := review.Marked(logDir, names, jn)
	src := fingerprint.NewSource(root)
	var out []Decision
	for _, sk := range rec.Skipped {
		v := gate.Violation{ID: sk.ID, File: sk.File, Line: sk.Line, Anchor: sk.Anchor, Issue: sk.Issue, Result: sk.Note}
		if sk.Line == 0 {
			v.Line = sk.LineText
		}
		out = append(out, Of(sk.Job, v, src, now))
	}
	for _, r := range records {
		if rec.Files[filepath.Base(r.Path)] {
			continue
		}
		held, wrote := logdir.Held(r.Path, rec.Earlier)
		for _, v := range markedSkipped(r.Violations) {
			if wrote && (held == nil || held[review.EntryKey(v)]) {
				out = append(out, Of(r.Job, v, src, now))
				continue
			}
			warnings = append(warnings, ignoredMark(r.Path, v, wrote))
		}
	}
	return out, warnings
}

// ignoredMark words a skip mark that marks nothing: on a violation the
// gauntlet never reported in the file at path (wrote: the gauntlet wrote
// the file, not that entry).
func ignoredMark(path string, v gate.Violation, wrote bool) string {
	where := "a file agent-gauntlet did not write"
	if wrote {
		where = "an entry agent-gauntlet did not write there"
	}
	return fmt.Sprintf("ignoring the skip of %q in %s: %s; only a violation a review reported can be skipped",
		v.File+":"+parse.LineText(v.Line), path, where)
}

// markedSkipped are the entries of one review file that mark a violation
// skipped, read as the gauntlet's record of verdicts reads the agent's
// marks (statecfg/verdicts): an entry names a violation by its id, or, with
// none, by its very file, line and issue; when several entries name one
// violation, the one that leaves it most pending wins, so a copy marked
// skipped beside the entry left new skips nothing. With no record of what
// the file held, an entry whose id is not the fingerprint of its own
// fields (see consistent) marks nothing: which violation it names cannot
// be told.
func markedSkipped(entries []gate.Violation) []gate.Violation {
	var out []gate.Violation
	for i, v := range entries {
		if review.StatusOf(v) != gate.ViolationSkipped || !consistent(v) {
			continue
		}
		skipped := true
		for j, w := range entries {
			if j != i && review.StatusOf(w) != gate.ViolationSkipped && sameEntry(v, w) {
				skipped = false
				break
			}
		}
		if skipped {
			out = append(out, v)
		}
	}
	return out
}

// consistent reports whether the entry v names the violation its fields
// describe: it carries no id, or the id its fingerprint gives. An entry an
// agent gave another id, or whose file or issue it changed under the id,
// is not. (One whose id a later run carried over from an earlier report
// of the violation is not either; its mark counts where the record of
// verdicts reads it, in the file of its slot's latest verdict.)
func consistent(v gate.Violation) bool {
	id := strings.TrimSpace(v.ID)
	return id == "" || strings.EqualFold(id, fingerprint.ID(review.Fields(v)))
}

// sameEntry reports whether the entries a and b of one review file name
// the same violation: the same id, or, either having none, the very same
// file, line and issue.
func sameEntry(a, b gate.Violation) bool {
	ida, idb := strings.TrimSpace(a.ID), strings.TrimSpace(b.ID)
	if ida != "" && idb != "" {
		return strings.EqualFold(ida, idb)
	}
	return a.File == b.File && parse.LineText(a.Line) == parse.LineText(b.Line) && a.Issue == b.Issue
}

// Harvest keeps the skips the agent marked in logDir's review records
// (by command or by hand, in any run's file the gauntlet wrote, those rec
// keeps read as rec reads them; files named by jn) as decisions of branch (the branch the logs were written on; the current
// one when ""), and those marked in the archive (previous/, whose own
// execution state names its branch; emptied at the next archive) as
// decisions of the archive's branch; a mark new to its branch when the
// branch changed since is kept on the current one too (KeepMarked). It
// runs before anything archives or empties those records. Problems are
// returned as warnings: decisions never stop a run.
func Harvest(ctx context.Context, root, logDir string, jn *logdir.JobNames, rec Recorded, branch string, locate func(context.Context) (git.Location, error), now time.Time) []string {
	skips, warnings := skippedInLogs(logDir, root, jn, rec, now)
	archived, archivedBranch, more := skippedInArchive(logDir, root, jn, rec.Earlier, now)
	warnings = append(warnings, more...)
	if len(skips)+len(archived) == 0 {
		return warnings
	}
	loc, err := locate(ctx)
	if err != nil {
		return append(warnings, fmt.Sprintf("cannot keep the skipped violations as decisions: %v", err))
	}
	for _, set := range []struct {
		branch string
		skips  []Decision
	}{{branch, skips}, {archivedBranch, archived}} {
		if len(set.skips) == 0 {
			continue
		}
		if err := KeepMarked(loc, set.branch, loc.Branch, set.skips); err != nil {
			warnings = append(warnings, fmt.Sprintf("cannot keep the skipped violations as decisions: %v", err))
		}
	}
	return warnings
}

// skippedInArchive are the skips marked in the review records of logDir's
// archive (previous/, when it is a directory) and the branch its execution
// state names ("" when it names none).
func skippedInArchive(logDir, root string, jn *logdir.JobNames, earlier bool, now time.Time) ([]Decision, string, []string) {
	dir := filepath.Join(logDir, logdir.PreviousDir)
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil, "", nil
	}
	skips, warnings := skippedInLogs(dir, root, jn, Recorded{Earlier: earlier}, now)
	if len(skips) == 0 {
		return nil, "", warnings
	}
	branch := ""
	if st, err := state.Read(dir); err == nil && st != nil {
		branch = st.Branch
	}
	return skips, branch, warnings
}

// Warning words a problem reading the decisions.
func Warning(err error) string {
	if errors.Is(err, store.ErrCorrupt) {
		return fmt.Sprintf("ignoring the skip decisions: %v", err)
	}
	return fmt.Sprintf("cannot read the skip decisions: %v", err)
}
