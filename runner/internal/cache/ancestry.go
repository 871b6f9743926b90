package cache

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/ledger"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// Whether one commit is an ancestor of another never changes while git
// reads each commit's parents as the commit names them (git.AncestryFixed):
// a commit's name is a hash of its parents' names. The ancestry memo keeps
// the answers git gave under the two names, so that a stop with nothing new
// asks git only once whether the base branch holds HEAD.

// ancestryTag opens every key of the ancestry memo.
const ancestryTag = "agent-gauntlet ancestry v1"

// ancestryKind is the store kind of the ancestry memo, bounded on its own
// (ancestryBytes).
const ancestryKind = "ancestry"

// ancestryBytes bounds the ancestry memo.
const ancestryBytes = 256 << 10

// AncestryDir is the directory of the ancestry memo of the repository
// whose git common directory is commonDir.
func AncestryDir(commonDir string) string { return filepath.Join(commonDir, store.Dir, ancestryKind) }

// ancestryKeyDoc is the canonical form of an ancestry key.
type ancestryKeyDoc struct {
	Tag    string `json:"tag"`
	Commit string `json:"commit"`
	Of     string `json:"of"`
	// Question names a question of Answer (none for IsAncestor).
	Question string `json:"question,omitempty"`
}

// ancestryRecord is what the ancestry memo keeps.
type ancestryRecord struct {
	Ancestor bool `json:"ancestor"`
	// Answer is the answer to a question of Answer.
	Answer string `json:"answer,omitempty"`
	// Complete is true in every record written whole.
	Complete bool `json:"complete"`
}

// Ancestry answers whether a commit is an ancestor of another in the
// repository of the project at root, from its memo when git.AncestryFixed
// holds and the question was asked before.
type Ancestry struct {
	root, commonDir string
	ledger          *ledger.Ledger
	// ask is the slow path: git's answer.
	ask func(ctx context.Context, root, commit, of string) (bool, error)
}

// NewAncestry is the ancestry memo of the repository of the project at
// root, whose git common directory is commonDir.
func NewAncestry(root, commonDir string) *Ancestry {
	return &Ancestry{root: root, commonDir: commonDir, ledger: ledger.Open(commonDir, filepath.Join(store.Dir, ancestryKind), ancestryBytes), ask: git.IsAncestor}
}

// IsAncestor reports whether commit is an ancestor of (or equal to) of,
// both full commit names: the memo's answer when it holds one and the
// repository's history is read as its commits name it, else git's, kept
// when that still held after git answered.
func (a *Ancestry) IsAncestor(ctx context.Context, commit, of string) (bool, error) {
	if commit == of {
		return true, nil
	}
	fixed := git.AncestryFixed(a.commonDir)
	if !fixed {
		return a.ask(ctx, a.root, commit, of)
	}
	kb, err := json.Marshal(ancestryKeyDoc{Tag: ancestryTag, Commit: commit, Of: of})
	if err != nil {
		return a.ask(ctx, a.root, commit, of)
	}
	key := string(kb)
	var rec ancestryRecord
	if _, hit, _ := a.ledger.Get(key, &rec); hit && rec.Complete {
		return rec.Ancestor, nil
	}
	in, err := a.ask(ctx, a.root, commit, of)
	if err != nil || ctx.Err() != nil || !git.AncestryFixed(a.commonDir) {
		return in, err
	}
	if a.ledger.Put(key, ancestryRecord{Ancestor: in, Complete: true}) == nil {
		_, _ = a.ledger.Sweep()
	}
	return in, nil
}

// Answer is compute's answer to question about commits (full commit names,
// with any other text the answer depends on), kept like IsAncestor's: a
// question of the history between named commits has the same answer while
// git.AncestryFixed holds. compute is asked when the memo holds no answer
// or the history may not be read as its commits name it.
func (a *Ancestry) Answer(ctx context.Context, question string, commits []string, compute func() (string, error)) (string, error) {
	if !git.AncestryFixed(a.commonDir) {
		return compute()
	}
	kb, err := json.Marshal(ancestryKeyDoc{Tag: ancestryTag, Commit: strings.Join(commits, " "), Question: question})
	if err != nil {
		return compute()
	}
	key := string(kb)
	var rec ancestryRecord
	if _, hit, _ := a.ledger.Get(key, &rec); hit && rec.Complete {
		return rec.Answer, nil
	}
	answer, err := compute()
	if err != nil || ctx.Err() != nil || !git.AncestryFixed(a.commonDir) {
		return answer, err
	}
	if a.ledger.Put(key, ancestryRecord{Answer: answer, Complete: true}) == nil {
		_, _ = a.ledger.Sweep()
	}
	return answer, nil
}
