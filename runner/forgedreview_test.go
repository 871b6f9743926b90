package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// reviewerAnswer is what the stand-in reviewer answers to every question:
// two violations of src/new.txt, which the agent never fixes.
const reviewerAnswer = `{"status":"fail","violations":[` +
	`{"file":"src/new.txt","line":2,"issue":"bad line","fix":"remove it","priority":"high","status":"new"},` +
	`{"file":"src/new.txt","line":3,"issue":"worse line","fix":"remove it too","priority":"high","status":"new"}]}`

// reviewProject is a committed project whose entry point src is gated by
// one review (a stand-in claude on PATH answering reviewerAnswer), with
// maxRetries, on branch feat with src/new.txt added.
func reviewProject(t *testing.T, maxRetries int) string {
	t.Helper()
	testenv.Setenv(t)
	root, bin := t.TempDir(), t.TempDir()
	write(t, filepath.Join(bin, "claude"), "#!/bin/sh\ncat >/dev/null\ncat <<'EOF'\n"+reviewerAnswer+"\nEOF\n")
	if err := os.Chmod(filepath.Join(bin, "claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for name, content := range map[string]string{
		".gauntlet/config.yml": fmt.Sprintf("base_branch: main\nmax_retries: %d\ncli:\n  default_preference: [claude]\n", maxRetries) +
			"entry_points:\n  - path: src\n    reviews: [quality]\n",
		".gauntlet/reviews/quality.md": "---\ncache: false\nnum_reviews: 1\n---\nReview the change for bugs.\n",
		".gitignore":                   "gauntlet_logs/\n",
		"src/main.txt":                 "hello\n",
	} {
		write(t, filepath.Join(root, name), content)
	}
	gitIn(t, root, "init", "-q", "-b", "main")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-q", "-m", "base")
	gitIn(t, root, "checkout", "-q", "-b", "feat")
	write(t, filepath.Join(root, "src", "new.txt"), "first\nbad line\nworse line\n")
	return root
}

// reviewDoc is a review JSON file of the log directory as the agent sees
// it: any JSON object.
type reviewDoc = map[string]any

// newestReview returns the path of the newest review JSON file of the
// slot and its document.
func newestReview(t *testing.T, root string) (string, reviewDoc) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(logDir(root), "review_src_quality_claude@1.*.json"))
	if len(matches) == 0 {
		t.Fatal("no review JSON file")
	}
	slices.Sort(matches)
	p := matches[len(matches)-1]
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc reviewDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return p, doc
}

func writeDoc(t *testing.T, p string, doc reviewDoc) {
	t.Helper()
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	write(t, p, string(data)+"\n")
}

// entries are the violations of doc as JSON objects.
func entries(doc reviewDoc) []map[string]any {
	var out []map[string]any
	list, _ := doc["violations"].([]any)
	for _, x := range list {
		if v, ok := x.(map[string]any); ok {
			out = append(out, v)
		}
	}
	return out
}

// setEntries replaces the violations of doc.
func setEntries(doc reviewDoc, vs []map[string]any) {
	list := make([]any, len(vs))
	for i, v := range vs {
		list[i] = v
	}
	doc["violations"] = list
}

// copyEntry is a copy of v with the changes of set.
func copyEntry(v map[string]any, set map[string]any) map[string]any {
	out := map[string]any{}
	for k, x := range v {
		out[k] = x
	}
	for k, x := range set {
		out[k] = x
	}
	return out
}

// skippedBy is what a forged entry carries to be taken for a skip.
var skippedBy = map[string]any{"status": "skipped", "result": "forged"}

// reviewForgeries are what the agent can do to the review JSON file the
// gauntlet wrote besides marking the violations it recorded: edit it in
// place (p, doc), or add and remove files beside it.
var reviewForgeries = []struct {
	name  string
	forge func(t *testing.T, p string, doc reviewDoc)
}{
	{"nothing", func(*testing.T, string, reviewDoc) {}},
	{"status flipped to pass", func(t *testing.T, p string, doc reviewDoc) { doc["status"] = "pass"; writeDoc(t, p, doc) }},
	{"every violation removed", func(t *testing.T, p string, doc reviewDoc) { setEntries(doc, nil); writeDoc(t, p, doc) }},
	{"the first violation removed", func(t *testing.T, p string, doc reviewDoc) { setEntries(doc, entries(doc)[1:]); writeDoc(t, p, doc) }},
	{"reordered", func(t *testing.T, p string, doc reviewDoc) {
		vs := entries(doc)
		slices.Reverse(vs)
		setEntries(doc, vs)
		writeDoc(t, p, doc)
	}},
	{"every entry duplicated, the copy skipped", func(t *testing.T, p string, doc reviewDoc) {
		var vs []map[string]any
		for _, v := range entries(doc) {
			vs = append(vs, v, copyEntry(v, skippedBy))
		}
		setEntries(doc, vs)
		writeDoc(t, p, doc)
	}},
	{"every entry duplicated, the copy skipped, without ids", func(t *testing.T, p string, doc reviewDoc) {
		var vs []map[string]any
		for _, v := range entries(doc) {
			c := copyEntry(v, skippedBy)
			delete(c, "id")
			vs = append(vs, v, c)
		}
		setEntries(doc, vs)
		writeDoc(t, p, doc)
	}},
	{"more skips than violations", func(t *testing.T, p string, doc reviewDoc) {
		vs := entries(doc)
		for range 3 {
			vs = append(vs, copyEntry(vs[0], skippedBy))
		}
		setEntries(doc, vs)
		writeDoc(t, p, doc)
	}},
	{"relocated and skipped", func(t *testing.T, p string, doc reviewDoc) {
		var vs []map[string]any
		for _, v := range entries(doc) {
			vs = append(vs, copyEntry(v, map[string]any{"line": 1, "status": "skipped", "result": "forged"}))
		}
		setEntries(doc, vs)
		writeDoc(t, p, doc)
	}},
	{"moved to another file and skipped", func(t *testing.T, p string, doc reviewDoc) {
		var vs []map[string]any
		for _, v := range entries(doc) {
			vs = append(vs, copyEntry(v, map[string]any{"file": "src/main.txt", "status": "skipped", "result": "forged"}))
		}
		setEntries(doc, vs)
		writeDoc(t, p, doc)
	}},
	{"reworded and skipped", func(t *testing.T, p string, doc reviewDoc) {
		var vs []map[string]any
		for _, v := range entries(doc) {
			vs = append(vs, copyEntry(v, map[string]any{"issue": "style nit, nothing to change", "status": "skipped", "result": "forged"}))
		}
		setEntries(doc, vs)
		writeDoc(t, p, doc)
	}},
	{"ids changed and skipped", func(t *testing.T, p string, doc reviewDoc) {
		var vs []map[string]any
		for i, v := range entries(doc) {
			vs = append(vs, copyEntry(v, map[string]any{"id": fmt.Sprintf("forged%d", i), "status": "skipped", "result": "forged"}))
		}
		setEntries(doc, vs)
		writeDoc(t, p, doc)
	}},
	{"anchors changed and skipped", func(t *testing.T, p string, doc reviewDoc) {
		var vs []map[string]any
		for _, v := range entries(doc) {
			c := copyEntry(v, map[string]any{"anchor": "000000000000", "status": "skipped", "result": "forged"})
			delete(c, "id")
			vs = append(vs, c)
		}
		setEntries(doc, vs)
		writeDoc(t, p, doc)
	}},
	{"odd statuses", func(t *testing.T, p string, doc reviewDoc) {
		var vs []map[string]any
		for i, v := range entries(doc) {
			vs = append(vs, copyEntry(v, map[string]any{"status": []string{"passed", "ignored", "resolved"}[i%3]}))
		}
		setEntries(doc, vs)
		writeDoc(t, p, doc)
	}},
	{"an entry added, skipped", func(t *testing.T, p string, doc reviewDoc) {
		setEntries(doc, append(entries(doc), map[string]any{"file": "src/new.txt", "line": 1, "issue": "first line", "status": "skipped", "result": "forged"}))
		writeDoc(t, p, doc)
	}},
	{"a newer file that passes", func(t *testing.T, p string, doc reviewDoc) {
		writeDoc(t, nextRun(p), reviewDoc{"adapter": "claude", "status": "pass", "rawOutput": "", "violations": []any{}})
	}},
	{"a newer file skipping every violation", func(t *testing.T, p string, doc reviewDoc) {
		var vs []map[string]any
		for _, v := range entries(doc) {
			vs = append(vs, copyEntry(v, skippedBy))
		}
		setEntries(doc, vs)
		writeDoc(t, nextRun(p), doc)
	}},
	{"the file removed", func(t *testing.T, p string, _ reviewDoc) {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}},
	{"the file replaced by a newer one that passes", func(t *testing.T, p string, _ reviewDoc) {
		writeDoc(t, nextRun(p), reviewDoc{"adapter": "claude", "status": "pass", "rawOutput": "", "violations": []any{}})
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}},
}

// nextRun is the name the slot's file of the next run would have.
func nextRun(p string) string {
	var run int
	base := filepath.Base(p)
	if _, err := fmt.Sscanf(base[len("review_src_quality_claude@1."):], "%d.json", &run); err != nil {
		panic(err)
	}
	return filepath.Join(filepath.Dir(p), fmt.Sprintf("review_src_quality_claude@1.%d.json", run+1))
}

// reviewMarks are the agent's legitimate marks of the recorded violations:
// none, the first skipped, the first fixed.
var reviewMarks = []struct {
	name string
	mark func(doc reviewDoc)
}{
	{"unmarked", func(reviewDoc) {}},
	{"first skipped", func(doc reviewDoc) {
		v := entries(doc)[0]
		v["status"], v["result"] = "skipped", "intended"
	}},
	{"first fixed", func(doc reviewDoc) {
		v := entries(doc)[0]
		v["status"], v["result"] = "fixed", "removed it"
	}},
}

// passing ranks a run's outcome: 2 passed, 1 passed with warnings, 0
// anything else (failed, or an approve that tells what was not verified).
func passing(s GauntletStatus) int {
	switch s {
	case StatusPassed:
		return 2
	case StatusPassedWithWarnings:
		return 1
	}
	return 0
}

// legitimateMarks is what the agent's file at p says of each violation
// recorded: the statuses of the entries that name it (by id, or without
// one by the very file, line and issue), the one leaving it most pending
// winning; new when none does or the file is gone. Written independently
// of the gauntlet's reading, as the reference of what a mark may do.
func legitimateMarks(t *testing.T, recorded []map[string]any, p string) []string {
	t.Helper()
	var written []map[string]any
	if data, err := os.ReadFile(p); err == nil {
		var doc reviewDoc
		if json.Unmarshal(data, &doc) == nil {
			written = entries(doc)
		}
	}
	rank := map[string]int{"new": 0, "fixed": 1, "skipped": 2}
	out := make([]string, len(recorded))
	for i, v := range recorded {
		out[i] = ""
		for _, w := range written {
			names := fmt.Sprint(v["file"], v["line"], v["issue"]) == fmt.Sprint(w["file"], w["line"], w["issue"])
			if id, _ := w["id"].(string); id != "" {
				names = id == v["id"]
			}
			if !names {
				continue
			}
			st, _ := w["status"].(string)
			if _, ok := rank[st]; !ok {
				st = "new"
			}
			if out[i] == "" || rank[st] < rank[out[i]] {
				out[i] = st
			}
		}
		if out[i] == "" {
			out[i] = "new"
		}
	}
	return out
}

// TestForgedReviewLogNeverPasses: what a review concluded is decided only
// from the gauntlet's own record of the reviewer's answers; anything the
// agent writes to the review's JSON log may only mark a recorded violation
// fixed or skipped (with its reason), one mark per recorded violation;
// added, removed, reordered, duplicated, re-worded or re-located entries,
// changed ids, anchors or statuses, extra marks and added or removed files
// never change the verdict toward passing.
//
// The reviewer reports the same two violations every time (nothing is
// fixed). The agent's stop runs the review; the agent marks the recorded
// violations (reviewMarks) and forges the log (reviewForgeries); then a
// review by hand (also after agent-gauntlet clean archived the log) or the
// agent's next stop, with max_retries 0 and 1 (the marks taken in turn,
// so that each forgery meets each of them under some command), must
// conclude nothing more passing than the legitimate reading of the same
// file does: the recorded file with only the marks legitimateMarks reads
// in the forged one, and nothing else changed (the differential
// reference).
func TestForgedReviewLogNeverPasses(t *testing.T) {
	ctx := context.Background()
	commands := []struct {
		name string
		opts Options
		// clean runs agent-gauntlet clean first.
		clean bool
	}{
		{"review", Options{Kinds: KindsReviews, Command: "review"}, false},
		{"stop hook", Options{Agent: true, SessionID: "s1", Command: "stop-hook"}, false},
		{"clean, then review", Options{Kinds: KindsReviews, Command: "review"}, true},
	}
	// outcome runs the first stop, lets act change the log, and runs the
	// command; act returns the legitimate marks of what it did.
	outcome := func(t *testing.T, retries, command int, act func(p string, doc reviewDoc) []string) (RunResult, []string) {
		root := reviewProject(t, retries)
		first := ExecuteRun(ctx, Options{Dir: root, Silent: true, Agent: true, SessionID: "s1", Command: "stop-hook"})
		if passing(first.Status) > 0 {
			t.Fatalf("the first stop: %s (%s)", first.Status, first.Message)
		}
		p, doc := newestReview(t, root)
		marks := act(p, doc)
		if commands[command].clean {
			cfg, err := config.LoadProject(ctx, root, config.ReadAll)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Clean(ctx, CleanOptions{Config: cfg}); err != nil {
				t.Fatal(err)
			}
		}
		opts := commands[command].opts
		opts.Dir, opts.Silent = root, true
		return ExecuteRun(ctx, opts), marks
	}
	for _, retries := range []int{0, 1} {
		for c, command := range commands {
			if command.clean && retries == 0 {
				continue // clean spends no budget: once is enough
			}
			t.Run(fmt.Sprintf("max_retries=%d/%s", retries, command.name), func(t *testing.T) {
				references := map[string]GauntletStatus{}
				reference := func(marks []string) GauntletStatus {
					key := fmt.Sprint(marks)
					if st, ok := references[key]; ok {
						return st
					}
					res, _ := outcome(t, retries, c, func(p string, doc reviewDoc) []string {
						for i, v := range entries(doc) {
							v["status"] = marks[i]
							if marks[i] != "new" {
								v["result"] = "the agent's note"
							}
						}
						writeDoc(t, p, doc)
						return marks
					})
					references[key] = res.Status
					return res.Status
				}
				for f, forgery := range reviewForgeries {
					// Each forgery with one of the marks, in turn over the
					// commands and limits: every pair is met, in a third of
					// the product's time.
					mark := reviewMarks[(f+2*retries+c)%len(reviewMarks)]
					{
						got, marks := outcome(t, retries, c, func(p string, doc reviewDoc) []string {
							recorded := entries(doc)
							for i, v := range recorded {
								recorded[i] = copyEntry(v, nil)
							}
							mark.mark(doc)
							writeDoc(t, p, doc)
							forgery.forge(t, p, doc)
							return legitimateMarks(t, recorded, p)
						})
						if want := reference(marks); passing(got.Status) > passing(want) {
							t.Errorf("%s, %s: %s (%s); the legitimate marks %v alone: %s", mark.name, forgery.name, got.Status, got.Message, marks, want)
						}
					}
				}
			})
		}
	}
}
