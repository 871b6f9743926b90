// Package filestat tells whether a file may have changed since it was last
// seen, from its stat alone: the rule every memo keyed by a file's
// identity follows.
//
// A memo may be keyed by a file's identity (device, inode, mode, size,
// modification and change times) only when those times are older than
// Margin before the memo's content was read: a file system keeps times at
// a granularity of up to two seconds, so a change made within that
// granularity of an earlier one may leave the times as they were.
package filestat

import "time"

// RacyMargin is how old a file's times must be, when what depends on it
// is read, for any later change to move them: file systems keep times at
// a granularity of up to two seconds, and git compares change times to
// the second. Every stat-keyed memo and the kept index use it.
const RacyMargin = 2 * time.Second

// Margin is RacyMargin for this package's callers; tests shorten it.
var Margin = RacyMargin

// ID is what a change of a file or directory moves: its device, inode,
// mode, size and times ("" when it does not exist).
type ID string

// Of is the ID of the path p (not followed if a link), and whether its
// times are older than before; false too where a stat cannot tell (any
// system but Linux, any error but a missing file).
func Of(p string, before time.Time) (ID, bool) { return of(p, before) }

// Exact is Of with the times to the nanosecond the file system keeps: two
// changes in the same second move it (ext4 and tmpfs keep a time to the
// kernel's tick), which a memo whose content depends on them all needs
// when tests shorten Margin.
func Exact(p string, before time.Time) (ID, bool) { return exact(p, before) }
