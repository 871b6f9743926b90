package fname

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// Over any keys (long, unicode, invalid UTF-8) encoded injectively, Fit
// gives names of at most limit bytes, unchanged when they are shorter,
// distinct for distinct keys, and cut only between whole characters.
func TestFitFitsAndStaysUnique(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.IntRange(HashedTail+4, MaxBytes).Draw(t, "limit")
		alphabet := []rune(rapid.SampledFrom([]string{"ab/", "ユーザー", "é😀", "a\xffb"}).Draw(t, "alphabet"))
		keys := rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) string {
			n := rapid.IntRange(0, 2*MaxBytes).Draw(t, "len")
			var b strings.Builder
			for range n {
				b.WriteRune(alphabet[rapid.IntRange(0, len(alphabet)-1).Draw(t, "i")])
			}
			return b.String()
		}), 1, 8, func(s string) string { return s }).Draw(t, "keys")
		seen := map[string]string{}
		for _, k := range keys {
			name := strings.ReplaceAll(fmt.Sprintf("%q", k), "/", "%2F") // an injective encoding
			got := Fit(name, k, limit)
			if len(got) > limit {
				t.Fatalf("Fit(%q) = %q: %d bytes, limit %d", name, got, len(got), limit)
			}
			if len(name) < limit && got != name {
				t.Fatalf("Fit(%q) = %q changed a name that fits", name, got)
			}
			if utf8.ValidString(name) && !utf8.ValidString(got) {
				t.Fatalf("Fit(%q) = %q cut a character", name, got)
			}
			if other, dup := seen[got]; dup {
				t.Fatalf("keys %q and %q share %q", other, k, got)
			}
			seen[got] = k
		}
	})
}
