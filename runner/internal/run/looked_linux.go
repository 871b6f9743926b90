package run

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
)

// oddPathsHeld is oddPaths for a run whose snapshot was taken in the kept
// index h (held false: none). A look that finds nothing is remembered next
// to h, for the same changed paths, project and credentials, with the
// paths it cannot vouch for; while h stays as it was, a look looks at
// those only. The rest are vouched for by git: each was, at the
// remembered look, a file or link with exactly the stat h caches for it,
// not changed within gitindex.RacyMargin of that look, and an index git
// left as it was means git found each of them with that stat again (it
// compares type, size, inode, owner, group and change time, which moves
// with every change of mode, owner or ACL: what makes a file readable to
// the same credentials). The paths it cannot vouch for are those not in h
// (a deleted path: git does not look at a FIFO put there) and those whose
// stat differed or was too recent.
func oddPathsHeld(root string, files []string, h git.Held, held bool) []string {
	if !held {
		return oddPaths(root, files)
	}
	memo := h.Index + git.LookedSuffix
	key := lookKey(root, files)
	if relook, ok := readLooked(memo, h.ID, key); ok {
		return oddPaths(root, relook)
	}
	start := time.Now()
	var found []string
	// What the look saw of each of files, by position: a few bytes each,
	// the hooks' heap being allowed to grow to several times what is live.
	seen := make([]lookedStat, len(files))
	lookAt(root, files, func(i int, st *unix.Stat_t, what string) {
		if what != "" {
			found = append(found, oddPath(files[i], what))
		}
		seen[i] = lookedStat{looked: true, mode: st.Mode & unix.S_IFMT, stat: statOf(st)}
	})
	if len(found) > 0 {
		return found
	}
	// The files in path order, to find each entry of the index among them.
	order := make([]int32, len(files))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(files[a], files[b]) })
	vouched := make([]bool, len(files))
	mark := start.Add(-gitindex.RacyMargin)
	ok := h.Each(func(rel string, e *gitindex.Entry) {
		at, _ := slices.BinarySearchFunc(order, rel, func(i int32, p string) int { return strings.Compare(files[i], p) })
		for ; at < len(order) && files[order[at]] == rel; at++ {
			i := order[at]
			st := &seen[i]
			vouched[i] = st.looked && e.Mode&unix.S_IFMT == st.mode && e.Stat == st.stat && !e.ChangedSince(mark)
		}
	})
	if !ok {
		return nil
	}
	var relook []string
	for i, f := range files {
		if !vouched[i] {
			relook = append(relook, f)
		}
	}
	writeLooked(memo, h.ID, key, relook)
	return nil
}

// lookedStat is what a look saw of a path: whether it could be looked at,
// its type and the stat fields an index entry caches.
type lookedStat struct {
	looked bool
	mode   uint32
	stat   [9]uint32
}

// statOf is st as git caches it in an index entry: change and
// modification times (seconds, nanoseconds), device, inode, owner, group
// and size, each cut to 32 bits.
func statOf(st *unix.Stat_t) [9]uint32 {
	return [9]uint32{
		uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec), uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec),
		uint32(st.Dev), uint32(st.Ino), st.Uid, st.Gid, uint32(st.Size),
	}
}

// lookKey identifies a look at files in root by this process: what it may
// open depends on its user, groups and capabilities.
func lookKey(root string, files []string) string {
	h := sha256.New()
	groups, _ := unix.Getgroups()
	slices.Sort(groups)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var caps [2]unix.CapUserData
	_ = unix.Capget(&hdr, &caps[0])
	fmt.Fprintf(h, "%s\x00%d %d %v %x %x\x00", root, unix.Geteuid(), unix.Getegid(), groups, caps[0].Effective, caps[1].Effective)
	for _, f := range files {
		io.WriteString(h, f)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lookedHeader opens a memo of a look: its index identity and key follow.
const lookedHeader = "looked-v1"

// maxLookedMemo bounds what is read of the looked memo: the agent can
// put a device or a FIFO there (fsread never reads one).
const maxLookedMemo = 64 << 20

// readLooked reads the memo of a look that found nothing: the paths it
// could not vouch for, when it was made for the index identity id and
// the look key.
func readLooked(memo, id, key string) ([]string, bool) {
	data, err := fsread.File(memo, maxLookedMemo)
	if err != nil {
		return nil, false
	}
	head, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || string(head) != lookedHeader+" "+id+" "+key {
		return nil, false
	}
	if len(rest) == 0 {
		return nil, true
	}
	if rest[len(rest)-1] != 0 {
		return nil, false // cut short
	}
	return strings.Split(string(rest[:len(rest)-1]), "\x00"), true
}

// writeLooked writes the memo of a look that found nothing; a memo that
// cannot be written is no memo.
func writeLooked(memo, id, key string, relook []string) {
	var b strings.Builder
	b.WriteString(lookedHeader + " " + id + " " + key + "\n")
	for _, f := range relook {
		b.WriteString(f + "\x00")
	}
	// A fresh temporary file renamed over the memo: a link planted at
	// either name is replaced, never written through.
	_ = atomicfile.WriteUnsynced(memo, []byte(b.String()), 0o644)
}
