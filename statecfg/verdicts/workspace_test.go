package verdicts

import (
	"path/filepath"
	"testing"
	"time"
)

// The workspace record keeps the most recent projects first, at most
// MaxWorkspace of them, one entry each, for its own directory only.
func TestSeeWorkspaceBounded(t *testing.T) {
	home := t.TempDir()
	t0 := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	for i := range MaxWorkspace + 3 {
		root := filepath.Join("/ws", "p"+string(rune('a'+i)))
		if err := SeeWorkspace(home, "/ws", root, t0); err != nil {
			t.Fatal(err)
		}
		if err := SeeWorkspace(home, "/ws", "/ws/pa", t0); err != nil {
			t.Fatal(err)
		}
	}
	got := WorkspaceProjects(home, "/ws")
	if len(got) != MaxWorkspace || got[0].Project != "/ws/pa" {
		t.Fatalf("record %v: want %d projects, /ws/pa first", got, MaxWorkspace)
	}
	seen := map[string]bool{}
	for _, j := range got {
		if seen[j.Project] {
			t.Fatalf("record %v names %s twice", got, j.Project)
		}
		seen[j.Project] = true
	}
	if other := WorkspaceProjects(home, "/ws2"); len(other) != 0 {
		t.Fatalf("another directory reads %v", other)
	}
}
