package logdir

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// The invariant: the gauntlet moves or deletes only files it wrote. A
// file it adopted (one with its names, there when its record started,
// after an execution state that says a run ended there: an earlier
// tool's log, or a person's when that state was planted) is moved, never
// deleted nor written over: archiving moves it aside under a fresh name
// when its place in previous/ is taken or it would be deleted, and an
// archive never replaces a file there that the gauntlet did not write. So
// whatever the order of stops, runs and cleans, every person's bytes stay
// somewhere in the log directory.

// personKinds are the log-directory files a person can have at the
// gauntlet's names: console, check and review logs, a review's JSON.
var personKinds = func() []string {
	jn := NewJobNames("check:src:lint", "review:src:code")
	return []string{ConsoleName(1).String(),
		Name{Kind: KindJobLog, Stem: jn.Stem("check:src:lint"), Run: 1}.String(),
		Name{Kind: KindSlotLog, Stem: jn.Stem("review:src:code"), Adapter: "claude", Slot: 1, Run: 1}.String(),
		Name{Kind: KindSlotJSON, Stem: jn.Stem("review:src:code"), Adapter: "claude", Slot: 1, Run: 1}.String()}
}()

// plantedStates are the forms an execution state can be planted in: the
// TypeScript tool's four fields, this version's own, either dated in the
// future (its file's time too), in the log directory or its previous/.
var plantedStates = []struct {
	name, at string
	ahead    time.Duration
	content  string
}{
	{"typescript", state.File, 0, `{"last_run_completed_at":"%s","branch":"main","commit":"abc"}`},
	{"ours", state.File, 0, `{"last_run_completed_at":"%s","branch":"main","commit":"abc","run_number":3,"last_full_pass_completed_at":"%[1]s"}`},
	{"future", state.File, time.Hour, `{"last_run_completed_at":"%s","branch":"main","commit":"abc"}`},
	{"archived", filepath.Join(PreviousDir, state.File), 0, `{"last_run_completed_at":"%s","branch":"main","commit":"abc"}`},
}

// adoptedDir makes a log directory in a fresh repository holding the
// person's file at rel, and a planted state; start (when true) starts the
// record after the state is planted (the person trusts after the agent
// planted it), else before (the state, then files, come later).
func adoptedDir(t testing.TB, rel string, st int, startAfter bool) (dir string, person []byte) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(root, "logs")
	if err := os.MkdirAll(filepath.Join(dir, PreviousDir, CommitDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, CommitDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if !startAfter {
		if err := Start(dir); err != nil {
			t.Fatal(err)
		}
	}
	person = []byte("the person's own " + rel + "\n")
	if err := os.WriteFile(filepath.Join(dir, rel), person, 0o644); err != nil {
		t.Fatal(err)
	}
	p := plantedStates[st]
	at := time.Now().Add(p.ahead)
	sp := filepath.Join(dir, p.at)
	if err := os.WriteFile(sp, fmt.Appendf(nil, p.content, at.UTC().Format(time.RFC3339)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(sp, at, at); err != nil {
		t.Fatal(err)
	}
	if startAfter {
		if err := Start(dir); err != nil {
			t.Fatal(err)
		}
	}
	return dir, person
}

// gauntletRun writes a run's files as the gauntlet does (OpenLog, which
// numbers nothing: the names given), each holding its own content.
func gauntletRun(dir string, names []string, run int) {
	for _, name := range names {
		f, err := OpenLog(filepath.Join(dir, name), true)
		if err != nil {
			continue // refused: a file there is not the gauntlet's
		}
		fmt.Fprintf(f, "the gauntlet's run %d\n", run)
		f.Close()
	}
}

// holds reports whether some file under dir holds exactly want.
func holds(dir string, want []byte) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if got, err := os.ReadFile(p); err == nil && bytes.Equal(got, want) {
				found = true
			}
		}
		return nil
	})
	return found
}

// TestAdoptedFilesAreNeverLost is the fault table: every kind of file a
// person can have, in every place of the log directory, with every
// planted state form, started before or after the planting, through
// stops that write the gauntlet's files of the same names and archive,
// then a clean.
func TestAdoptedFilesAreNeverLost(t *testing.T) {
	for _, kind := range personKinds {
		for _, at := range places {
			for st := range plantedStates {
				for _, after := range []bool{true, false} {
					rel := filepath.Join(at, kind)
					name := fmt.Sprintf("%s/%s/start after %v", rel, plantedStates[st].name, after)
					t.Run(name, func(t *testing.T) {
						dir, person := adoptedDir(t, rel, st, after)
						for run := 1; run <= 3; run++ {
							gauntletRun(dir, []string{kind, filepath.Join(CommitDir, kind)}, run)
							if _, err := Clean(filepath.Dir(dir), dir, run == 3); err != nil {
								t.Fatalf("Clean: %v", err)
							}
							if !holds(dir, person) {
								t.Fatalf("after stop %d the person's %s is gone:\n%v", run, rel, tree(t, dir))
							}
						}
					})
				}
			}
		}
	}
}

// TestAdoptedFilesSurviveAnySequence is the property over random
// sequences: person's files and a planted state before the record starts,
// then any mix of the gauntlet's runs (at any of the names), archives,
// cleans and debug-log rotations: every person's bytes are still there.
func TestAdoptedFilesSurviveAnySequence(t *testing.T) {
	names := append(slices.Clone(personKinds), DebugLogFile, DebugLogBackupFile)
	rapid.Check(t, func(rt *rapid.T) {
		root := t.TempDir()
		if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
			rt.Fatal(err)
		}
		dir := filepath.Join(root, "logs")
		var persons [][]byte
		for i, rel := range rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) string {
			return filepath.Join(rapid.SampledFrom(places).Draw(t, "at"), rapid.SampledFrom(names).Draw(t, "name"))
		}), 1, 6, func(s string) string { return s }).Draw(rt, "person") {
			b := fmt.Appendf(nil, "person %d %s\n", i, rel)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
				rt.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
				rt.Fatal(err)
			}
			persons = append(persons, b)
		}
		p := plantedStates[rapid.IntRange(0, len(plantedStates)-1).Draw(rt, "state")]
		sp := filepath.Join(dir, p.at)
		at := time.Now().Add(p.ahead)
		if err := os.MkdirAll(filepath.Dir(sp), 0o755); err != nil {
			rt.Fatal(err)
		}
		if err := os.WriteFile(sp, fmt.Appendf(nil, p.content, at.UTC().Format(time.RFC3339)), 0o644); err != nil {
			rt.Fatal(err)
		}
		if err := os.Chtimes(sp, at, at); err != nil {
			rt.Fatal(err)
		}
		if err := Start(dir); err != nil {
			rt.Fatal(err)
		}
		for step := range rapid.IntRange(1, 12).Draw(rt, "steps") {
			switch rapid.IntRange(0, 2).Draw(rt, "action") {
			case 0:
				written := rapid.SliceOfN(rapid.SampledFrom(names), 1, 3).Draw(rt, "written")
				if rapid.Bool().Draw(rt, "inCommit") {
					for i := range written {
						written[i] = filepath.Join(CommitDir, written[i])
					}
					_ = os.MkdirAll(filepath.Join(dir, CommitDir), 0o755)
				}
				gauntletRun(dir, written, step)
			case 1:
				if _, err := Clean(root, dir, rapid.Bool().Draw(rt, "includeState")); err != nil {
					rt.Fatalf("Clean: %v", err)
				}
			case 2:
				_ = Rotate(dir, DebugLogFile, DebugLogBackupFile)
			}
			for _, b := range persons {
				if !holds(dir, b) {
					rt.Fatalf("step %d: %q is gone:\n%v", step, b, tree(t, dir))
				}
			}
		}
	})
}
