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
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// Invariant: the notice that the trusted configuration changed appears
// only when the trusted files changed since a stop saw them (or, before
// any stop, since they were first trusted), and then in every later answer
// of the session; recording the same files again (trust, init) is no
// change. The notice never says "since an earlier stop" of a change made
// before any stop ran.
//
// The class is generated as every sequence of up to four events: the
// person records the same files again ("same"), records changed files
// ("diff", each time other ones), records the first files again
// ("first"), or a stop runs ("stop"); after a stop, the book and the
// baseline may hold what an older version wrote, a record keyed by how
// and when it was made ("older": upgrading is no change either).
func TestTrustNoticeOnlyOnChange(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real git and real checks")
	}
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": "", "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@a", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@a"} {
		t.Setenv(k, v)
	}
	events := []string{"same", "diff", "first", "stop", "older"}
	var seqs [][]string
	var grow func(seq []string)
	grow = func(seq []string) {
		if len(seq) > 0 && seq[len(seq)-1] == "stop" {
			seqs = append(seqs, seq)
		}
		if len(seq) == 4 {
			return
		}
		for _, e := range events {
			if e == "older" && (len(seq) == 0 || seq[len(seq)-1] != "stop") {
				continue
			}
			grow(append(append([]string(nil), seq...), e))
		}
	}
	grow(nil)
	for _, seq := range seqs {
		if strings.Count(strings.Join(seq, " "), "stop") > 2 {
			continue // a third stop tells what the second does
		}
		t.Run(strings.Join(seq, "-"), func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			monorepo.Git(t, root, "init", "-q", "-b", "main")
			monorepo.Write(t, filepath.Join(root, ".gitignore"), "gauntlet_logs/\n")
			monorepo.Write(t, filepath.Join(root, ".gauntlet", "config.yml"), "base_branch: main\nlog_dir: gauntlet_logs\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: src\n    checks: [ok]\n")
			check := filepath.Join(root, ".gauntlet", "checks", "ok.yml")
			monorepo.Write(t, check, "command: \"true\"\ntimeout: 60\n")
			monorepo.Write(t, filepath.Join(root, "src", "a.txt"), "a\n")
			monorepo.Git(t, root, "add", "-A")
			monorepo.Git(t, root, "commit", "-qm", "base")
			at := time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC) // before the hook's now (env)
			getenv := env(t, map[string]string{"CLAUDE_PROJECT_DIR": root})
			record := func(timeout int) {
				at = at.Add(time.Minute)
				monorepo.Write(t, check, fmt.Sprintf("command: \"true\"\ntimeout: %d\n", timeout))
				p, err := place.Locate(context.Background(), root)
				if err != nil {
					t.Fatal(err)
				}
				files, err := config.ReadFiles(root)
				if err != nil {
					t.Fatal(err)
				}
				if err := RecordTrust(context.Background(), p, trust.HowYes, files, getenv, at); err != nil {
					t.Fatal(err)
				}
			}
			record(60)
			trusted, ref, told := 60, 60, false
			for i, e := range seq {
				switch e {
				case "same":
					record(trusted)
				case "diff":
					trusted += 10 + i
					record(trusted)
				case "first":
					trusted = 60
					record(trusted)
				case "older":
					olderKeys(t, root)
				case "stop":
					monorepo.Write(t, filepath.Join(root, "src", "a.txt"), fmt.Sprintf("a %d\n", i))
					out := stopAs(t, getenv, "s1", root)
					told = told || trusted != ref
					ref = trusted
					says := strings.Contains(out.Message, "trusted configuration changed")
					if says != told {
						t.Errorf("event %d (stop): says the trusted configuration changed: %v, want %v: %s", i, says, told, out.Message)
					}
					if strings.Contains(out.Message, "since an earlier stop") && strings.Contains(out.Message, "before any stop ran") {
						t.Errorf("event %d (stop): a change since an earlier stop, before any stop ran: %s", i, out.Message)
					}
				}
			}
		})
	}
}

// olderKeys rewrites the key of the trusted configuration the book and
// the baseline of the project at root hold as an older version wrote it
// (legacyKey), when it is the record's.
func olderKeys(t *testing.T, root string) {
	t.Helper()
	p, err := place.Locate(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := trust.ReadRecord(p)
	if err != nil || rec == nil {
		t.Fatalf("no record: %v", err)
	}
	key, older := recordSeen(*rec, time.Time{}).Key, recordLegacyKey(*rec)
	if err := verdicts.Update(verdicts.KeyOf(p), func(b *verdicts.Book) error {
		if b.Trust != nil && b.Trust.Key == key {
			b.Trust.Key = older
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := verdicts.UpdateBaseline(p.CommonDir, p.Project(), func(b *verdicts.Baseline) bool {
		if b.Trust != nil && b.Trust.Key == key {
			b.Trust.Key = older
			return true
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
}
