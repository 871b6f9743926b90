package findings

import (
	"strconv"
	"strings"
)

// Diff is what a unified diff (git diff, any context size) says about the
// lines of each file: which lines of the new side the change added or
// modified, and where each unchanged line of the old side is now. It maps
// lines the way golangci-lint's new-from-rev does (revgrep): a line
// that a hunk adds is changed; others move by the hunks above them.
type Diff struct {
	files map[string]*fileDiff
	// renamed maps an old path to its new one.
	renamed map[string]string
	// Unknown is true when the diff could not be read whole (cut, or a
	// line it could not understand): every line then counts as changed.
	Unknown bool
}

// fileDiff is one file's hunks.
type fileDiff struct {
	hunks []hunk
	// whole: the file is new (every line added).
	whole bool
}

// hunk is one @@ -oldStart,oldCount +newStart,newCount @@ range.
type hunk struct{ oldStart, oldCount, newStart, newCount int }

// ParseDiff reads a unified diff with a/ and b/ prefixes (git diff's
// default); paths are as git prints them, relative to where it ran. It
// never fails: what it cannot read sets Unknown.
func ParseDiff(text string) *Diff {
	d := &Diff{files: map[string]*fileDiff{}, renamed: map[string]string{}}
	var cur *fileDiff
	var oldPath, renameFrom string
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			cur, oldPath, renameFrom = nil, "", ""
		case strings.HasPrefix(l, "rename from "):
			renameFrom = diffPath(strings.TrimPrefix(l, "rename from "), "")
		case strings.HasPrefix(l, "rename to "):
			if renameFrom != "" {
				d.renamed[renameFrom] = diffPath(strings.TrimPrefix(l, "rename to "), "")
			}
		case strings.HasPrefix(l, "--- "):
			oldPath = diffPath(strings.TrimPrefix(l, "--- "), "a/")
		case strings.HasPrefix(l, "+++ "):
			p := diffPath(strings.TrimPrefix(l, "+++ "), "b/")
			if p == "" {
				cur = nil // deleted: no lines on the new side
				continue
			}
			cur = &fileDiff{whole: oldPath == ""}
			d.files[p] = cur
			if oldPath != "" && oldPath != p {
				d.renamed[oldPath] = p
			}
		case strings.HasPrefix(l, "@@ "):
			h, ok := parseHunk(l)
			if !ok || cur == nil || !cur.follows(h) {
				d.Unknown = true
				continue
			}
			cur.hunks = append(cur.hunks, h)
		}
	}
	return d
}

// follows reports whether h can come after f's hunks: below them on both
// sides, its new start where the lines above it put it. Anything else is
// no diff git writes, and mapping lines through it would be a guess.
func (f *fileDiff) follows(h hunk) bool {
	first := func(start, count int) int {
		if count == 0 {
			return start + 1
		}
		return start
	}
	if h.oldCount > 0 && h.oldStart == 0 || h.newCount > 0 && h.newStart == 0 {
		return false
	}
	shift, oldEnd, newEnd := 0, 1, 1
	for _, p := range f.hunks {
		shift += p.newCount - p.oldCount
		oldEnd = first(p.oldStart, p.oldCount) + p.oldCount
		newEnd = first(p.newStart, p.newCount) + p.newCount
	}
	o, n := first(h.oldStart, h.oldCount), first(h.newStart, h.newCount)
	return o >= oldEnd && n >= newEnd && n-o == shift
}

// diffPath is a path of a ---/+++ line without its prefix; "" for
// /dev/null. Quoted paths (git quotes unusual names) are unquoted.
func diffPath(p, prefix string) string {
	p = strings.TrimRight(p, "\t")
	if strings.HasPrefix(p, `"`) {
		if u, err := strconv.Unquote(p); err == nil {
			p = u
		}
	}
	if p == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(p, prefix)
}

// parseHunk reads "@@ -a[,b] +c[,d] @@ ...".
func parseHunk(l string) (hunk, bool) {
	f := strings.Fields(l)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return hunk{}, false
	}
	os, oc, ok1 := hunkRange(f[1][1:])
	ns, nc, ok2 := hunkRange(f[2][1:])
	return hunk{os, oc, ns, nc}, ok1 && ok2
}

// hunkRange reads "start[,count]" (count 1 when left out).
func hunkRange(s string) (start, count int, ok bool) {
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if has {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}

// Changed reports whether line of file (new side, relative path) was
// added or modified by the change. A file the diff does not name is
// unchanged; a line 0 (no line) is changed only in a new file.
func (d *Diff) Changed(file string, line int) bool {
	if d == nil || d.Unknown {
		return true
	}
	f, ok := d.files[file]
	if !ok {
		return false
	}
	if f.whole {
		return true
	}
	for _, h := range f.hunks {
		if line >= h.newStart && line < h.newStart+h.newCount {
			return true
		}
	}
	return false
}

// NewPath is where the file at old path is after the change (renames).
func (d *Diff) NewPath(old string) string {
	if d != nil {
		if p, ok := d.renamed[old]; ok {
			return p
		}
	}
	return old
}

// OldPath is where the file at new path was before the change (renames).
func (d *Diff) OldPath(p string) string {
	if d != nil {
		for old, now := range d.renamed {
			if now == p {
				return old
			}
		}
	}
	return p
}

// ReplacedBy is the range [from, to) of new-side lines of file (new
// path) that took the place of line of the old side, which the change
// removed or modified: empty (from == to) when the change only removed
// it. ok is false when the change kept the line, or the diff cannot tell
// (unknown, or a new file).
func (d *Diff) ReplacedBy(file string, line int) (from, to int, ok bool) {
	if d == nil || d.Unknown || line <= 0 {
		return 0, 0, false
	}
	f, found := d.files[file]
	if !found || f.whole {
		return 0, 0, false
	}
	for _, h := range f.hunks {
		if h.oldCount > 0 && line >= h.oldStart && line < h.oldStart+h.oldCount {
			if h.newCount == 0 {
				return h.newStart + 1, h.newStart + 1, true
			}
			return h.newStart, h.newStart + h.newCount, true
		}
	}
	return 0, 0, false
}

// MapLine is where line of the old side of file (new path) is on the new
// side; ok is false when the change removed or modified it.
func (d *Diff) MapLine(file string, line int) (int, bool) {
	if d == nil || d.Unknown {
		return 0, false
	}
	f, ok := d.files[file]
	if !ok || line <= 0 {
		return line, true // a file the change did not touch; no line
	}
	if f.whole {
		return 0, false
	}
	shift := 0
	for _, h := range f.hunks {
		if h.oldCount == 0 {
			// An insertion after old line oldStart.
			if h.oldStart < line {
				shift += h.newCount
			}
			continue
		}
		last := h.oldStart + h.oldCount - 1
		switch {
		case line > last:
			shift += h.newCount - h.oldCount
		case line >= h.oldStart:
			return 0, false
		}
	}
	return line + shift, true
}
