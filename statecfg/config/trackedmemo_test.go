package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// TestTrackedMemoAgreesWithIndex holds trackedWithPrefix, which answers
// from its memo while the index file's identity is as it was, to the
// answer read from the index file as it is now. Invariant: after any
// sequence of changes of the index (rewritten in place or renamed over,
// with its times set back to what they were or left, removed, left alone
// past the margin), for any prefix, the answer is the index's.
func TestTrackedMemoAgreesWithIndex(t *testing.T) {
	old := filestat.Margin
	filestat.Margin = 20 * time.Millisecond
	t.Cleanup(func() { filestat.Margin = old })
	paths := []string{".gitignore", "a.txt", "gauntlet_logs/.execution_state", "gauntlet_logs/x.log", "logs/a", "pkg/sub/f.go", "pkg/z"}
	prefixes := []string{"", "gauntlet_logs/", "pkg/sub/"}
	rapid.Check(t, func(rt *rapid.T) {
		gitDir := filepath.Join(t.TempDir(), ".git")
		if err := os.MkdirAll(filepath.Join(gitDir, store.Dir), 0o755); err != nil {
			rt.Fatal(err)
		}
		index := filepath.Join(gitDir, "index")
		for i := range rapid.IntRange(1, 10).Draw(rt, "steps") {
			switch rapid.IntRange(0, 3).Draw(rt, "change") {
			case 0: // a new index: in place or renamed over, times kept or not
				var entries []gitindex.Entry
				for _, p := range rapid.SliceOfDistinct(rapid.SampledFrom(paths), func(s string) string { return s }).Draw(rt, "paths") {
					entries = append(entries, gitindex.Entry{Mode: 0o100644, OID: make([]byte, 20), Flags: uint16(len(p)), Path: p})
				}
				slices.SortFunc(entries, gitindex.Compare)
				data := gitindex.Encode(entries, 20)
				fi, statErr := os.Stat(index)
				tmp := index + ".tmp"
				target := index
				if rapid.Bool().Draw(rt, "rename") {
					target = tmp
				}
				if err := os.WriteFile(target, data, 0o644); err != nil {
					rt.Fatal(err)
				}
				if target == tmp {
					if err := os.Rename(tmp, index); err != nil {
						rt.Fatal(err)
					}
				}
				if statErr == nil && rapid.Bool().Draw(rt, "same times") {
					if err := os.Chtimes(index, fi.ModTime(), fi.ModTime()); err != nil {
						rt.Fatal(err)
					}
				}
			case 1:
				if err := os.Remove(index); err != nil && !os.IsNotExist(err) {
					rt.Fatal(err)
				}
			default: // the index left alone past the margin
				time.Sleep(25 * time.Millisecond)
			}
			prefix := rapid.SampledFrom(prefixes).Draw(rt, "prefix")
			got, gotOK := trackedWithPrefix(gitDir, prefix)
			want, wantOK := trackedInFile(index, prefix)
			if got != want || gotOK != wantOK {
				rt.Fatalf("step %d, prefix %q: %q %v, the index says %q %v", i, prefix, got, gotOK, want, wantOK)
			}
		}
	})
}
