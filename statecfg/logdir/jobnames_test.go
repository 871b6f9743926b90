package logdir

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fname"
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
		if len(want) < maxStem && stem != want {
			t.Fatalf("Stem(%q) = %q, want %q (set %q)", id, stem, want, ids)
		}
		if len(want) >= maxStem && (len(stem) != maxStem || !strings.HasPrefix(want, stem[:maxStem-fname.HashedTail])) {
			t.Fatalf("Stem(%q) = %q, want %q shortened to %d bytes (set %q)", id, stem, want, maxStem, ids)
		}
		if !validStem(stem) {
			t.Fatalf("Stem(%q) = %q is no valid stem", id, stem)
		}
		checkNamesFit(t, jn, id)
		// A log directory the TypeScript tool wrote names a job whose name
		// no other job shares by that name, however long it is.
		if ts := tsStem(id); len(byTS[ts]) == 1 {
			if back, ok := jn.Job(ts); !ok || back != id {
				t.Fatalf("Job(%q) (the TypeScript name) = %q, %v; want %q (set %q)", ts, back, ok, id, ids)
			}
		}
	}
}

// checkNamesFit asserts that every file of job fits in a file name, the
// temporary file of its atomic write too, and reads back as itself, with
// the longest adapter, slot and run numbers there are.
func checkNamesFit(t *testing.T, jn *JobNames, id string) {
	t.Helper()
	const run, slot = 4294967295, 9999
	for _, n := range []Name{jn.JobLog(id, run), jn.SlotLog(id, "github-copilot", slot, run), jn.SlotJSON(id, strings.Repeat("x", maxAdapterBytes), slot, run)} {
		file := n.String()
		if tmp := "." + file + ".4294967295.tmp"; len(tmp) > fname.MaxBytes {
			t.Fatalf("%s: %d bytes with its temporary suffix, more than %d", file, len(tmp), fname.MaxBytes)
		}
		back, ok := ParseName(file)
		if !ok || back != n || !back.IsOwn() {
			t.Fatalf("ParseName(%q) = %+v, %v; want %+v", file, back, ok, n)
		}
		if job, ok := jn.JobOf(back); !ok || job != id {
			t.Fatalf("JobOf(%q) = %q, %v; want %q", file, job, ok, id)
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
			if r.IntN(4) == 0 {
				// an entry point deep in a tree of long names
				ids[i] = kind + ":" + strings.Repeat(word(4)+"/", 10+r.IntN(60)) + word(4) + ":" + word(2)
			}
		}
		if r.IntN(4) == 0 {
			// long names that differ only at their ends
			long := strings.Repeat("pkg/module/", 20+r.IntN(10))
			ids = append(ids, "check:"+long+"a:lint", "check:"+long+"b:lint", "check:"+long+"a_:lint", "review:"+long+"a:q")
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
	f.Add(strings.Repeat("src/ünïcode/", 30) + ":lint\n" + strings.Repeat("src/ünïcode/", 30) + "x:lint")
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
