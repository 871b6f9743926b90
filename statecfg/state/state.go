// Package state reads and writes the execution state, the
// .execution_state JSON file in the log directory that records when the
// last run completed and on which branch, commit and work tree, and what
// the stop hook's interval and the retry budget of the current episode
// start from. The gauntlet's own record of these (statecfg/verdicts) is
// the one it trusts: the file is in the log directory, where the agent
// can edit it, and it is kept for the TypeScript tool, which reads it, and
// for a project upgraded without that record (see verdicts.Book.Seed and
// verdicts.IntervalStart).
//
// The fields of the TypeScript tool (last_run_completed_at, branch,
// commit, working_tree_ref) keep their meaning, so that it can still read
// the file; what it does not know is in fields of its own, which it
// ignores: last_full_pass_completed_at, episode_start_run, session_id,
// run_number, change_scope, review_definitions, pre_existing_checks.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// File is the execution state's file name inside the log directory.
const File = ".execution_state"

// LegacySessionRefFile is the TypeScript tool's session reference, which the
// execution state replaced. Write deletes it, as upstream does.
const LegacySessionRefFile = ".session_ref"

// ErrCorrupt is wrapped by Read's error when the file exists but is not a
// valid execution state.
var ErrCorrupt = errors.New("corrupt execution state")

// State is the execution state. Timestamps are RFC 3339; the TypeScript
// tool's ISO strings (2026-01-27T10:00:00.000Z) read as well.
type State struct {
	// LastRunCompletedAt is when the last run that executed gates ended.
	LastRunCompletedAt time.Time `json:"last_run_completed_at"`
	// Branch is the branch of that run (HEAD when detached).
	Branch string `json:"branch"`
	// Commit is the HEAD commit of that run.
	Commit string `json:"commit"`
	// WorkingTreeRef is a commit capturing the work tree of that run (tracked
	// and untracked files), the base of the next verification's diffs.
	WorkingTreeRef string `json:"working_tree_ref,omitempty"`
	// LastFullPassAt is when the last run that covered every applicable
	// gate of the work tree (no -g, -c, -u, -b, --working-directory; run
	// or the stop hook, not check or review) ended passed or passed with
	// warnings, with no work-tree run failing since: the stop hook's
	// interval counts from it. Zero when there is none (then the hook
	// runs). A partial run never sets it.
	LastFullPassAt time.Time `json:"last_full_pass_completed_at,omitzero"`
	// EpisodeStartRun is the run number the retry budget of the current
	// episode counts from: max_retries+1 runs from it are allowed. 0 (and
	// any number above the next run's, after the logs were archived) means
	// the lowest, 1.
	EpisodeStartRun int `json:"episode_start_run,omitempty"`
	// SessionID is the agent session of that run (the stop hook's input
	// session_id), "" for a run from the command line. After the retry
	// limit, a stop from another session starts a fresh budget.
	SessionID string `json:"session_id,omitempty"`
	// RunNumber is the number N of that run's log files, and Scope its
	// change scope (the mode and base branch its flags chose, see
	// runner): a verification run narrows a review gate's diff to the
	// changes since WorkingTreeRef only when the gate reached a verdict in
	// that run with the same scope, that is, when it judged that snapshot.
	// 0 and "" (a state of an older version) narrow no gate's diff.
	RunNumber int    `json:"run_number,omitempty"`
	Scope     string `json:"change_scope,omitempty"`
	// ReviewDefinitions fingerprint, per review job id, the definition
	// (prompt, adapters, model, every field) each review gate of that run
	// had: a review judged that snapshot only as it is defined now, so one
	// whose definition changed since is given the whole change set. A
	// review missing here judged nothing.
	ReviewDefinitions map[string]string `json:"review_definitions,omitempty"`
	// PreExisting are the check jobs of that run that failed as they do on
	// the base branch (baseline: true): not caused by the change, shown
	// for information (status).
	PreExisting []string `json:"pre_existing_checks,omitempty"`
}

// onDisk is the file layout, with pointers to tell missing fields. The
// fields the TypeScript tool does not write are read leniently: a value of
// the wrong type reads as missing.
type onDisk struct {
	LastRunCompletedAt *string         `json:"last_run_completed_at"`
	Branch             *string         `json:"branch"`
	Commit             *string         `json:"commit"`
	WorkingTreeRef     *string         `json:"working_tree_ref"`
	LastFullPassAt     json.RawMessage `json:"last_full_pass_completed_at"`
	EpisodeStartRun    json.RawMessage `json:"episode_start_run"`
	SessionID          json.RawMessage `json:"session_id"`
	RunNumber          json.RawMessage `json:"run_number"`
	Scope              json.RawMessage `json:"change_scope"`
	ReviewDefinitions  json.RawMessage `json:"review_definitions"`
	PreExisting        json.RawMessage `json:"pre_existing_checks"`
}

// maxSize bounds what Read reads: a state this package writes is a few
// hundred bytes, and under a megabyte with maxListed pre-existing checks
// and review definitions.
const maxSize = 4 << 20

// Path returns the execution state file of logDir.
func Path(logDir string) string { return filepath.Join(logDir, File) }

// Read reads the execution state of logDir. No file gives (nil, nil). A file
// that is not a JSON object with string fields last_run_completed_at (a
// valid timestamp), branch and commit gives an error wrapping ErrCorrupt
// and naming the file.
func Read(logDir string) (*State, error) {
	path := Path(logDir)
	data, err := fsread.File(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err // an *fs.PathError naming the file
	}
	corrupt := func(why string) error { return fmt.Errorf("read %s: %w: %s", path, ErrCorrupt, why) }
	var d onDisk
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, corrupt(err.Error())
	}
	switch {
	case d.LastRunCompletedAt == nil:
		return nil, corrupt("last_run_completed_at is missing")
	case d.Branch == nil:
		return nil, corrupt("branch is missing")
	case d.Commit == nil:
		return nil, corrupt("commit is missing")
	}
	at, err := time.Parse(time.RFC3339Nano, *d.LastRunCompletedAt)
	if err != nil {
		return nil, corrupt(fmt.Sprintf("last_run_completed_at %q is not an RFC 3339 timestamp", *d.LastRunCompletedAt))
	}
	s := &State{LastRunCompletedAt: at, Branch: *d.Branch, Commit: *d.Commit}
	if d.WorkingTreeRef != nil {
		s.WorkingTreeRef = *d.WorkingTreeRef
	}
	s.readOwn(d)
	return s, nil
}

// readOwn reads the fields of this tool's own, leniently: a value of the
// wrong type or out of range is left zero (which only ever makes the hook
// run, or the budget count from run 1).
func (s *State) readOwn(d onDisk) {
	var at string
	if json.Unmarshal(d.LastFullPassAt, &at) == nil {
		if t, err := time.Parse(time.RFC3339Nano, at); err == nil && t.Year() <= 9999 && t.Year() >= 0 {
			s.LastFullPassAt = t
		}
	}
	var start int
	if json.Unmarshal(d.EpisodeStartRun, &start) == nil && start > 0 {
		s.EpisodeStartRun = start
	}
	var session string
	if json.Unmarshal(d.SessionID, &session) == nil {
		s.SessionID = session
	}
	var run int
	var scope string
	if json.Unmarshal(d.RunNumber, &run) == nil && json.Unmarshal(d.Scope, &scope) == nil && run > 0 {
		s.RunNumber, s.Scope = run, scope
	}
	var pre []string
	if json.Unmarshal(d.PreExisting, &pre) == nil && len(pre) <= maxListed {
		s.PreExisting = pre
	}
	var defs map[string]string
	if json.Unmarshal(d.ReviewDefinitions, &defs) == nil && len(defs) <= maxListed {
		s.ReviewDefinitions = defs
	}
}

// maxListed bounds the pre-existing checks and the review definitions
// read: more is not a state this package wrote for any configuration a
// person keeps.
const maxListed = 10_000

// Write writes s as the execution state of logDir, creating logDir if
// needed. The timestamp is written in UTC. The file is replaced atomically
// (written to a temporary file in logDir, then renamed), so readers and
// concurrent writers never see a torn file: the last rename wins.
//
// Once the state is written, the legacy LegacySessionRefFile is deleted.
// That deletion is best effort: the file is a leftover nothing reads any
// more (clean deletes it too), so failing to delete it does not make a
// successful write fail.
func Write(logDir string, s State) error { return WriteDeleting(logDir, s, nil) }

// WriteDeleting is Write, deleting the legacy LegacySessionRefFile only
// when mayDelete (nil: always) says the file at that path is one the
// gauntlet may delete.
func WriteDeleting(logDir string, s State, mayDelete func(path string) bool) error {
	if err := os.MkdirAll(owned.Via(logDir), 0o755); err != nil {
		return fserr.Wrap("create log directory", logDir, err)
	}
	s.LastRunCompletedAt = s.LastRunCompletedAt.UTC()
	if !s.LastFullPassAt.IsZero() {
		s.LastFullPassAt = s.LastFullPassAt.UTC()
	}
	if err := atomicfile.WriteJSON(Path(logDir), s, 0o644); err != nil {
		return err
	}
	// Only a regular file: anything else of that name is not the
	// TypeScript tool's, so not the gauntlet's to delete.
	legacy := filepath.Join(logDir, LegacySessionRefFile)
	if fi, err := os.Lstat(owned.Via(legacy)); err == nil && fi.Mode().IsRegular() && (mayDelete == nil || mayDelete(legacy)) {
		_ = os.Remove(owned.Via(legacy))
	}
	return nil
}
