package logdir

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// makeDir creates a log directory holding files (a name ending in / is a
// directory), in a work tree of its own, and returns its path. The files
// with the gauntlet's names in the root, previous/, commit/ and
// previous/commit/ are recorded as the gauntlet's (Note), as a run that
// wrote them would leave them.
func makeDir(t *testing.T, files ...string) string {
	t.Helper()
	top := t.TempDir()
	dir := filepath.Join(top, "gauntlet_logs")
	if err := errors.Join(os.Mkdir(filepath.Join(top, ".git"), 0o755), os.MkdirAll(dir, 0o755)); err != nil {
		t.Fatal(err)
	}
	defer noteOwn(t, dir, files...)
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("content of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// noteOwn records each of files (paths in the log directory dir) that
// has one of the gauntlet's names and lies where the gauntlet writes as a
// file the gauntlet wrote.
func noteOwn(t *testing.T, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		rel := filepath.FromSlash(f)
		if strings.HasSuffix(f, "/") || !IsOwn(filepath.Base(rel)) || !slices.Contains(places, filepath.Dir(rel)) {
			continue
		}
		if err := Note(filepath.Join(dir, rel), false); err != nil {
			t.Fatal(err)
		}
	}
}

// tree lists every file and directory below dir, relative, sorted.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestNextRunNumber(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  int
	}{
		{"empty", nil, 1},
		{"console only", []string{"console.1.log"}, 2},
		{"highest of check, review log and json", []string{
			"console.3.log", "check_src_lint.2.log", "review_src_qa_claude@1.7.json", "review_src_qa_claude@1.6.log",
		}, 8},
		{"multi-digit", []string{"console.9.log", "check_src_x.10.log"}, 11},
		{"ignores other files and previous/", []string{
			".execution_state", ".debug.log", ".debug.log.1", "notes.txt", "x.log", "x.3.txt", "previous/console.50.log",
		}, 1},
		// A file the gauntlet would never archive must not use up the
		// retry budget (clean could not get rid of it).
		{"ignores numbered names that are not its own", []string{"notes.10.log", "x.10.log", "console.5.json", "check_x.7.json"}, 1},
		{"ignores a directory named like a log", []string{"odd.9.log/"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NextRunNumber(makeDir(t, tc.files...))
			if err != nil || got != tc.want {
				t.Errorf("NextRunNumber = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
	if got, err := NextRunNumber(filepath.Join(t.TempDir(), "missing")); err != nil || got != 1 {
		t.Errorf("missing dir: NextRunNumber = %d, %v; want 1", got, err)
	}
}

func TestHasPendingLogs(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  bool
	}{
		{"empty", nil, false},
		{"console logs only", []string{"console.1.log", "console.2.log"}, false},
		{"persistent files only", []string{".execution_state", ".debug.log", ".debug.log.1", ".gauntlet-run.lock", ".session_ref"}, false},
		{"archived logs only", []string{"previous/check_src_lint.1.log"}, false},
		{"check log", []string{"console.1.log", "check_src_lint.1.log"}, true},
		{"review json", []string{"review_src_qa_claude@1.1.json"}, true},
		{"other dot files", []string{".hidden.1.log"}, false},
		{"a text file", []string{"notes.txt"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HasPendingLogs(makeDir(t, tc.files...))
			if err != nil || got != tc.want {
				t.Errorf("HasPendingLogs = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	if got, err := HasPendingLogs(filepath.Join(t.TempDir(), "missing")); err != nil || got {
		t.Errorf("missing dir: HasPendingLogs = %v, %v", got, err)
	}
}

func TestLatestConsoleLog(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string // "" for none
	}{
		{"none", []string{"check_src_lint.1.log"}, ""},
		{"numeric not lexical order", []string{"console.9.log", "console.10.log", "console.2.log"}, "console.10.log"},
		{"ignores look-alikes", []string{"console.1.log", "console.5.json", "myconsole.7.log", "console.x.log", "previous/console.9.log"}, "console.1.log"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeDir(t, tc.files...)
			got, err := LatestConsoleLog(dir)
			want := ""
			if tc.want != "" {
				want = filepath.Join(dir, tc.want)
			}
			if err != nil || got != want {
				t.Errorf("LatestConsoleLog = %q, %v; want %q", got, err, want)
			}
		})
	}
	if got, err := LatestConsoleLog(filepath.Join(t.TempDir(), "missing")); err != nil || got != "" {
		t.Errorf("missing dir: LatestConsoleLog = %q, %v", got, err)
	}
}

func TestLatestConsoleLogIsAbsolute(t *testing.T) {
	dir := makeDir(t, "console.1.log")
	t.Chdir(filepath.Dir(dir))
	got, err := LatestConsoleLog(filepath.Base(dir))
	if err != nil || got != filepath.Join(dir, "console.1.log") {
		t.Errorf("LatestConsoleLog(relative) = %q, %v", got, err)
	}
}

func TestConsoleLogName(t *testing.T) {
	if got := ConsoleName(12).String(); got != "console.12.log" {
		t.Errorf("ConsoleName(12) = %q", got)
	}
}

func TestClean(t *testing.T) {
	tests := []struct {
		name         string
		files        []string
		includeState bool
		archived     bool
		want         []string
		kept         []string // entries warned about, relative to the log dir
	}{
		{name: "nothing to clean", files: []string{".execution_state", ".debug.log", ".debug.log.1", "notes.txt"},
			want: []string{".debug.log", ".debug.log.1", ".execution_state", "notes.txt"}, kept: []string{"notes.txt"}},
		{name: "only archived logs", files: []string{"previous/check_src_x.1.log"},
			want: []string{"previous/", "previous/check_src_x.1.log"}},
		{name: "logs are archived, persistent files stay, state stays, other files stay",
			files: []string{
				"console.1.log", "check_src_lint.1.log", "review_src_qa_claude@1.1.json", "notes.txt", "sub/x.log",
				".execution_state", ".debug.log", ".debug.log.1", ".gauntlet-run.lock", ".session_ref", ".stop-hook-active",
				".execution_state.123.tmp", ".review_src_qa_claude@1.1.json.456.tmp", ".gauntlet-run.lock.789.tmp",
			},
			archived: true,
			want: []string{
				".debug.log", ".debug.log.1", ".execution_state", ".gauntlet-run.lock", "notes.txt", "previous/",
				"previous/.execution_state.123.tmp", "previous/.gauntlet-run.lock.789.tmp", "previous/.review_src_qa_claude@1.1.json.456.tmp",
				"previous/.stop-hook-active", "previous/check_src_lint.1.log", "previous/console.1.log",
				"previous/review_src_qa_claude@1.1.json", "sub/", "sub/x.log",
			},
			kept: []string{"notes.txt", "sub"}},
		{name: "state moves too with includeState",
			files:        []string{"console.1.log", ".execution_state", ".gauntlet-run.lock"},
			includeState: true, archived: true,
			want: []string{".gauntlet-run.lock", "previous/", "previous/.execution_state", "previous/console.1.log"}},
		{name: "state alone moves with includeState, next to the archive a passed run left",
			files:        []string{"previous/check_src_x.1.log", "previous/.execution_state", ".execution_state", ".debug.log"},
			includeState: true, archived: true,
			want: []string{".debug.log", "previous/", "previous/.execution_state", "previous/check_src_x.1.log"}},
		{name: "commit/ stays without includeState",
			files: []string{"console.1.log", "commit/console.1.log"}, archived: true,
			want: []string{"commit/", "commit/console.1.log", "previous/", "previous/console.1.log"}},
		{name: "commit/ moves with includeState, file by file, replacing the archived one's own files only",
			files: []string{"commit/console.2.log", "previous/commit/console.1.log", "previous/commit/mine.txt",
				"previous/check_src_x.1.log", ".execution_state"},
			includeState: true, archived: true,
			want: []string{"previous/", "previous/.execution_state",
				"previous/check_src_x.1.log", "previous/commit/", "previous/commit/console.2.log", "previous/commit/mine.txt"},
			kept: []string{"previous/commit/mine.txt"}},
		{name: "commit/ replaces an archived commit/ of the gauntlet's own files",
			files:        []string{"console.3.log", "commit/console.2.log", "previous/commit/console.1.log", "previous/console.1.log"},
			includeState: true, archived: true,
			want: []string{"previous/", "previous/commit/", "previous/commit/console.2.log", "previous/console.3.log"}},
		{name: "state alone stays without includeState",
			files: []string{".execution_state"},
			want:  []string{".execution_state"}},
		{name: "console log alone counts",
			files: []string{"console.4.log"}, archived: true,
			want: []string{"previous/", "previous/console.4.log"}},
		{name: "previous/ is emptied of the gauntlet's files only",
			files: []string{
				"previous/check_src_old.1.log", "previous/.execution_state", "previous/old/deep.json", "previous/keep.txt",
				"previous/console.3.log/inside.txt", "check_src_new.2.log",
			},
			archived: true,
			want: []string{
				"previous/", "previous/check_src_new.2.log", "previous/console.3.log/", "previous/console.3.log/inside.txt",
				"previous/keep.txt", "previous/old/", "previous/old/deep.json",
			},
			kept: []string{"previous/console.3.log", "previous/keep.txt", "previous/old"}},
		{name: "an entry named like a log that is a directory stays",
			files: []string{"console.1.log", "check_src_dir.2.log/", "check_src_dir.2.log/user.txt"}, archived: true,
			want: []string{"check_src_dir.2.log/", "check_src_dir.2.log/user.txt", "previous/", "previous/console.1.log"},
			kept: []string{"check_src_dir.2.log"}},
		{name: "an archive target that is a directory is not replaced",
			files: []string{"console.1.log", "check_src_a.1.log", "previous/check_src_a.1.log/", "previous/check_src_a.1.log/user.txt"}, archived: true,
			want: []string{"check_src_a.1.log", "previous/", "previous/check_src_a.1.log/", "previous/check_src_a.1.log/user.txt", "previous/console.1.log"},
			kept: []string{"previous/check_src_a.1.log", "check_src_a.1.log"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeDir(t, tc.files...)
			res, err := Clean(filepath.Dir(dir), dir, tc.includeState)
			if err != nil || res.Archived != tc.archived {
				t.Fatalf("Clean = %+v, %v; want archived %v", res, err, tc.archived)
			}
			if got := tree(t, dir); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("after Clean:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			checkWarnings(t, dir, res.Warnings, tc.kept)
		})
	}
}

// checkWarnings wants one warning line per kept entry, naming it: left
// in place, or kept under another name (an adopted file moved aside).
func checkWarnings(t *testing.T, dir string, warnings, kept []string) {
	t.Helper()
	if len(warnings) != len(kept) {
		t.Errorf("warnings:\n  %s\nwant one for each of %v", strings.Join(warnings, "\n  "), kept)
		return
	}
	for _, k := range kept {
		prefix := "left " + filepath.Join(dir, k) + " in place: "
		found := false
		for _, w := range warnings {
			found = found || strings.HasPrefix(w, prefix) || strings.HasPrefix(w, "kept "+filepath.Join(dir, k)+" as ")
		}
		if !found {
			t.Errorf("no warning starting %q in %q", prefix, warnings)
		}
	}
}

// Symbolic links and other special files in the log directory: nothing
// they point to is moved or deleted, and the links themselves stay.
func TestCleanSpecialEntries(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, "check_src_x.1.log")
	if err := os.WriteFile(victim, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := makeDir(t, "console.2.log", "previous/")
	for link, target := range map[string]string{
		"check_src_x.1.log":            victim,
		"previous/check_src_x.1.log":   victim,
		"review_src_y_claude@1.1.json": filepath.Join(outside, "missing"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	fifotest.Create(t, filepath.Join(dir, "check_src_fifo.1.log"))
	res, err := Clean(filepath.Dir(dir), dir, true)
	if err != nil || !res.Archived {
		t.Fatalf("Clean = %+v, %v", res, err)
	}
	want := []string{"check_src_fifo.1.log", "check_src_x.1.log", "previous/", "previous/check_src_x.1.log", "previous/console.2.log", "review_src_y_claude@1.1.json"}
	if got := tree(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("after Clean: %v, want %v", got, want)
	}
	checkWarnings(t, dir, res.Warnings, []string{"check_src_fifo.1.log", "check_src_x.1.log", "previous/check_src_x.1.log", "review_src_y_claude@1.1.json"})
	if data, err := os.ReadFile(victim); err != nil || string(data) != "user data" {
		t.Errorf("the file a link pointed to changed: %q, %v", data, err)
	}
}

// A previous/ that is a symbolic link (to a directory outside) or a file is
// never replaced, emptied or written through: Clean fails and moves
// nothing.
func TestCleanPreviousNotADirectory(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "check_src_old.1.log"), []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, mk := range map[string]func(p string) error{
		"symbolic link": func(p string) error { return os.Symlink(outside, p) },
		"regular file":  func(p string) error { return os.WriteFile(p, []byte("x"), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := makeDir(t, "check_src_a.1.log")
			prev := filepath.Join(dir, PreviousDir)
			if err := mk(prev); err != nil {
				t.Fatal(err)
			}
			res, err := Clean(filepath.Dir(dir), dir, true)
			want := prev + " is a " + name + ", not the archive directory"
			if err == nil || !strings.HasPrefix(err.Error(), want) || res.Archived {
				t.Errorf("Clean = %+v, %v; want an error starting %q", res, err, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "check_src_a.1.log")); err != nil {
				t.Errorf("the log moved: %v", err)
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) != 1 || entries[0].Name() != "check_src_old.1.log" {
				t.Errorf("outside changed: %v", entries)
			}
		})
	}
}

func TestCleanKeepsContent(t *testing.T) {
	dir := makeDir(t, "check_src_a.1.log")
	if _, err := Clean(filepath.Dir(dir), dir, false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, PreviousDir, "check_src_a.1.log"))
	if err != nil || string(data) != "content of check_src_a.1.log" {
		t.Errorf("archived file = %q, %v", data, err)
	}
}

func TestCleanMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	res, err := Clean(filepath.Dir(dir), dir, true)
	if res.Archived || len(res.Warnings) > 0 || err != nil {
		t.Errorf("Clean(missing) = %+v, %v", res, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Clean created the missing directory")
	}
}

func TestReadErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NextRunNumber(file); err == nil {
		t.Error("NextRunNumber on a file: no error")
	}
	if _, err := HasPendingLogs(file); err == nil {
		t.Error("HasPendingLogs on a file: no error")
	}
	if _, err := LatestConsoleLog(file); err == nil {
		t.Error("LatestConsoleLog on a file: no error")
	}
	if _, err := Clean(filepath.Dir(file), file, false); err == nil {
		t.Error("Clean on a file: no error")
	}
}

func TestHasLogs(t *testing.T) {
	for _, tc := range []struct {
		files []string
		want  bool
	}{
		{nil, false},
		{[]string{".execution_state", ".debug.log", ".gauntlet-run.lock", "previous/check_src_a.1.log"}, false},
		{[]string{"console.1.log"}, true},
		{[]string{"review_src_x_claude@1.2.json"}, true},
	} {
		dir := makeDir(t, tc.files...)
		if got, err := HasLogs(dir); err != nil || got != tc.want {
			t.Errorf("HasLogs(%v) = %v, %v; want %v", tc.files, got, err, tc.want)
		}
	}
	if got, err := HasLogs(filepath.Join(t.TempDir(), "missing")); err != nil || got {
		t.Errorf("missing dir: %v, %v", got, err)
	}
}

// A log directory that has become a symbolic link leading out of the
// project (after the configuration was checked) is refused: nothing out
// there is moved or deleted.
func TestCleanLogDirLinkedOutside(t *testing.T) {
	outside := makeDir(t, "console.1.log", "previous/check_src_x.1.log")
	root := t.TempDir()
	dir := filepath.Join(root, "gauntlet_logs")
	if err := errors.Join(os.Mkdir(filepath.Join(root, ".git"), 0o755), os.Symlink(outside, dir)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := Clean(root, dir, true)
		if err == nil || res.Archived {
			t.Fatalf("Clean = %+v, %v; want an error", res, err)
		}
	}
	if got, want := tree(t, outside), []string{"console.1.log", "previous/", "previous/check_src_x.1.log"}; !reflect.DeepEqual(got, want) {
		t.Errorf("outside: %v, want %v", got, want)
	}
	// Linked inside the project, it is followed.
	inside := filepath.Join(root, "build")
	if err := os.Mkdir(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inside, "console.1.log"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("build", dir); err != nil {
		t.Fatal(err)
	}
	noteOwn(t, dir, "console.1.log")
	if res, err := Clean(root, dir, true); err != nil || !res.Archived {
		t.Errorf("Clean through a link inside = %+v, %v", res, err)
	}
	if _, err := Clean(root, filepath.Join(t.TempDir(), "elsewhere"), true); err == nil {
		t.Error("Clean of a directory outside root: no error")
	}
}
