package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

func gitOut(t *testing.T, root string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// The execution state's snapshot is the work tree as the gates left it,
// whether it was taken after the gates, or before them (a verification run
// snapshots the work tree to find what changed since the last run) and then
// checked, and retaken when a gate changed a file.
func TestStateSnapshotIsTheWorkTreeTheGatesLeft(t *testing.T) {
	tests := []struct {
		name, command, main string
		// verify makes the measured run a verification run: a first run
		// fails until the file "go" exists at the root.
		verify bool
	}{
		{"gate changes a file", "echo fixed > main.txt", "fixed", false},
		{"gate changes nothing", "true", "main", false},
		{"verification run, gate changes a file", "echo fixed > main.txt", "fixed", true},
		{"verification run, gate changes nothing", "true", "main", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			command := tt.command
			if tt.verify {
				command = "[ -f ../go ] || exit 1; " + command
			}
			root := project(t, `"`+command+`"`, "")
			if tt.verify {
				if res := ExecuteRun(context.Background(), Options{Dir: root, Silent: true}); res.Status != StatusFailed {
					t.Fatalf("first run %+v, want failed", res)
				}
				if err := os.WriteFile(filepath.Join(root, "go"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res := ExecuteRun(context.Background(), Options{Dir: root, Silent: true})
			if res.Status != StatusPassed {
				t.Fatalf("result %+v", res)
			}
			st, err := state.Read(logDir(root))
			if err != nil || st == nil {
				t.Fatalf("state %+v, %v", st, err)
			}
			head := gitOut(t, root, "rev-parse", "HEAD")
			if st.Commit != head || st.Branch != "main" {
				t.Fatalf("state %+v, HEAD %s", st, head)
			}
			if got := gitOut(t, root, "show", st.WorkingTreeRef+":src/main.txt"); got != tt.main {
				t.Errorf("snapshot has src/main.txt %q, want %q", got, tt.main)
			}
			if got := gitOut(t, root, "show", st.WorkingTreeRef+":src/new.txt"); got != "new" {
				t.Errorf("snapshot lacks the untracked src/new.txt: %q", got)
			}
			if files := gitOut(t, root, "ls-tree", "-r", "--name-only", st.WorkingTreeRef); strings.Contains(files, "gauntlet_logs") {
				t.Errorf("snapshot holds the logs:\n%s", files)
			}
			if parent := gitOut(t, root, "rev-parse", st.WorkingTreeRef+"^"); parent != head {
				t.Errorf("snapshot parent %s, want HEAD %s", parent, head)
			}
			if msg := gitOut(t, root, "cat-file", "commit", st.WorkingTreeRef); !strings.Contains(msg, "Gauntlet-Base: "+head) {
				t.Errorf("snapshot message lacks the base:\n%s", msg)
			}
			entries, _ := os.ReadDir(filepath.Join(root, ".git"))
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "gauntlet-index-") {
					t.Errorf("temporary index %s left in .git", e.Name())
				}
			}
		})
	}
}

// A run that ends before any gate leaves no snapshot work behind.
func TestNoChangesTakesNoSnapshot(t *testing.T) {
	root := project(t, `"true"`, "")
	if err := os.Remove(filepath.Join(root, "src", "new.txt")); err != nil {
		t.Fatal(err)
	}
	res := ExecuteRun(context.Background(), Options{Dir: root, Silent: true})
	if res.Status != StatusNoChanges {
		t.Fatalf("result %+v", res)
	}
	entries, _ := os.ReadDir(filepath.Join(root, ".git"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "gauntlet-index-") {
			t.Errorf("temporary index %s left in .git", e.Name())
		}
	}
}
