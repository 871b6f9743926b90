package entry

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Checks given the same changed files share one narrowing; checks of the
// same entry point path given other files (another exclude) or a glob get
// their own; a check not scoped to them gets none. Deleted files, and those the exists oracle says are gone, are
// never passed.
func TestNarrowShares(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"src/x.go", "src/y.go", "src/z.txt"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config.Config{
		EntryPoints: []config.EntryPoint{
			{Path: "src", Checks: []string{"a", "b", "g", "u"}},
			{Path: "src", Exclude: []string{"src/x.go"}, Checks: []string{"c"}},
		},
		Checks: map[string]*config.Check{
			"a": {Name: "a", Command: "a ${CHANGED_FILES}", RunLocally: true}, "b": {Name: "b", Command: "b ${CHANGED_FILES}", RunLocally: true},
			"c": {Name: "c", Command: "c ${CHANGED_FILES}", RunLocally: true}, "g": {Name: "g", Command: "g", RunLocally: true, Glob: []string{"*.txt"}},
			"u": {Name: "u", Command: "make test", RunLocally: true},
		},
	}
	files := []string{"src/x.go", "src/y.go", "src/z.txt", "src/gone.go", "src/said-gone.go"}
	eps, _ := Expand(root, cfg.EntryPoints, files)
	jobs, _ := Jobs(cfg, eps, Filter{Checks: true})
	fs := FileExists(root, files)
	exists := func(f string) bool { return f != "src/said-gone.go" && fs(f) }
	scoped, skipped := Narrow(root, jobs, eps, files, exists)
	if len(skipped) != 0 {
		t.Fatalf("skipped %v", skipped)
	}
	want := map[string][]string{
		"a": {"src/x.go", "src/y.go", "src/z.txt"},
		"b": {"src/x.go", "src/y.go", "src/z.txt"},
		"c": {"src/y.go", "src/z.txt"},
		"g": {"src/z.txt"},
		"u": {}, // not given the changed files
	}
	for _, j := range scoped {
		if !slices.Equal(j.Changed, want[j.Name]) {
			t.Errorf("%s: %q, want %q", j.Name, j.Changed, want[j.Name])
		}
	}
}

// A review job is given the change set's paths of its own entry point
// (its excludes applied, deleted paths kept) as Listed: what its diff
// must show or name.
func TestNarrowListsReviewPaths(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src", "vend"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{
		EntryPoints: []config.EntryPoint{
			{Path: "src", Reviews: []string{"r"}},
			{Path: "src", Exclude: []string{"src/vend"}, Reviews: []string{"s"}},
		},
		Reviews: map[string]*config.Review{"r": {Name: "r", RunLocally: true}, "s": {Name: "s", RunLocally: true}},
	}
	files := []string{"lib/a.go", "src/gone.go", "src/vend/d1/d2/d3/d4/y.txt", "src/n\xff.txt"}
	eps, _ := Expand(root, cfg.EntryPoints, files)
	jobs, _ := Jobs(cfg, eps, Filter{Reviews: true})
	kept, _ := Narrow(root, jobs, eps, files, func(string) bool { return false })
	want := map[string][]string{
		"r": {"src/gone.go", "src/vend/d1/d2/d3/d4/y.txt", "src/n\xff.txt"},
		"s": {"src/gone.go", "src/n\xff.txt"},
	}
	if len(kept) != 2 {
		t.Fatalf("jobs %v", kept)
	}
	for _, j := range kept {
		if !slices.Equal(j.Listed, want[j.Name]) {
			t.Errorf("%s: Listed %q, want %q", j.Name, j.Listed, want[j.Name])
		}
	}
}
