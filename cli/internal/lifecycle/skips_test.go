//go:build unix

package lifecycle

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestSkipsFollowTheMarksOnDisk pins the model's rule for the agent's
// skip marks: a command counts a skip the agent marked only when it can
// read the mark, that is when an earlier command read it (the gauntlet
// keeps it as a decision) or a review file of the log directory still
// holds it when the command starts. The table runs every forgery of the
// log directory between the mark and the command, for a mark on the first
// entry of the newest review file (the one "forge review drop" deletes)
// and on the second, read by a command before the forgery or not.
func TestSkipsFollowTheMarksOnDisk(t *testing.T) {
	// gone: the forgeries that take back an unread mark of the first
	// entry (first) or of any entry (all).
	type gone int
	const (
		none gone = iota
		first
		all
	)
	for _, fg := range []struct {
		what, how string
		gone      gone
	}{
		{"", "", none},
		{"review", "drop", first},
		{"review", "rm", all},
		{"review", "flip", none},
		{"review", "reword", none},
		{"review", "dupskip", none},
		{"review", "add", none},
		{"review", "addskip", none},
		{"log", "rm-all", all},
		{"log", "rm-check", none},
		{"log", "rm-console", none},
		{"state", "branch", none},
		{"state", "date", none},
		{"state", "rm", none},
	} {
		for _, entry := range []int{1, 2} {
			for _, read := range []bool{false, true} {
				name := fmt.Sprintf("%s %s/entry %d/read %v", fg.what, fg.how, entry, read)
				t.Run(name, func(t *testing.T) {
					h := skipHarness(t)
					if err := h.mark("skipped", entry, false); err != nil {
						t.Fatal(err)
					}
					if read {
						h.m.skips = h.readableSkips()
						h.m.skipsRead = len(h.m.skips)
					}
					if fg.what != "" {
						if err := h.forge(fg.what, fg.how); err != nil {
							t.Fatal(err)
						}
					}
					want := 1
					if !read && (fg.gone == all || fg.gone == first && entry == 1) {
						want = 0
					}
					if got := h.readableSkips(); len(got) != want {
						t.Errorf("skips the next command counts: %+v, want %d", got, want)
					}
				})
			}
		}
	}
}

// skipHarness is a harness whose log directory holds one review file of
// two violations, as the gauntlet writes it after a failed review, and a
// check log and .execution_state beside it.
func skipHarness(t *testing.T) *harness {
	t.Helper()
	repo := t.TempDir()
	h := &harness{s: &sandbox{repo: repo}, m: &model{forged: map[string]bool{}, branch: "work"}}
	if err := os.MkdirAll(h.s.logDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	v := func(id string, line int, tok string) map[string]any {
		return map[string]any{"id": id, "file": "src/a.txt", "line": line, "issue": "found " + tok,
			"fix": "remove the marker", "priority": "high", "status": "new"}
	}
	doc := map[string]any{"adapter": reviewerName, "status": "fail", "rawOutput": "",
		"violations": []any{v("aaaa111", 1, "REVIEWME-1"), v("bbbb222", 3, "REVIEWME-2")}}
	if err := writeJSON(filepath.Join(h.s.logDir(), "review_src_quality_claude@1.1.json"), doc); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"check_src_lint.1.log": "lint failed\n", "console.1.log": "run 1\n",
		".execution_state": `{"branch":"work","last_run_completed_at":"2026-01-01T00:00:00Z"}`,
	} {
		if err := os.WriteFile(filepath.Join(h.s.logDir(), name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return h
}
