package git

import (
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
)

// LookedSuffix names, next to a kept index, a memo that a caller keeps of
// what it looked at in the work tree while the kept index stayed as it
// was (see Held). It goes with the kept index.
const LookedSuffix = ".looked"

// Held is the kept index a snapshot was taken in, when every path of the
// snapshot is in it: then `git add -A` looked at each of them at the
// snapshot, and an index git left as it was says that every path of it
// has the stat git cached for it (git compares the type, size, inode,
// owner, group and change and modification times, and rewrites the index
// when one moved: see literal.go for the settings that make it).
type Held struct {
	// Index is the kept index, ID its identity as the snapshot left it.
	Index, ID string
	// prefix is the project root below the top level of the work tree
	// ("" or "dir/").
	prefix string
}

// Held returns the kept index the snapshot was taken in, when every path
// of it is there: a snapshot in a temporary index, one that left a path
// out (a file git could not read, what is not a file) and one holding
// repositories of their own (their files are in their own indexes) have
// none.
func (s *TreeSnapshot) Held() (Held, bool) {
	if s.kept == "" || s.tmp != "" || len(s.LeftOut) > 0 || len(s.leftTop) > 0 || len(s.nested) > 0 || len(s.gitlinks) > 0 {
		return Held{}, false
	}
	id, ok := indexIdentity(s.kept)
	if !ok || !hashedIndex(s.kept) {
		return Held{}, false
	}
	return Held{Index: s.kept, ID: id, prefix: s.disk.prefix}, true
}

// Each hands fn, in the index's order (git's: by path, bytewise), each
// entry of stage 0 with a cached stat of the held index under the project
// root, with its path relative to the root; ok is false when the index is
// no longer the one h was made for (then fn is not called).
func (h Held) Each(fn func(rel string, e *gitindex.Entry)) bool {
	idx, err := gitindex.Read(h.Index)
	if err != nil {
		return false
	}
	if id, ok := indexIdentity(h.Index); !ok || id != h.ID {
		return false
	}
	for i := range idx.Entries {
		e := &idx.Entries[i]
		rel, ok := strings.CutPrefix(e.Path, h.prefix)
		if !ok || e.Stage() != 0 || e.Stat == [9]uint32{} || e.Flags&gitindex.FlagExtended != 0 {
			continue
		}
		fn(rel, e)
	}
	return true
}
