package stophook

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/monorepo"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// Invariant: a person's trust recorded before the repository's first
// commit keeps a start point (git's empty tree, trust.EmptyStart), and
// every commit made after it is work since: a trusted project no stop
// judged names the files those commits changed, counted from the empty
// tree. A record of an older version, which kept no start point then, is
// read as before: its project's committed work is named whole. The table
// crosses the record (made by RecordTrust now, or an older version's with
// no commit) with the commits made after it (one, two, the second on a
// branch of the first).
func TestTrustBeforeFirstCommitAnchorsEveryCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git")
	}
	hermetic(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, record := range []string{"recorded now", "older version"} {
		for _, commits := range []string{"one", "two", "two, the second on a branch"} {
			t.Run(record+"/"+commits, func(t *testing.T) {
				top, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				root := filepath.Join(top, "app")
				monorepo.Git(t, top, "init", "-q", "-b", "main")
				monorepo.Write(t, filepath.Join(root, ".gauntlet", "config.yml"), "base_branch: main\nlog_dir: gauntlet_logs\nentry_points: []\n")
				p, err := place.Locate(ctx, root)
				if err != nil {
					t.Fatal(err)
				}
				files, err := config.ReadFiles(root)
				if err != nil {
					t.Fatal(err)
				}
				if record == "recorded now" {
					if err := RecordTrust(ctx, p, trust.HowYes, files, func(string) string { return "" }, at); err != nil {
						t.Fatal(err)
					}
				} else if err := trust.WriteRecord(p, trust.Record{TrustedAt: at, How: trust.HowYes, Files: files}); err != nil {
					t.Fatal(err)
				}
				rec, err := trust.ReadRecord(p)
				if err != nil || rec == nil {
					t.Fatalf("read the record: %v", err)
				}
				if want := map[string]string{"recorded now": trust.EmptyStart, "older version": ""}[record]; rec.StartPoint() != want {
					t.Fatalf("start point %q, want %q", rec.StartPoint(), want)
				}
				monorepo.Write(t, filepath.Join(root, "src", "one.txt"), "one\n")
				commitAll(t, top, "one")
				changed := 1
				if commits != "one" {
					if strings.Contains(commits, "branch") {
						monorepo.Git(t, top, "checkout", "-qb", "b0")
					}
					monorepo.Write(t, filepath.Join(root, "src", "two.txt"), "two\n")
					commitAll(t, top, "two")
					changed = 2
				}
				got := committedIn(ctx, filepath.Join(top, "other"), []trust.Known{{Place: p}})
				want := "has committed work up to HEAD"
				if record == "recorded now" {
					// The configuration was committed too: it counts.
					want = fmt.Sprintf("has %d file(s) changed by work committed since before the repository's first commit", changed+1)
				}
				if !strings.Contains(got, want) {
					t.Errorf("the project's committed work is named as %q, want %q", got, want)
				}
			})
		}
	}
}
