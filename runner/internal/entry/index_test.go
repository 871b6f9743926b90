package entry

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// newFileIndex orders any file list as a sort by name, then position,
// does: lists made of sorted runs (merged, up to maxRuns of them, one
// more, duplicates within and across runs, empty runs) and lists in no
// order (sorted).
func TestFileIndexAgreesWithSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"a", "a/b", "a/b/c.go", "a-b", "a.b", "ab", "b", "b/a", "ü", "z/z"})
		var files []string
		if rapid.Bool().Draw(t, "runs") {
			for range rapid.IntRange(1, maxRuns+1).Draw(t, "n") {
				run := rapid.SliceOfN(name, 0, 8).Draw(t, "run")
				slices.Sort(run)
				files = append(files, run...)
			}
		} else {
			files = rapid.SliceOfN(name, 0, 40).Draw(t, "files")
		}
		want := make(fileIndex, len(files))
		for i, f := range files {
			want[i] = indexed{f, i}
		}
		slices.SortFunc(want, byNameThenPos)
		if got := newFileIndex(files); !slices.Equal(got, want) {
			t.Fatalf("files %q:\ngot  %v\nwant %v", files, got, want)
		}
	})
}
