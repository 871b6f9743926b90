package git

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
)

// ErrIndexUnread says that the user's index keeps entries elsewhere (a
// split or sparse index): what it stages cannot be read from the file.
var ErrIndexUnread = errors.New("the index keeps entries in other files (a split or sparse index)")

// StagedApart compares what the user's index stages, what the next
// `git commit` records, with the snapshot's tree, both read from their
// index files (no git process). apart are the paths (relative to the top
// level) where the user's index stages an entry the snapshot does not
// hold as it is (another mode or object, or a path the snapshot does not
// hold), each with the entry staged there (its Type left ""). Conflicted and intent-to-add entries stage no content, and
// skip-worktree ones the snapshot holds as the index does. staged
// identifies what the user's index stages ("" for no index: then nothing
// is apart).
func (s *TreeSnapshot) StagedApart() (apart map[string]TreeEntry, staged string, err error) {
	user, err := gitindex.Read(s.user)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read the index: %w", err)
	}
	if slices.Contains(user.Extensions, "link") || slices.Contains(user.Extensions, "sdir") {
		return nil, "", ErrIndexUnread
	}
	snap, err := gitindex.Read(s.index)
	if err != nil {
		return nil, "", fmt.Errorf("read the snapshot's index: %w", err)
	}
	held := make(map[string]*gitindex.Entry, len(snap.Entries))
	for i := range snap.Entries {
		if e := &snap.Entries[i]; e.Stage() == 0 {
			held[e.Path] = e
		}
	}
	apart = map[string]TreeEntry{}
	for i := range user.Entries {
		e := &user.Entries[i]
		if e.Stage() != 0 || e.IntentToAdd() || e.SkipWorktree() {
			continue
		}
		if h, ok := held[e.Path]; !ok || h.Mode != e.Mode || !bytes.Equal(h.OID, e.OID) {
			apart[e.Path] = TreeEntry{ID: hex.EncodeToString(e.OID), Mode: strconv.FormatUint(uint64(e.Mode), 8)}
		}
	}
	return apart, user.Staged(), nil
}

// StagedAsBefore reports, without reading an index, that StagedApart
// would identify what the user's index stages as staged (an identity it
// gave before, "" for none): the snapshot's own reading of the user's index
// (UserIndex, kept in the seed note by the index file's size, time and
// checksum) is that identity. It may say false when StagedApart would
// agree (a split or sparse index, a seed note merged again), never true
// when StagedApart would not.
func (s *TreeSnapshot) StagedAsBefore(staged string) bool {
	return staged != "" && staged == s.userContent
}

// Prefix is the project root's path below the top level of its work tree
// ("" or "dir/"): the paths of Tree and StagedApart under the project
// start with it.
func (s *TreeSnapshot) Prefix() string { return s.disk.prefix }
