package run

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
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
	seen := make(map[string]unix.Stat_t, len(files))
	lookAt(root, files, func(f string, st *unix.Stat_t, what string) {
		if what != "" {
			found = append(found, oddPath(f, what))
		}
		seen[f] = *st
	})
	if len(found) > 0 {
		return found
	}
	entries, ok := h.Stats()
	if !ok {
		return nil
	}
	mark := start.Add(-gitindex.RacyMargin)
	var relook []string
	for _, f := range files {
		st, looked := seen[f]
		e, in := entries[f]
		if !looked || !in || !cachedAs(&e, &st) || e.ChangedSince(mark) {
			relook = append(relook, f)
		}
	}
	writeLooked(memo, h.ID, key, relook)
	return nil
}

// cachedAs reports whether the index entry e caches exactly the stat st:
// the same type (a file or a link) and every field git keeps.
func cachedAs(e *gitindex.Entry, st *unix.Stat_t) bool {
	if e.Mode&unix.S_IFMT != st.Mode&unix.S_IFMT {
		return false
	}
	return e.Stat == [9]uint32{
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

// readLooked reads the memo of a look that found nothing: the paths it
// could not vouch for, when it was made for the index identity id and
// the look key.
func readLooked(memo, id, key string) ([]string, bool) {
	data, err := os.ReadFile(memo)
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
	tmp := memo + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return
	}
	if err := os.Rename(tmp, memo); err != nil {
		_ = os.Remove(tmp)
	}
}
