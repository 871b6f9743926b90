package logdir

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// makeDir creates a log directory holding files (a name ending in / is a
// directory) and returns its path.
func makeDir(t *testing.T, files ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "gauntlet_logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
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
		{"multi-digit", []string{"console.9.log", "x.10.log"}, 11},
		{"ignores other files and previous/", []string{
			".execution_state", ".debug.log", ".debug.log.1", "notes.txt", "x.log", "x.3.txt", "previous/console.50.log",
		}, 1},
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
		{"archived logs only", []string{"previous/check_lint.1.log"}, false},
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
		{"none", []string{"check_lint.1.log"}, ""},
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
		cleaned      bool
		want         []string
	}{
		{name: "nothing to clean", files: []string{".execution_state", ".debug.log", ".debug.log.1", "notes.txt"},
			want: []string{".debug.log", ".debug.log.1", ".execution_state", "notes.txt"}},
		{name: "only archived logs", files: []string{"previous/check_x.1.log"},
			want: []string{"previous/", "previous/check_x.1.log"}},
		{name: "logs are archived, persistent files stay, state stays",
			files: []string{
				"console.1.log", "check_lint.1.log", "review_qa_claude@1.1.json", "notes.txt", "sub/x.log",
				".execution_state", ".debug.log", ".debug.log.1", ".gauntlet-run.lock", ".session_ref", ".stop-hook-active",
			},
			cleaned: true,
			want: []string{
				".debug.log", ".debug.log.1", ".execution_state", ".gauntlet-run.lock", "previous/",
				"previous/.stop-hook-active", "previous/check_lint.1.log", "previous/console.1.log", "previous/notes.txt",
				"previous/review_qa_claude@1.1.json", "previous/sub/", "previous/sub/x.log",
			}},
		{name: "state moves too with includeState",
			files:        []string{"console.1.log", ".execution_state", ".gauntlet-run.lock"},
			includeState: true, cleaned: true,
			want: []string{".gauntlet-run.lock", "previous/", "previous/.execution_state", "previous/console.1.log"}},
		{name: "state alone moves with includeState, next to the archive a passed run left",
			files:        []string{"previous/check_x.1.log", ".execution_state", ".debug.log"},
			includeState: true, cleaned: true,
			want: []string{".debug.log", "previous/", "previous/.execution_state", "previous/check_x.1.log"}},
		{name: "state alone stays without includeState",
			files: []string{".execution_state"},
			want:  []string{".execution_state"}},
		{name: "console log alone counts",
			files: []string{"console.4.log"}, cleaned: true,
			want: []string{"previous/", "previous/console.4.log"}},
		{name: "an old previous/ is emptied first",
			files:   []string{"previous/check_old.1.log", "previous/old/deep.json", "previous/.execution_state", "check_new.2.log"},
			cleaned: true,
			want:    []string{"previous/", "previous/check_new.2.log"}},
		{name: "a file named previous is replaced",
			files: []string{"previous", "check_a.1.log"}, cleaned: true,
			want: []string{"previous/", "previous/check_a.1.log"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeDir(t, tc.files...)
			cleaned, err := Clean(dir, tc.includeState)
			if err != nil || cleaned != tc.cleaned {
				t.Fatalf("Clean = %v, %v; want %v", cleaned, err, tc.cleaned)
			}
			if got := tree(t, dir); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("after Clean:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestCleanKeepsContent(t *testing.T) {
	dir := makeDir(t, "check_a.1.log")
	if _, err := Clean(dir, false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, PreviousDir, "check_a.1.log"))
	if err != nil || string(data) != "content of check_a.1.log" {
		t.Errorf("archived file = %q, %v", data, err)
	}
}

func TestCleanMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	cleaned, err := Clean(dir, true)
	if cleaned || err != nil {
		t.Errorf("Clean(missing) = %v, %v", cleaned, err)
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
	if _, err := Clean(file, false); err == nil {
		t.Error("Clean on a file: no error")
	}
}

func TestHasLogs(t *testing.T) {
	for _, tc := range []struct {
		files []string
		want  bool
	}{
		{nil, false},
		{[]string{".execution_state", ".debug.log", ".gauntlet-run.lock", "previous/check_a.1.log"}, false},
		{[]string{"console.1.log"}, true},
		{[]string{"review_x_claude@1.2.json"}, true},
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
