package gitindex

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// firstByParse is FirstWithPrefix's answer from Parse: the entry a binary
// search finds at prefix, if it starts with prefix.
func firstByParse(data []byte, prefix string) (string, []string, error) {
	idx, err := Parse(data)
	if err != nil {
		return "", nil, err
	}
	i, _ := slices.BinarySearchFunc(idx.Entries, prefix, func(e Entry, p string) int { return strings.Compare(e.Path, p) })
	if i < len(idx.Entries) && strings.HasPrefix(idx.Entries[i].Path, prefix) {
		return idx.Entries[i].Path, idx.Extensions, nil
	}
	return "", idx.Extensions, nil
}

// emptyBlob is the SHA-1 object id of an empty file (git refuses to
// write an index entry with a null one).
var emptyBlob, _ = hex.DecodeString("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")

// genEntries draws index entries in git's order: paths of one to three
// components (names that sort around "/" and "-", non-ASCII, spaces),
// some in conflict (stages 1 to 3), some with extended flags.
func genEntries(t *rapid.T) []Entry {
	comp := rapid.SampledFrom([]string{"a", "b", "ab", "a.b", "a-b", "a b", "ü", "logs", "logs2", "z"})
	paths := rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) string {
		return strings.Join(rapid.SliceOfN(comp, 1, 3).Draw(t, "parts"), "/")
	}), 0, 40, func(s string) string { return s }).Draw(t, "paths")
	var entries []Entry
	for _, p := range paths {
		e := Entry{Mode: 0o100644, OID: emptyBlob, Path: p}
		if rapid.IntRange(0, 9).Draw(t, "extended") == 0 {
			e.Flags |= FlagExtended
			e.XFlags = XFlagIntentToAdd
		}
		if rapid.IntRange(0, 9).Draw(t, "conflict") == 0 {
			for stage := uint16(1); stage <= 3; stage++ {
				c := e
				c.Flags |= stage << 12
				entries = append(entries, c)
			}
			continue
		}
		entries = append(entries, e)
	}
	slices.SortFunc(entries, Compare)
	return entries
}

// genPrefix draws a prefix: one of a path's, a directory's with its
// slash, or a name that may sort anywhere.
func genPrefix(t *rapid.T, entries []Entry) string {
	if len(entries) > 0 && rapid.Bool().Draw(t, "fromPath") {
		p := entries[rapid.IntRange(0, len(entries)-1).Draw(t, "which")].Path
		return p[:rapid.IntRange(0, len(p)).Draw(t, "cut")]
	}
	return rapid.SampledFrom([]string{"", "a/", "logs/", "logs", "b/a", "zz", "ü/", "a b/", "\x7f"}).Draw(t, "prefix")
}

// FirstWithPrefix, which keeps nothing of an entry, answers as Parse and a
// search of its entries do, on generated indexes of versions 2 and 3, the
// same converted to version 4 by git, and the same damaged; every index
// parses with it or fails as with Parse.
func TestFirstWithPrefixAgreesWithParse(t *testing.T) {
	r := newRepo(t)
	r.git("hash-object", "-w", "--stdin")
	rapid.Check(t, func(t *rapid.T) {
		entries := genEntries(t)
		data := Encode(entries, 20)
		if rapid.IntRange(0, 3).Draw(t, "v4") == 0 {
			p := filepath.Join(r.root, ".git", "gen-index")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			r.gitEnv([]string{"GIT_INDEX_FILE=" + p}, "update-index", "--index-version", "4")
			var err error
			if data, err = os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
		}
		if len(data) > 32 && rapid.IntRange(0, 4).Draw(t, "damage") == 0 {
			data = slices.Clone(data)
			data[rapid.IntRange(0, len(data)-1).Draw(t, "at")] ^= byte(rapid.IntRange(1, 255).Draw(t, "bits"))
		}
		prefix := genPrefix(t, entries)
		want, wantExt, wantErr := firstByParse(data, prefix)
		got, gotExt, err := FirstWithPrefix(data, prefix)
		if (err != nil) != (wantErr != nil) || got != want || !slices.Equal(gotExt, wantExt) {
			t.Fatalf("prefix %q: FirstWithPrefix %q %v (%v), Parse %q %v (%v)", prefix, got, gotExt, err, want, wantExt, wantErr)
		}
	})
}
