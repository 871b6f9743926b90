package decisions

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/fingerprint"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// markedFile is one review JSON file of a harvest case: the run that
// wrote it and the status the agent left on its one violation.
type markedFile struct {
	run    int
	status string
	// noID drops the violation's id and anchor, as a file the TypeScript
	// tool wrote, or one the agent rewrote by hand, has them.
	noID bool
	// otherID gives the violation an id that is not its fingerprint's.
	otherID bool
}

// TestHarvestMarkedAnywhere draws the class of marks made in a review
// file whose run is not the current one: the newest run's or an older
// one's or an archived one's, on the branch checked out or on the branch
// the logs were written on before a checkout, a mark already kept before
// the checkout or not, with or without ids. The invariant: a skip the agent marked is a
// decision of the branch checked out when it marked it; when that cannot
// be told (a mark first read after a branch change), it is a decision of
// both branches, so that it is never asked again where the agent made it;
// a mark already kept before the branch changed stays with its branch.
func TestHarvestMarkedAnywhere(t *testing.T) {
	const job = "review:src:quality"
	cases := []struct {
		name string
		// files are the log directory's review JSON files of job's slot 1.
		files []markedFile
		// logs is the branch the logs were written on, current the branch
		// checked out at the harvest; keptBefore harvests once before the
		// checkout (on logs).
		logs, current string
		keptBefore    bool
		// archived writes the files into the archive (previous/), its
		// execution state naming archiveBranch ("": no state there).
		archived      bool
		archiveBranch string
		// want are the branches whose decisions hold the skip.
		want []string
	}{
		{name: "newest run, same branch", files: []markedFile{{1, "new", false, false}, {2, "skipped", false, false}},
			logs: "feature", current: "feature", want: []string{"feature"}},
		{name: "older run marked, newest still new", files: []markedFile{{1, "skipped", false, false}, {2, "new", false, false}},
			logs: "feature", current: "feature", want: []string{"feature"}},
		{name: "hand edit without id", files: []markedFile{{3, "skipped", true, false}},
			logs: "feature", current: "feature", want: []string{"feature"}},
		{name: "marked after a checkout", files: []markedFile{{1, "skipped", false, false}},
			logs: "feature", current: "main", want: []string{"feature", "main"}},
		{name: "older run marked after a checkout", files: []markedFile{{1, "skipped", false, false}, {2, "new", false, false}},
			logs: "feature", current: "main", want: []string{"feature", "main"}},
		{name: "hand edit after a checkout", files: []markedFile{{1, "new", false, false}, {2, "skipped", true, false}},
			logs: "work", current: "main", want: []string{"main", "work"}},
		{name: "kept before the checkout", files: []markedFile{{1, "skipped", false, false}},
			logs: "feature", current: "main", keptBefore: true, want: []string{"feature"}},
		{name: "logs of no known branch", files: []markedFile{{1, "skipped", false, false}},
			logs: "", current: "main", want: []string{"main"}},
		{name: "an id not the fingerprint's", files: []markedFile{{1, "new", false, false}, {2, "skipped", false, true}},
			logs: "feature", current: "feature", want: nil},
		{name: "nothing marked", files: []markedFile{{1, "new", false, false}, {2, "fixed", false, false}},
			logs: "feature", current: "main", want: nil},
		{name: "archived, same branch", files: []markedFile{{4, "skipped", false, false}},
			logs: "feature", current: "feature", archived: true, archiveBranch: "feature", want: []string{"feature"}},
		{name: "archived on another branch", files: []markedFile{{1, "skipped", true, false}},
			logs: "main", current: "main", archived: true, archiveBranch: "work", want: []string{"main", "work"}},
		{name: "archived without a state", files: []markedFile{{1, "skipped", false, false}},
			logs: "feature", current: "main", archived: true, want: []string{"main"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, logDir, common := t.TempDir(), t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "src", "b.txt"), []byte("one\ntwo\nthe flagged line\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			jn := logdir.NewJobNames(job)
			dir := logDir
			if tc.archived {
				dir = filepath.Join(logDir, logdir.PreviousDir)
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if tc.archiveBranch != "" {
					if err := state.Write(dir, state.State{LastRunCompletedAt: time.Now(), Branch: tc.archiveBranch, Commit: "c"}); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, f := range tc.files {
				writeSlotJSON(t, logDir, jn.SlotJSON(job, "claude", 1, f.run).Path(dir), f)
			}
			now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
			harvest := func(branch string) {
				locate := func(context.Context) (git.Location, error) {
					return git.Location{CommonDir: common, Branch: branch}, nil
				}
				if w := Harvest(context.Background(), root, logDir, jn, Recorded{}, tc.logs, locate, now); len(w) > 0 {
					t.Fatalf("warnings: %v", w)
				}
			}
			if tc.keptBefore {
				harvest(tc.logs)
			}
			harvest(tc.current)
			harvest(tc.current) // a second run reads the same marks: nothing changes
			var got []string
			for _, b := range []string{"feature", "main", "work"} {
				skips, err := Load(git.Location{CommonDir: common, Branch: b})
				if err != nil {
					t.Fatal(err)
				}
				switch len(skips) {
				case 0:
				case 1:
					if skips[0].File != "src/b.txt" || skips[0].Note != "intended" {
						t.Errorf("branch %s keeps %+v", b, skips[0])
					}
					got = append(got, b)
				default:
					t.Errorf("branch %s keeps %d decisions about one violation: %+v", b, len(skips), skips)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("skip kept on %v, want %v", got, tc.want)
			}
		})
	}
}

// writeSlotJSON writes a review JSON file at path with one violation of
// f's status.
func writeSlotJSON(t *testing.T, logDir, path string, f markedFile) {
	t.Helper()
	v := map[string]any{"file": "src/b.txt", "line": 3, "issue": "The flagged line repeats what the function does",
		"priority": "medium", "status": f.status}
	if !f.noID {
		v["anchor"] = "a1b2c3d4"
		v["id"] = fingerprint.ID(fingerprint.Fields{File: "src/b.txt", Line: 3, Anchor: "a1b2c3d4", Issue: v["issue"].(string)})
	}
	if f.otherID {
		v["id"] = "k3x7a2f"
	}
	if f.status == "skipped" {
		v["result"] = "intended"
	}
	doc := map[string]any{"adapter": "claude", "timestamp": "2026-03-04T05:00:00Z", "status": "fail",
		"rawOutput": "", "violations": []any{v}}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
