package stophook

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
)

// workspaceLayout makes, under the session's directory ws, a trusted
// project (returned as first) and the places the input's directory may
// move to: another repository, a directory in no repository of its own
// (or in the workspace's), and ws itself.
type workspaceLayout func(t *testing.T, ws string) (first string)

// plainRepo makes a git repository at dir with one commit.
func plainRepo(t *testing.T, dir string) {
	t.Helper()
	monorepo.Write(t, filepath.Join(dir, "f.txt"), "x\n")
	monorepo.Git(t, dir, "init", "-q", "-b", "main")
	commitAll(t, dir, "b")
}

// trustedRepo makes a repository at dir whose top level is a trusted
// project (monorepo.MakeAt), its failing file removed.
func trustedRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	monorepo.MakeAt(t, dir, []string{"."})
	if err := os.Remove(filepath.Join(dir, "src", "bad.txt")); err != nil {
		t.Fatal(err)
	}
}

var workspaceLayouts = map[string]workspaceLayout{
	"workspace above two repositories": func(t *testing.T, ws string) string {
		trustedRepo(t, filepath.Join(ws, "repo"))
		plainRepo(t, filepath.Join(ws, "B"))
		monorepo.Write(t, filepath.Join(ws, "plain", "n.txt"), "n\n")
		return filepath.Join(ws, "repo")
	},
	"workspace above two trusted repositories": func(t *testing.T, ws string) string {
		trustedRepo(t, filepath.Join(ws, "repo"))
		trustedRepo(t, filepath.Join(ws, "B"))
		monorepo.Write(t, filepath.Join(ws, "plain", "n.txt"), "n\n")
		return filepath.Join(ws, "repo")
	},
	"workspace that is a repository": func(t *testing.T, ws string) string {
		plainRepo(t, ws)
		trustedRepo(t, filepath.Join(ws, "repo"))
		plainRepo(t, filepath.Join(ws, "B"))
		monorepo.Write(t, filepath.Join(ws, "plain", "n.txt"), "n\n")
		return filepath.Join(ws, "repo")
	},
	"workspace repository above two trusted repositories": func(t *testing.T, ws string) string {
		plainRepo(t, ws)
		trustedRepo(t, filepath.Join(ws, "repo"))
		trustedRepo(t, filepath.Join(ws, "B"))
		monorepo.Write(t, filepath.Join(ws, "plain", "n.txt"), "n\n")
		return filepath.Join(ws, "repo")
	},
	"project with a nested repository": func(t *testing.T, ws string) string {
		trustedRepo(t, ws)
		plainRepo(t, filepath.Join(ws, "B"))
		monorepo.Write(t, filepath.Join(ws, "plain", "n.txt"), "n\n")
		return ws
	},
}

// Invariant: an approve never hides the pending failures, nor the
// unverified changes, of a trusted project a session judged before:
// whatever the input's directory, every answer of a stop from the same
// session's directory (in this session or a later one) judges that
// project (and blocks while it fails) or names its work under "Not
// verified" and its gates in pending, even when the input's directory is
// in another repository or in none. A clean project is never a reason to
// block, and no answer tells of a configuration change nobody made.
//
// The class is generated as a table: the layouts of a session's directory
// above or in the project (a workspace in no repository above the project
// and another repository, trusted or not; a workspace that is a
// repository of its own, above a plain or a trusted one; the project
// itself with a nested repository) ×
// where the input's directory moves after a stop judged the project (the
// other repository, a directory in no repository of its own, the session's
// directory) × the state the project is left in (a failure pending, a
// change no stop judged, clean).
func TestWorkspaceProjectLeftBehindIsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	hermetic(t)
	states := []string{"pending failure", "uncommitted change", "clean"}
	for name, layout := range workspaceLayouts {
		for _, move := range []string{"other repository", "non-repository directory", "session's directory"} {
			for _, state := range states {
				t.Run(name+"/"+move+"/"+state, func(t *testing.T) {
					ws, err := filepath.EvalSymlinks(t.TempDir())
					if err != nil {
						t.Fatal(err)
					}
					first := layout(t, ws)
					getenv := env(t, map[string]string{"CLAUDE_PROJECT_DIR": ws})
					if state == "pending failure" {
						monorepo.Write(t, filepath.Join(first, "src", "bad.txt"), "BAD\n")
					}
					out := stopAs(t, getenv, "s1", first)
					if out.Root != first || out.Block() != (state == "pending failure") {
						t.Fatalf("the first stop judged %s (block %v): %s", out.Root, out.Block(), out.Message)
					}
					if state == "uncommitted change" {
						monorepo.Write(t, filepath.Join(first, "src", "new.txt"), "BAD\n")
					}
					at := map[string]string{"other repository": filepath.Join(ws, "B"),
						"non-repository directory": filepath.Join(ws, "plain"), "session's directory": ws}[move]
					for _, id := range []string{"s1", "s1", "s2"} {
						checkLeftBehind(t, stopAs(t, getenv, id, at), id, first, state)
					}
				})
			}
		}
	}
}

// checkLeftBehind fails t unless out, a stop of session id after the
// input's directory left first, judges first as its state requires or
// names first's work.
func checkLeftBehind(t *testing.T, out Outcome, id, first, state string) {
	t.Helper()
	if strings.Contains(out.Message, "changed its own gates") {
		t.Errorf("session %s: no configuration changed, yet the answer says one did: %s", id, out.Message)
	}
	if state == "clean" && out.Block() {
		t.Errorf("session %s: the stop judged %q, where nothing fails, and blocked: %s", id, out.Root, out.Message)
	}
	if out.Block() && out.Root == first {
		return
	}
	// An approve of the project itself (the retry limit reached) names
	// its gates as its own; one of another project names the project.
	name := "the trusted project " + first + " "
	if out.Root == first {
		name = ""
	}
	switch state {
	case "pending failure":
		if out.Block() || !strings.Contains(out.Message, name) ||
			!slices.ContainsFunc(out.Pending, func(p string) bool { return strings.HasSuffix(p, "check:src:nobad") }) {
			t.Errorf("session %s: the stop judged %q, answered %s and does not name %s's failing gate (pending %q): %s",
				id, out.Root, out.Status, first, out.Pending, out.Message)
		}
	case "uncommitted change":
		if out.Root == first {
			t.Errorf("session %s: the stop judged %s, which holds a failing change, and approved: %s", id, first, out.Message)
		} else if !strings.Contains(out.Message, "the trusted project "+first+" (not the project this stop judged) has 1 changed file(s)") {
			t.Errorf("session %s: the stop judged %q, approved (%s) and does not name the change in %s: %s",
				id, out.Root, out.Status, first, out.Message)
		}
	}
}
