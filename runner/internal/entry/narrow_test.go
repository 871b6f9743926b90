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
