// Package fingerprint recognises a review violation again when a later
// review reports it anew: after edits above its line moved it, after the
// reviewer pointed at a neighbouring line, after the reviewer worded it
// differently. It gives each violation a short stable id (what
// `update-review` takes) and decides whether a reported violation is one
// the agent already decided about (a skip).
//
// The rule: a violation is identified by its file, its anchor (the text of
// the line it points at, white space folded, hashed) and the significant
// words of its issue. Two reports are the same violation when
//   - their files are the same path, and
//   - the earlier anchor is the text of a line within Radius lines of the
//     later report's line (so lines inserted or removed above it, and a
//     reviewer off by a line or two, do not matter; editing the flagged line
//     itself makes it a new violation), or, when either has no anchor, the
//     line numbers are equal, and
//   - their issues share enough significant words: the Dice coefficient of
//     the two word sets is at least MinSimilarity (rewording within reason;
//     a different problem on the same line is a different violation).
package fingerprint

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Radius is how far (in lines) from a report's line its earlier anchor may
// be found.
const Radius = 3

// MinSimilarity is the least Dice coefficient of two issues' significant
// words for them to describe the same problem.
const MinSimilarity = 0.6

// IDLength is the number of characters of an id.
const IDLength = 7

// maxFile bounds the bytes of a file read for anchors.
const maxFile = 16 << 20

// Fields are what identifies one violation.
type Fields struct {
	// File is the path from the project root.
	File string
	// Line is the 1-based line number, 0 when the reviewer gave none.
	Line int
	// Anchor is the hash of the flagged line's text ("" when unknown).
	Anchor string
	// Issue is the reviewer's description.
	Issue string
}

// ID is the short id of a violation: a hash of its file, its anchor (its
// line number when it has no anchor) and its issue's significant words,
// written in lower-case base32. The same violation reported again with the
// same line text and the same words gets the same id.
func ID(f Fields) string {
	where := f.Anchor
	if where == "" {
		where = "line:" + strconv.Itoa(f.Line)
	}
	h := sha256.Sum256([]byte("v1\x00" + cleanPath(f.File) + "\x00" + where + "\x00" + strings.Join(Words(f.Issue), " ")))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h[:]))[:IDLength]
}

// Same reports whether later (a new report, with near the anchors of the
// lines around its line, see Source.Near) is the violation earlier.
func Same(earlier, later Fields, near []string) bool {
	if cleanPath(earlier.File) != cleanPath(later.File) {
		return false
	}
	located := false
	if earlier.Anchor != "" && len(near) > 0 {
		for _, a := range near {
			located = located || a == earlier.Anchor
		}
	} else {
		located = earlier.Line > 0 && earlier.Line == later.Line
	}
	return located && SimilarIssues(earlier.Issue, later.Issue)
}

// Exactly reports whether later flags the very code earlier flagged, with
// a similar issue: the same file, and the same anchor (the flagged line's
// text), or, when earlier has no anchor (a file an earlier tool wrote),
// the same line. It never looks at an id: an id is carried over from the
// earlier violation a report was matched with, so it may be the
// fingerprint of other code. A skip covers a report exactly so (or by
// Same, located strictly).
func Exactly(earlier, later Fields) bool {
	if cleanPath(earlier.File) != cleanPath(later.File) {
		return false
	}
	located := earlier.Line > 0 && earlier.Line == later.Line
	if earlier.Anchor != "" {
		located = earlier.Anchor == later.Anchor
	}
	return located && SimilarIssues(earlier.Issue, later.Issue)
}

// cleanPath is the canonical form of a violation's file for comparison.
func cleanPath(p string) string {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "./")
	return p
}

// Anchor hashes a line's text with its white space folded (indentation and
// spacing changes keep the anchor).
func Anchor(text string) string {
	h := sha256.Sum256([]byte(strings.Join(strings.Fields(text), " ")))
	return hex.EncodeToString(h[:6])
}

// stopWords are words too common to tell two issues apart.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "this": true, "that": true, "are": true, "was": true,
	"were": true, "has": true, "have": true, "been": true, "its": true, "from": true, "into": true, "but": true,
	"when": true, "which": true, "should": true, "would": true, "could": true, "can": true, "will": true,
	"there": true, "here": true, "than": true, "then": true, "also": true, "any": true, "all": true,
	"you": true, "your": true, "does": true, "did": true, "being": true, "may": true, "might": true,
}

// Words are the significant words of an issue: lower-cased runs of letters
// and digits of three characters or more, without common function words,
// a plural or past-tense ending dropped ("errors" and "error", "ignored"
// and "ignore" are one word), each once, sorted.
func Words(issue string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(issue), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) < 3 || stopWords[w] {
			continue
		}
		w = stem(w)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// stem drops one common inflection ending, keeping at least three letters.
func stem(w string) string {
	for _, suffix := range []string{"ing", "ed", "es", "s"} {
		if rest, ok := strings.CutSuffix(w, suffix); ok && len(rest) >= 3 && !strings.HasSuffix(w, "ss") {
			return rest
		}
	}
	return w
}

// SimilarIssues reports whether two issue texts describe the same problem:
// equal once white space and case are folded, or with significant words
// whose Dice coefficient is at least MinSimilarity.
func SimilarIssues(a, b string) bool {
	if strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " ")) {
		return true
	}
	wa, wb := Words(a), Words(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	set := map[string]bool{}
	for _, w := range wa {
		set[w] = true
	}
	common := 0
	for _, w := range wb {
		if set[w] {
			common++
		}
	}
	return 2*float64(common)/float64(len(wa)+len(wb)) >= MinSimilarity
}

// Source reads the lines of a project's files, each file once, and gives
// each line its anchor in the file (see Source.Anchor).
type Source struct {
	root  string
	files map[string][]string
}

// NewSource reads files below root.
func NewSource(root string) *Source { return &Source{root: root, files: map[string][]string{}} }

// anchors returns the anchors of the lines of file (relative to the
// root, see Anchors), nil when it cannot be read or is too large.
func (s *Source) anchors(file string) []string {
	file = cleanPath(file)
	if as, ok := s.files[file]; ok {
		return as
	}
	var lines []string
	if file != "" && !filepath.IsAbs(file) && file != ".." && !strings.HasPrefix(file, "../") {
		if data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(file))); err == nil && len(data) <= maxFile {
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(make([]byte, 0, 64<<10), maxFile)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
		}
	}
	as := Anchors(lines)
	s.files[file] = as
	return as
}

// Anchors are the anchors of a file's lines, each unique in the file. A
// line whose text is the first of its kind has the hash of its text (see
// Anchor), the anchor it has always had. A later line with the same text
// (a copy) has that hash qualified by its context, the texts of the
// nearest lines above and below it that differ from it, so that adding or
// removing another copy elsewhere does not make it a third copy's
// anchor; copies whose contexts are equal too are told apart by their
// rank among them ("…#1" for the second).
func Anchors(lines []string) []string {
	hashes := make([]string, len(lines))
	for i, l := range lines {
		hashes[i] = Anchor(l)
	}
	out := make([]string, len(lines))
	first := map[string]bool{}
	rank := map[string]int{}
	for i, h := range hashes {
		if !first[h] {
			first[h], out[i] = true, h
			continue
		}
		a := h + "~" + context(lines, hashes, i)
		if k := rank[a]; k > 0 {
			rank[a], out[i] = k+1, a+"#"+strconv.Itoa(k)
			continue
		}
		rank[a], out[i] = 1, a
	}
	return out
}

// context hashes the texts of the nearest lines above and below line i
// whose text differs from line i's (8 hex digits).
func context(lines, hashes []string, i int) string {
	above, below := "", ""
	for j := i - 1; j >= 0; j-- {
		if hashes[j] != hashes[i] {
			above = strings.Join(strings.Fields(lines[j]), " ")
			break
		}
	}
	for j := i + 1; j < len(lines); j++ {
		if hashes[j] != hashes[i] {
			below = strings.Join(strings.Fields(lines[j]), " ")
			break
		}
	}
	h := sha256.Sum256([]byte(above + "\x00" + below))
	return hex.EncodeToString(h[:4])
}

// SameText reports whether two anchors are of lines with the same text
// (white space folded), whatever copies of it precede them (see Anchors).
func SameText(a, b string) bool {
	a, _, _ = strings.Cut(a, "~")
	b, _, _ = strings.Cut(b, "~")
	return a != "" && a == b
}

// Anchor is the anchor of line n of file, "" when there is no such line:
// the hash of its text (see Anchor), qualified when an identical line is
// above it (see Anchors).
func (s *Source) Anchor(file string, n int) string {
	as := s.anchors(file)
	if n < 1 || n > len(as) {
		return ""
	}
	return as[n-1]
}

// Near returns the anchors of the lines within Radius of line n of file
// (none when the file or the line does not exist).
func (s *Source) Near(file string, n int) []string {
	as := s.anchors(file)
	if n < 1 || n > len(as) {
		return nil
	}
	return append([]string(nil), as[max(1, n-Radius)-1:min(len(as), n+Radius)]...)
}
