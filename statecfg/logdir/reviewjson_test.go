package logdir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
)

// TestReviewJSONIsNotItsName: a review JSON is recorded by its path (the
// agent edits it, its editors write a new file), but a path is not a
// file. Invariant: archiving moves what is at a recorded review JSON's
// path only when it still is that review: a JSON object holding one of
// the entries the gauntlet wrote there, or, when it wrote none, its list
// of violations. Whatever a person put at that name after the gauntlet's
// file was deleted (adversarial round 18, B5) stays where it is, byte for
// byte; the agent's edits of the gauntlet's file are archived with it.
func TestReviewJSONIsNotItsName(t *testing.T) {
	const (
		entryA = `{"id":"aaaaaaa","file":"src/a.txt","line":2,"issue":"A"}`
		entryB = `{"id":"bbbbbbb","file":"src/a.txt","line":3,"issue":"B"}`
	)
	keyA := EntryKey("aaaaaaa", "src/a.txt", 2, "A")
	wroteA := `{"status":"fail","violations":[` + entryA + `]}`
	wroteNone := `{"status":"pass","violations":null}`
	cases := []struct {
		name     string
		wrote    string   // what the gauntlet wrote
		held     []string // the entries it wrote
		now      string   // what is at the path at the archive ("" deleted, then nothing)
		gauntlet bool     // archived as the gauntlet's
	}{
		{"as written", wroteA, []string{keyA}, wroteA, true},
		{"marked by the agent", wroteA, []string{keyA}, `{"status":"fail","violations":[{"id":"aaaaaaa","file":"src/a.txt","line":2,"issue":"A","status":"fixed","result":"done"}]}`, true},
		{"an entry added by the agent", wroteA, []string{keyA}, `{"status":"fail","violations":[` + entryA + `,` + entryB + `]}`, true},
		{"none written, as written", wroteNone, nil, wroteNone, true},
		{"person's notes", wroteA, []string{keyA}, "my notes\n", false},
		{"person's empty object", wroteA, []string{keyA}, "{}", false},
		{"person's review of other entries", wroteA, []string{keyA}, `{"status":"fail","violations":[` + entryB + `]}`, false},
		{"person's review without entries", wroteA, []string{keyA}, `{"status":"pass","violations":[]}`, false},
		{"none written, person's notes", wroteNone, nil, "my notes\n", false},
		{"none written, person's object", wroteNone, nil, `{"todo":"x"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, "gauntlet_logs")
			name := Name{Kind: KindSlotJSON, Stem: NewJobNames("review:src:code").Stem("review:src:code"), Adapter: "claude", Slot: 1, Run: 1}.String()
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := atomicfile.Write(path, []byte(c.wrote), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := NoteReview(path, c.held); err != nil {
				t.Fatal(err)
			}
			// The agent's edit or the person's file: a new file at the path.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.now), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Clean(root, dir, false); err != nil {
				t.Fatal(err)
			}
			at := path
			if c.gauntlet {
				at = filepath.Join(dir, PreviousDir, name)
			}
			if data, err := os.ReadFile(at); err != nil || string(data) != c.now {
				t.Fatalf("%s holds %q (%v), want %q (archived as the gauntlet's: %v)", at, data, err, c.now, c.gauntlet)
			}
		})
	}
}
