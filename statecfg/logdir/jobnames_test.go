package logdir

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// checkJobNames asserts the properties of JobNames over the set ids: every
// job has its own stem, which reads back to it and is a valid stem; a job
// whose TypeScript name no other job of the set shares has exactly that
// name; the others have the escaped form.
func checkJobNames(t *testing.T, ids []string) {
	t.Helper()
	jn := NewJobNames(ids...)
	byTS := map[string]map[string]bool{}
	for _, id := range ids {
		if byTS[tsStem(id)] == nil {
			byTS[tsStem(id)] = map[string]bool{}
		}
		byTS[tsStem(id)][id] = true
	}
	owner := map[string]string{}
	for _, id := range ids {
		stem := jn.Stem(id)
		if prev, taken := owner[stem]; taken && prev != id {
			t.Fatalf("%q and %q share the stem %q (set %q)", prev, id, stem, ids)
		}
		owner[stem] = id
		if back, ok := jn.Job(stem); !ok || back != id {
			t.Fatalf("Job(%q) = %q, %v; want %q (set %q)", stem, back, ok, id, ids)
		}
		want := tsStem(id)
		if len(byTS[want]) > 1 {
			want = escapedStem(id)
		}
		if stem != want {
			t.Fatalf("Stem(%q) = %q, want %q (set %q)", id, stem, want, ids)
		}
		if !validStem(stem) {
			t.Fatalf("Stem(%q) = %q is no valid stem", id, stem)
		}
	}
}

// TestJobNamesInjective checks the properties over many random sets of
// job ids drawn from an alphabet made to collide ('_', '/', ':', '%', '.',
// a space, non-ASCII).
func TestJobNamesInjective(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 2026))
	parts := []string{"a", "b", "_", "/", ":", "%", ".", "-", " ", "ü", "😀", "%5F", "\xff"}
	word := func(max int) string {
		var b strings.Builder
		for range 1 + r.IntN(max) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String()
	}
	for range 3000 {
		ids := make([]string, 1+r.IntN(8))
		for i := range ids {
			kind := "check"
			if r.IntN(3) == 0 {
				kind = "review"
			}
			ids[i] = kind + ":" + word(4) + ":" + word(2)
		}
		checkJobNames(t, ids)
	}
}

// FuzzJobNames checks the properties over fuzzed sets: data holds one job
// id per line (each given a kind and its two ':').
func FuzzJobNames(f *testing.F) {
	f.Add("pkg/a:lint\npkg_a:lint\nsrc:type_check")
	f.Add("a%5Fb:x\na_b:x\na/b:x")
	f.Add(".:q\n.:q\n_:q")
	f.Fuzz(func(t *testing.T, data string) {
		var ids []string
		for i, line := range strings.Split(data, "\n") {
			if strings.Count(line, ":") < 1 {
				line += ":gate"
			}
			kind := "check:"
			if i%2 == 1 {
				kind = "review:"
			}
			ids = append(ids, kind+line)
		}
		checkJobNames(t, ids)
	})
}
