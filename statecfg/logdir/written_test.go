package logdir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// everyName is every file name the log directory gives a meaning, drawn
// from the code's own tables: the fixed names (fixedNames, the
// directories aside), a numbered name of each of the gauntlet's formats
// and one in none of them, and the temporary name of an atomic write of
// each.
func everyName() []string {
	jn := NewJobNames("check:src:lint", "review:src:code")
	numbered := []Name{
		ConsoleName(1), ConsoleName(2), ConsoleName(9),
		{Kind: KindJobLog, Stem: jn.Stem("check:src:lint"), Run: 1},
		{Kind: KindJobLog, Stem: jn.Stem("check:src:lint"), Run: 2},
		{Kind: KindSlotLog, Stem: jn.Stem("review:src:code"), Adapter: "claude", Slot: 1, Run: 1},
		{Kind: KindSlotJSON, Stem: jn.Stem("review:src:code"), Adapter: "claude", Slot: 1, Run: 1},
		{Kind: KindSlotJSON, Stem: jn.Stem("review:src:code"), Adapter: "codex", Slot: 2, Run: 3},
	}
	var names []string
	for name, k := range fixedNames {
		if k != previousDir && k != commitDir {
			names = append(names, name)
		}
	}
	for _, n := range numbered {
		names = append(names, n.String())
	}
	names = append(names, "build_output.1.log")
	for _, n := range slices.Clone(names) {
		names = append(names, "."+strings.TrimPrefix(n, ".")+".4242.tmp")
	}
	slices.Sort(names)
	return names
}

// places are where files go in the log directory.
var places = []string{".", PreviousDir, CommitDir, filepath.Join(PreviousDir, CommitDir)}

// The invariant: the log directory's archiving moves or deletes a path
// only when the gauntlet wrote exactly that file (its path, and the
// identity it wrote it with); every other file stays where it is,
// byte-identical, whatever its name: each name the code gives a meaning,
// in the root, previous/, commit/ and previous/commit/, including a
// person's file written over one of the gauntlet's, in place or by a
// rename. The gauntlet's own files are archived as they must be: its run
// logs into previous/ (emptied of its older files first), the execution
// state and commit/ too with includeState. And the gauntlet never writes
// over a person's file: OpenLog refuses it.
func TestArchiveTakesOnlyWhatItWrote(t *testing.T) {
	names := everyName()
	rapid.Check(t, func(rt *rapid.T) {
		root := t.TempDir()
		if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
			rt.Fatal(err)
		}
		dir := filepath.Join(root, "gauntlet_logs")
		if err := Start(dir); err != nil {
			rt.Fatal(err)
		}
		m := &archiveModel{dir: dir, person: map[string][]byte{}, own: map[string][]byte{}}
		steps := rapid.IntRange(1, 40).Draw(rt, "steps")
		for i := range steps {
			switch rapid.IntRange(0, 5).Draw(rt, "action") {
			case 0, 1:
				name := rapid.SampledFrom(names).Draw(rt, "name")
				at := rapid.SampledFrom(append([]string{".", "."}, places...)).Draw(rt, "at") // the root most often
				m.personWrites(rt, filepath.Join(at, name), []byte(fmt.Sprintf("person %d %s", i, name)))
			case 2:
				m.personOverwrites(rt, i, rapid.Bool().Draw(rt, "inPlace"))
			case 3:
				m.gauntletWrites(rt, i, rapid.IntRange(0, 4).Draw(rt, "kind"), rapid.Bool().Draw(rt, "inCommit"))
			case 4:
				m.gauntletRefused(rt)
			case 5:
				m.archive(rt, rapid.Bool().Draw(rt, "includeState"))
			}
			m.check(rt)
		}
	})
}

// archiveModel is what the log directory should hold: the person's files
// and the gauntlet's, by path, with their content.
type archiveModel struct {
	dir         string
	person, own map[string][]byte
}

func (m *archiveModel) abs(rel string) string { return filepath.Join(m.dir, rel) }

// personWrites writes a person's file at rel, unless a directory or one
// of the gauntlet's files is there.
func (m *archiveModel) personWrites(rt *rapid.T, rel string, content []byte) {
	if _, ok := m.own[rel]; ok {
		return
	}
	if fi, err := os.Lstat(m.abs(rel)); err == nil && fi.IsDir() {
		return
	}
	if err := os.MkdirAll(filepath.Dir(m.abs(rel)), 0o755); err != nil {
		rt.Fatal(err)
	}
	if err := os.WriteFile(m.abs(rel), content, 0o644); err != nil {
		rt.Fatal(err)
	}
	m.person[rel] = content
}

// personOverwrites writes a person's content over one of the gauntlet's
// files: in place (the same inode), or as a new file renamed over it. A
// review's JSON is the agent's to edit, in place or through a new file (as
// sed -i and many editors write): either way it stays the gauntlet's.
func (m *archiveModel) personOverwrites(rt *rapid.T, i int, inPlace bool) {
	paths := sortedKeys(m.own)
	if len(paths) == 0 {
		return
	}
	rel := rapid.SampledFrom(paths).Draw(rt, "overwritten")
	edited := false
	if n, ok := ParseName(filepath.Base(rel)); ok && n.Kind == KindSlotJSON {
		edited = true
	}
	content := []byte(fmt.Sprintf("person over %d", i))
	if inPlace {
		if err := os.WriteFile(m.abs(rel), content, 0o644); err != nil {
			rt.Fatal(err)
		}
	} else {
		tmp := m.abs(rel) + ".mine"
		if err := errors.Join(os.WriteFile(tmp, content, 0o644), os.Rename(tmp, m.abs(rel))); err != nil {
			rt.Fatal(err)
		}
	}
	if edited {
		m.own[rel] = content
		return
	}
	delete(m.own, rel)
	m.person[rel] = content
}

// gauntletWrites writes one of the gauntlet's files, as it writes them,
// at the next run's number: a console, check or review log (OpenLog), a
// review's JSON (an atomic write), or the execution state (unless a
// person's file is there).
func (m *archiveModel) gauntletWrites(rt *rapid.T, i, kind int, inCommit bool) {
	sub := "."
	if inCommit && kind != 4 {
		sub = CommitDir
	}
	if err := os.MkdirAll(m.abs(sub), 0o755); err != nil {
		rt.Fatal(err)
	}
	run, err := NextRunNumber(m.abs(sub))
	if err != nil {
		rt.Fatal(err)
	}
	jn := NewJobNames("check:src:lint", "review:src:code")
	var n Name
	switch kind {
	case 0:
		n = ConsoleName(run)
	case 1:
		n = Name{Kind: KindJobLog, Stem: jn.Stem("check:src:lint"), Run: run}
	case 2:
		n = Name{Kind: KindSlotLog, Stem: jn.Stem("review:src:code"), Adapter: "claude", Slot: 1, Run: run}
	}
	content := []byte(fmt.Sprintf("gauntlet %d", i))
	var rel string
	switch kind {
	case 3, 4:
		rel = filepath.Join(sub, state.File)
		edited := false
		if kind == 3 {
			rel, edited = filepath.Join(sub, Name{Kind: KindSlotJSON, Stem: jn.Stem("review:src:code"), Adapter: "claude", Slot: 1, Run: run}.String()), true
		}
		if _, ok := m.person[rel]; ok {
			return
		}
		write := func() error { return atomicfile.Write(m.abs(rel), content, 0o644) }
		if kind == 4 {
			// as a run writes it, deleting the TypeScript tool's
			// .session_ref when it is the gauntlet's
			write = func() error {
				return state.WriteDeleting(m.dir, state.State{SessionID: fmt.Sprint(i)}, Owned)
			}
		}
		if err := errors.Join(write(), Note(m.abs(rel), edited)); err != nil {
			rt.Fatal(err)
		}
		if kind == 4 {
			var err error
			if content, err = os.ReadFile(m.abs(rel)); err != nil {
				rt.Fatal(err)
			}
		}
	default:
		rel = filepath.Join(sub, n.String())
		f, err := OpenLog(m.abs(rel), true)
		if err != nil {
			rt.Fatalf("the gauntlet cannot write %s: %v", rel, err)
		}
		_, werr := f.Write(content)
		if err := errors.Join(werr, f.Close(), Note(m.abs(rel), false)); err != nil {
			rt.Fatal(err)
		}
	}
	m.own[rel] = content
}

// gauntletRefused opens a person's file as a log, as the gauntlet would
// when one took the name it is about to write: it is refused, untouched.
func (m *archiveModel) gauntletRefused(rt *rapid.T) {
	paths := sortedKeys(m.person)
	if len(paths) == 0 {
		return
	}
	rel := rapid.SampledFrom(paths).Draw(rt, "occupied")
	if f, err := OpenLog(m.abs(rel), true); err == nil {
		f.Close()
		rt.Fatalf("OpenLog opened the person's file %s", rel)
	}
}

// archive runs Clean and moves the model's files as archiving must.
func (m *archiveModel) archive(rt *rapid.T, includeState bool) {
	fi, err := os.Lstat(m.abs(CommitDir))
	commit := err == nil && fi.IsDir()
	if _, err := Clean(filepath.Dir(m.dir), m.dir, includeState); err != nil {
		rt.Fatalf("Clean: %v", err)
	}
	logs := false
	for rel := range m.own {
		if filepath.Dir(rel) == "." && classify(rel) == runLog {
			logs = true
		}
	}
	if logs {
		for rel := range m.own {
			if d := filepath.Dir(rel); d == PreviousDir || d == filepath.Join(PreviousDir, CommitDir) {
				delete(m.own, rel)
			}
		}
	}
	if includeState && commit {
		for rel := range m.own {
			if filepath.Dir(rel) == filepath.Join(PreviousDir, CommitDir) {
				delete(m.own, rel)
			}
		}
	}
	for _, rel := range sortedKeys(m.own) {
		to := ""
		switch d, base := filepath.Dir(rel), filepath.Base(rel); {
		case d == "." && base == state.File && includeState:
			to = filepath.Join(PreviousDir, base)
		case d == "." && logs && classify(base) == runLog:
			to = filepath.Join(PreviousDir, base)
		case d == CommitDir && includeState:
			to = filepath.Join(PreviousDir, CommitDir, base)
		}
		if _, taken := m.person[to]; to == "" || taken {
			continue
		}
		m.own[to] = m.own[rel]
		delete(m.own, rel)
	}
}

// check compares the directory with the model: every person's file as it
// was, every file of the gauntlet's where archiving puts it.
func (m *archiveModel) check(rt *rapid.T) {
	for _, set := range []map[string][]byte{m.person, m.own} {
		for _, rel := range sortedKeys(set) {
			got, err := os.ReadFile(m.abs(rel))
			if err != nil || !bytes.Equal(got, set[rel]) {
				who := "the gauntlet's"
				if _, ok := m.person[rel]; ok {
					who = "a person's"
				}
				rt.Fatalf("%s file %s: %q, %v; want %q", who, rel, got, err, set[rel])
			}
		}
	}
	// What the gauntlet reads as its own is its own.
	latest, err := LatestConsoleLog(m.dir)
	if err != nil {
		rt.Fatal(err)
	}
	if rel, _ := filepath.Rel(m.dir, latest); latest != "" && m.own[rel] == nil {
		rt.Fatalf("the latest console log is %s, not one the gauntlet wrote", rel)
	}
	pending, err := HasPendingLogs(m.dir)
	if err != nil {
		rt.Fatal(err)
	}
	wantPending := false
	for rel := range m.own {
		if n, ok := ParseName(rel); ok && filepath.Dir(rel) == "." && n.IsGate() {
			wantPending = true
		}
	}
	if pending != wantPending {
		rt.Fatalf("HasPendingLogs = %v; the gauntlet's own gate logs at the root: %v", pending, wantPending)
	}
	// Nothing else: the gauntlet's older files were deleted.
	_ = filepath.WalkDir(m.dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(m.dir, p)
		_, isPerson := m.person[rel]
		_, isOwn := m.own[rel]
		if !isPerson && !isOwn {
			rt.Fatalf("%s is left, neither the person's nor where the gauntlet's files go", rel)
		}
		return nil
	})
}

// sortedKeys are m's keys in order.
func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// A log directory the record starts with files of the gauntlet's names in
// it, written by a run that ended there (an earlier version's or the
// TypeScript tool's logs, with its execution state), adopts them, so that
// archiving takes them as before, except that one it would delete is kept
// under a fresh name (it may be a person's: adopted_test.go). Without an
// execution state no run ended there, and files written well after the
// last one are not that run's: neither is adopted, and no file put there
// after the start is.
func TestStartAdoptsWhatIsThere(t *testing.T) {
	earlier := []string{"console.1.log", "check_src_lint.1.log", "previous/console.0.log", "mine.txt"}
	for _, c := range []struct {
		name  string
		state string // where the execution state is, "" for none
		age   time.Duration
		want  []string
		kept  []string
	}{
		{name: "a run ended here", state: ".execution_state",
			want: []string{"console.9.log", "mine.txt", "previous/", "previous/.execution_state", "previous/check_src_lint.0.log",
				"previous/check_src_lint.1.log", "previous/console.0.log.adopted", "previous/console.1.log"},
			kept: []string{"console.9.log", "mine.txt", "previous/check_src_lint.0.log", "previous/console.0.log"}},
		{name: "its state archived", state: "previous/.execution_state",
			want: []string{"console.9.log", "mine.txt", "previous/", "previous/check_src_lint.0.log",
				"previous/check_src_lint.1.log", "previous/console.0.log.adopted", "previous/console.1.log"},
			kept: []string{"console.9.log", "mine.txt", "previous/check_src_lint.0.log", "previous/console.0.log"}},
		{name: "no run ended here", kept: []string{"console.1.log", "check_src_lint.1.log", "console.9.log", "mine.txt"},
			want: []string{"check_src_lint.1.log", "console.1.log", "console.9.log", "mine.txt", "previous/", "previous/check_src_lint.0.log", "previous/console.0.log"}},
		{name: "written long after the last run", state: ".execution_state", age: time.Hour,
			kept: []string{"console.1.log", "check_src_lint.1.log", "console.9.log", "mine.txt"},
			want: []string{"check_src_lint.1.log", "console.1.log", "console.9.log", "mine.txt", "previous/", "previous/.execution_state",
				"previous/check_src_lint.0.log", "previous/console.0.log"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, "gauntlet_logs")
			files := earlier
			if c.state != "" {
				files = append(slices.Clone(earlier), c.state)
			}
			writeAll(t, dir, files...)
			if c.state != "" {
				// An execution state as the TypeScript tool writes it: a
				// file of that name that is none is no run's end.
				ts := `{"last_run_completed_at":"2026-01-02T03:04:05.678Z","branch":"main","commit":"0123456789abcdef0123456789abcdef01234567"}`
				if err := os.WriteFile(filepath.Join(dir, c.state), []byte(ts), 0o644); err != nil {
					t.Fatal(err)
				}
				old := time.Now().Add(-c.age)
				if err := os.Chtimes(filepath.Join(dir, c.state), old, old); err != nil {
					t.Fatal(err)
				}
			}
			if err := Start(dir); err != nil {
				t.Fatal(err)
			}
			writeAll(t, dir, "console.9.log", "previous/check_src_lint.0.log")
			res, err := Clean(root, dir, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := tree(t, dir); !slices.Equal(got, c.want) {
				t.Errorf("after Clean:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
			checkWarnings(t, dir, res.Warnings, c.kept)
		})
	}
}

// The debug log's rotation moves the log over its backup only when the
// gauntlet wrote both; a person's file at either name stays as it is.
func TestRotateTakesOnlyWhatItWrote(t *testing.T) {
	for _, c := range []struct {
		name           string
		person         []string
		want           []string
		rotated, fails bool
	}{
		{name: "both the gauntlet's", want: []string{DebugLogBackupFile}, rotated: true},
		{name: "a person's backup", person: []string{DebugLogBackupFile}, want: []string{DebugLogFile, DebugLogBackupFile}, fails: true},
		{name: "a person's log", person: []string{DebugLogFile}, want: []string{DebugLogFile, DebugLogBackupFile}, fails: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, "gauntlet_logs")
			if err := errors.Join(os.Mkdir(dir, 0o755), Start(dir)); err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{DebugLogFile, DebugLogBackupFile} {
				if slices.Contains(c.person, n) {
					writeAll(t, dir, n)
					continue
				}
				f, err := OpenLog(filepath.Join(dir, n), false)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = f.WriteString("gauntlet " + n)
				if err := errors.Join(f.Close(), Note(filepath.Join(dir, n), false)); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.ReadFile(filepath.Join(dir, DebugLogFile))
			err := Rotate(dir, DebugLogFile, DebugLogBackupFile)
			if (err != nil) != c.fails {
				t.Fatalf("Rotate = %v, want failing %v", err, c.fails)
			}
			if got := tree(t, dir); !slices.Equal(got, c.want) {
				t.Fatalf("after Rotate: %q, want %q", got, c.want)
			}
			for _, p := range c.person {
				if got, _ := os.ReadFile(filepath.Join(dir, p)); string(got) != "content of "+p {
					t.Errorf("the person's %s holds %q", p, got)
				}
			}
			if c.rotated {
				if got, _ := os.ReadFile(filepath.Join(dir, DebugLogBackupFile)); !bytes.Equal(got, before) {
					t.Errorf("backup holds %q, want the log %q", got, before)
				}
			}
		})
	}
}

// writeAll writes files (paths in dir) as a person would.
func writeAll(t *testing.T, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("content of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkNote measures recording one written file in a log directory
// whose record holds 100 files already: a file as recorded (nothing to
// write), and one written anew (the record rewritten).
func BenchmarkNote(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "gauntlet_logs")
	if err := errors.Join(os.Mkdir(filepath.Join(root, ".git"), 0o755), os.Mkdir(dir, 0o755), Start(dir)); err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		p := filepath.Join(dir, ConsoleName(i+1).String())
		if err := errors.Join(os.WriteFile(p, []byte("run log"), 0o644), Note(p, false)); err != nil {
			b.Fatal(err)
		}
	}
	p := filepath.Join(dir, ConsoleName(1).String())
	b.Run("as recorded", func(b *testing.B) {
		for range b.N {
			if err := Note(p, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("written anew", func(b *testing.B) {
		for i := range b.N {
			if err := errors.Join(os.WriteFile(p, []byte(fmt.Sprint("run log ", i)), 0o644), Note(p, false)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestHeldByPath: a review JSON file the gauntlet wrote stays its own by
// its path, whatever the agent writes in it (in place, by a rename over it,
// or through update-review's rewrite) and after archiving moves it, and it
// holds the entries the gauntlet wrote there and no other; a file the agent
// adds beside them, under any of the gauntlet's names, is not the
// gauntlet's, nor is one planted in a log directory the record does not
// know yet (no run ended there); a file adopted as an earlier run's holds
// the entries it held when adopted. Outside a repository, where no record
// can be kept, every file is taken as written, entries unknown.
func TestHeldByPath(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "gauntlet_logs")
	jn := NewJobNames("review:src:code")
	own := Name{Kind: KindSlotJSON, Stem: jn.Stem("review:src:code"), Adapter: "claude", Slot: 1, Run: 1}.String()
	added := Name{Kind: KindSlotJSON, Stem: jn.Stem("review:src:code"), Adapter: "claude", Slot: 1, Run: 2}.String()
	writeFile := func(dir, rel, content string) {
		t.Helper()
		if err := atomicfile.Write(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const (
		entryA = `{"id":"aaaaaaa","file":"src/a.txt","line":2,"issue":"A"}`
		entryB = `{"id":"bbbbbbb","file":"src/a.txt","line":3,"issue":"B","status":"skipped"}`
	)
	keyA, keyB := EntryKey("aaaaaaa", "src/a.txt", 2, "A"), EntryKey("bbbbbbb", "src/a.txt", 3.0, "B")
	check := func(path string, wantWrote bool, want ...string) {
		t.Helper()
		keys, wrote := Held(path, false)
		if wrote != wantWrote {
			t.Errorf("Held(%s) wrote = %v, want %v", path, wrote, wantWrote)
		}
		if !wantWrote {
			return
		}
		if want == nil && keys != nil {
			t.Errorf("Held(%s) = %v, want unknown", path, keys)
		}
		if want != nil && (len(keys) != len(want) || !keys[want[0]]) {
			t.Errorf("Held(%s) = %v, want %v", path, keys, want)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(dir, own, `{"status":"fail","violations":[`+entryA+`]}`)
	if err := NoteReview(filepath.Join(dir, own), []string{keyA}); err != nil {
		t.Fatal(err)
	}
	writeFile(dir, own, `{"status":"pass","violations":[`+entryA+`,`+entryB+`]}`) // the agent's edit, by a rename
	if err := Note(filepath.Join(dir, own), true); err != nil {                   // update-review's rewrite
		t.Fatal(err)
	}
	writeFile(dir, added, `{"status":"pass","violations":[`+entryB+`]}`)
	check(filepath.Join(dir, own), true, keyA)
	check(filepath.Join(dir, added), false)
	if _, err := Clean(root, dir, false); err != nil {
		t.Fatal(err)
	}
	check(filepath.Join(dir, PreviousDir, own), true, keyA)

	// A log directory the record does not know: a planted file is no
	// run's; one older than the execution state of a run that ended is
	// adopted with the entries it holds.
	other := filepath.Join(root, "other_logs")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(other, own, `{"status":"fail","violations":[`+entryB+`]}`)
	check(filepath.Join(other, own), false)
	old := time.Now().Add(-time.Hour)
	if err := errors.Join(os.Chtimes(filepath.Join(other, own), old, old),
		state.Write(other, state.State{LastRunCompletedAt: time.Now()})); err != nil {
		t.Fatal(err)
	}
	check(filepath.Join(other, own), true, keyB)

	elsewhere := t.TempDir()
	writeFile(elsewhere, added, `{"status":"pass","violations":[`+entryB+`]}`)
	check(filepath.Join(elsewhere, added), true)
}

// A store that is not the gauntlet's (its directory replaced by a link to
// a person's directory, or by a file) tells nothing of which files the
// gauntlet wrote: the adoption rule, which would take a person's files
// written before a run's execution state for that run's and move them
// aside, takes none, and archiving leaves every file where it is.
func TestUnusableStoreMovesNothing(t *testing.T) {
	files := []string{"console.1.log", "check_src_lint.1.log", "previous/console.1.log", "mine.txt"}
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, store string)
	}{
		{"a link to a person's directory", func(t *testing.T, store string) {
			if err := os.Symlink(t.TempDir(), store); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file", func(t *testing.T, store string) {
			if err := os.WriteFile(store, []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, "gauntlet_logs")
			writeAll(t, dir, files...)
			old := time.Now().Add(-time.Minute)
			for _, f := range files {
				if err := os.Chtimes(filepath.Join(dir, f), old, old); err != nil {
					t.Fatal(err)
				}
			}
			// A run ended after them: the adoption rule alone would take
			// the files with the gauntlet's names as that run's.
			ts := `{"last_run_completed_at":"2026-01-02T03:04:05.678Z","branch":"main","commit":"0123456789abcdef0123456789abcdef01234567"}`
			if err := os.WriteFile(filepath.Join(dir, ".execution_state"), []byte(ts), 0o644); err != nil {
				t.Fatal(err)
			}
			c.plant(t, filepath.Join(root, ".git", "agent-gauntlet"))
			before := tree(t, dir)
			if _, err := Clean(root, dir, true); err != nil {
				t.Fatal(err)
			}
			if got := tree(t, dir); !slices.Equal(got, before) {
				t.Errorf("after Clean:\n  %s\nwant as before:\n  %s", strings.Join(got, "\n  "), strings.Join(before, "\n  "))
			}
			if Owned(filepath.Join(dir, "console.1.log")) {
				t.Errorf("a file is the gauntlet's while its store is not")
			}
		})
	}
}
