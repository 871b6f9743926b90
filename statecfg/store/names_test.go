package store

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fname"
)

// keyPart draws what a key's part may be: a branch, a project's path or a
// worktree's absolute path, short or far longer than a file name, ASCII,
// CJK, emoji, escapes, dots, slashes and bytes that are no UTF-8.
func keyPart() *rapid.Generator[string] {
	alphabets := []string{
		"abcXYZ019-_", "/.%~ @:", "ユーザー認証の追加", "é😀ß", "\x00\xff\xfe\n",
	}
	piece := rapid.Custom(func(t *rapid.T) string {
		a := []rune(rapid.SampledFrom(alphabets).Draw(t, "alphabet"))
		if !utf8.ValidString(string(a)) {
			a = []rune(string(a))
		}
		n := rapid.IntRange(0, 140).Draw(t, "len")
		var b strings.Builder
		for range n {
			b.WriteRune(a[rapid.IntRange(0, len(a)-1).Draw(t, "i")])
		}
		return b.String()
	})
	return rapid.Custom(func(t *rapid.T) string {
		return strings.Join(rapid.SliceOfN(piece, 1, 4).Draw(t, "pieces"), "")
	})
}

// Every record name fits a file name, with the temporary name of its
// atomic write; no two keys share a record; each record written reads
// back as written.
func TestRecordNamesFitAndStayUnique(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		s := Open(filepath.Join(dir, rapid.StringMatching(`[a-z]{12}`).Draw(t, "repo")), "decisions")
		keys := rapid.SliceOfNDistinct(rapid.SliceOfN(keyPart(), 2, 2), 1, 6, func(k []string) string {
			return k[0] + "\x00" + k[1]
		}).Draw(t, "keys")
		byPath := map[string]string{}
		for _, k := range keys {
			p := s.Path(k...)
			if other, ok := byPath[p]; ok {
				t.Fatalf("keys %q and %q share %s", other, strings.Join(k, "\x00"), p)
			}
			byPath[p] = strings.Join(k, "\x00")
			rel, _ := filepath.Rel(s.dir, p)
			for _, c := range strings.Split(rel, string(filepath.Separator)) {
				if len(c)+len("..4294967295.tmp") > fname.MaxBytes {
					t.Fatalf("key %q: name %q (%d bytes) and its temporary name do not fit", k, c, len(c))
				}
			}
			r := rec{Items: k}
			if err := s.Update(&r, func() (bool, error) { r.Items = k; return true, nil }, k...); err != nil {
				t.Fatalf("key %q: %v", k, err)
			}
		}
		for _, k := range keys {
			var got rec
			if ok, err := s.Read(&got, k...); !ok || err != nil || strings.Join(got.Items, "\x00") != strings.Join(k, "\x00") {
				t.Fatalf("key %q read back %q (%v, %v)", k, got.Items, ok, err)
			}
		}
	})
}
