package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// awkward are file names that mean something to a shell or a program.
var awkward = []string{
	"plain.go", "with space.go", "it's.go", `dq"uote.go`, "$(touch pwned).go", "`touch pwned`.go",
	"-rf", "--help", "new\nline.go", "semi;colon.go", "back\\slash.go", "glob*.go", "tab\there.go",
	"dollar$HOME.go", "é-unicode.go", "a'b'c", "'", "",
}

// Quote gives a word sh reads back as the same string, whatever it holds.
func TestQuoteRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range awkward {
		cmd := `printf '%s' ` + Quote(name)
		out, err := exec.Command("sh", "-c", cmd).Output()
		if err != nil || string(out) != name {
			t.Errorf("sh -c %q printed %q (%v), want %q", cmd, out, err, name)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "pwned*")); len(m) > 0 {
		t.Errorf("a quoted name ran a command: %v", m)
	}
}

func TestRelFiles(t *testing.T) {
	for _, tc := range []struct {
		wd    string
		files []string
		want  []string
	}{
		{".", []string{"a.go", "-x.go", "sub/b.go"}, []string{"a.go", "./-x.go", "sub/b.go"}},
		{"sub", []string{"sub/b.go", "sub/-c", "a.go", "other/d.go"}, []string{"b.go", "./-c", "../a.go", "../other/d.go"}},
		{"a/b", []string{"a/b/c.go", "a/x.go", "z.go", "a/bb/y.go"}, []string{"c.go", "../x.go", "../../z.go", "../bb/y.go"}},
		{".", []string{}, []string{}},
		{".", nil, nil},
	} {
		if got := RelFiles(tc.wd, tc.files); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("RelFiles(%q, %q) = %q, want %q", tc.wd, tc.files, got, tc.want)
		}
	}
}

func TestBatches(t *testing.T) {
	files := []string{"aaaa", "bbbb", "cccc", "dddd", "e e"}
	for _, tc := range []struct {
		cmd  string
		max  int
		want [][]string
	}{
		{"lint", 10, [][]string{files}},
		{"x ${CHANGED_FILES}", 1000, [][]string{files}},
		// "x " + "aaaa bbbb" = 11 bytes; a third file would make 16.
		{"x ${CHANGED_FILES}", 12, [][]string{{"aaaa", "bbbb"}, {"cccc", "dddd"}, {"e e"}}},
		// Two placeholders count twice.
		{"x ${CHANGED_FILES} ${CHANGED_FILES}", 12, [][]string{{"aaaa"}, {"bbbb"}, {"cccc"}, {"dddd"}, {"e e"}}},
		// A file longer than the budget still gets a batch of its own.
		{"x ${CHANGED_FILES}", 3, [][]string{{"aaaa"}, {"bbbb"}, {"cccc"}, {"dddd"}, {"e e"}}},
	} {
		got := Batches(tc.cmd, files, tc.max)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Batches(%q, max %d) = %q, want %q", tc.cmd, tc.max, got, tc.want)
		}
		for _, b := range got {
			if s := Replace(tc.cmd, b); len(s) > tc.max && len(b) > 1 {
				t.Errorf("batch %q makes %d bytes, over %d", b, len(s), tc.max)
			}
		}
	}
	if got := Batches("x ${CHANGED_FILES}", nil, 10); !reflect.DeepEqual(got, [][]string{nil}) {
		t.Errorf("no files: %q", got)
	}
}

// execIn runs x in a fresh directory with a fresh log and returns the
// outcome and the log's text.
func execIn(t *testing.T, x Exec) (Outcome, string) {
	t.Helper()
	dir := t.TempDir()
	f, err := os.OpenFile(filepath.Join(dir, "log"), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if x.Dir == "" {
		x.Dir = dir
	}
	x.Log = f
	out := x.Run(context.Background())
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, s := range out.Output {
		want.Write(b[s.Off : s.Off+s.Len])
	}
	all, err := io.ReadAll(out.OutputReader(f))
	if err != nil || string(all) != want.String() || strings.Contains(string(all), "--- Batch") {
		t.Errorf("the output spans %v do not read back the commands' output (%v): %q", out.Output, err, all)
	}
	return out, string(b)
}

// Every awkward name reaches the program as one argument, unchanged, and
// through the NUL-separated list file too.
func TestExecPassesFilesAsData(t *testing.T) {
	names := slices.DeleteFunc(slices.Clone(awkward), func(s string) bool { return s == "" })
	files := RelFiles(".", names)
	cmd := `for f in ${CHANGED_FILES}; do printf '<%s>' "$f"; done; echo; tr '\0' '|' < "$GAUNTLET_CHANGED_FILES_FILE"`
	out, log := execIn(t, Exec{Command: cmd, Files: files})
	if out.Status != gate.StatusPass || out.Batches != 1 {
		t.Fatalf("outcome %+v\n%s", out, log)
	}
	var args, list strings.Builder
	for _, f := range files {
		fmt.Fprintf(&args, "<%s>", f)
		list.WriteString(f + "|")
	}
	if !strings.Contains(log, args.String()+"\n"+list.String()) {
		t.Errorf("log:\n%s\nwant the arguments %q and the list %q", log, args.String(), list.String())
	}
	if strings.Contains(log, "./-rf") == false {
		t.Errorf("a name with a leading dash is not ./-prefixed:\n%s", log)
	}
}

// Batches run one after another into the same log; one failing batch
// fails the check, the others still run.
func TestExecBatches(t *testing.T) {
	var files []string
	for i := range 30 {
		files = append(files, fmt.Sprintf("file-%02d.txt", i))
	}
	cmd := `echo "batch $# files: $*"; case " $* " in *" file-13.txt "*) echo "file-13.txt:1: error: bad"; exit 3;; esac; echo ok ${CHANGED_FILES}`
	cmd = `sh -c '` + strings.ReplaceAll(cmd, "'", `'\''`) + `' sh ${CHANGED_FILES}`
	out, log := execIn(t, Exec{Command: cmd, Files: files, MaxScript: len(cmd) + 100})
	if out.Batches < 3 || out.Status != gate.StatusFail || out.ExitCode != 3 || out.Message != "Exited with code 3" {
		t.Fatalf("outcome %+v\n%s", out, log)
	}
	if n := strings.Count(log, "--- Batch "); n != out.Batches {
		t.Errorf("%d batch lines for %d batches", n, out.Batches)
	}
	for _, f := range files {
		if strings.Count(log, f) < 1 {
			t.Errorf("%s never reached the command", f)
		}
	}
	if !strings.Contains(log, fmt.Sprintf("--- Batch %d of %d", out.Batches, out.Batches)) {
		t.Errorf("the batches after the failing one did not run:\n%s", log)
	}
}

// The timeout covers every batch together.
func TestExecTimeoutCoversAllBatches(t *testing.T) {
	files := []string{"a", "b", "c", "d", "e", "f"}
	start := time.Now()
	out, log := execIn(t, Exec{Command: "sleep 0.2; echo ${CHANGED_FILES}", Files: files, MaxScript: 20, Timeout: 500 * time.Millisecond})
	if !out.TimedOut || out.Status != gate.StatusFail || out.Message != "Timed out after 0.5s" {
		t.Fatalf("outcome %+v\n%s", out, log)
	}
	if out.Batches >= len(files) {
		t.Errorf("all %d batches ran within a timeout shorter than them:\n%s", out.Batches, log)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// The limit batching keeps under is real: one argument over Linux's
// MAX_ARG_STRLEN cannot be passed, while the batches of the same list run.
func TestExecBatchesOverTheRealLimit(t *testing.T) {
	var files []string
	for i := range 3000 {
		files = append(files, fmt.Sprintf("some/rather/long/directory/name/file-number-%05d.go", i))
	}
	cmd := `printf '%s\n' ${CHANGED_FILES} | wc -l`
	script := Replace(cmd, files)
	if len(script) <= MaxScriptBytes {
		t.Fatalf("the list is too short to need batches: %d bytes", len(script))
	}
	err := exec.Command("sh", "-c", script).Run()
	if !errors.Is(err, syscall.E2BIG) && runtime.GOOS == "linux" {
		t.Errorf("one %d-byte argument: %v (want E2BIG: argument list too long)", len(script), err)
	}
	out, log := execIn(t, Exec{Command: cmd, Files: files})
	if out.Status != gate.StatusPass || out.Batches < 2 {
		t.Fatalf("outcome %+v\n%s", out, log)
	}
	total := 0
	for _, l := range strings.Split(log, "\n") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(l), &n); err == nil && !strings.HasPrefix(l, "---") {
			total += n
		}
	}
	if total != len(files) {
		t.Errorf("the batches saw %d files, want %d:\n%s", total, len(files), log)
	}
}

// Run passes a job's changed files relative to its working directory, and
// a judge sees a failure before the result line.
func TestRunJudged(t *testing.T) {
	e := env(t)
	j := job(`printf '%s\n' ${CHANGED_FILES}; exit 2`, func(c *config.Check) { c.Glob = []string{"*.go"} })
	j.Changed = []string{"sub dir/a.go", "top.go"}
	for _, f := range []string{"sub dir/a.go", "top.go"} {
		if err := os.WriteFile(filepath.Join(e.Root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var seen Failure
	res := RunJudged(context.Background(), j, e, func(_ context.Context, f Failure) Judgement {
		seen = f
		fmt.Fprintln(f.Log, "judged")
		return Judgement{Status: gate.StatusPreExisting, Message: "pre-existing", Baseline: &gate.Baseline{PreExisting: true}}
	})
	if res.Status != gate.StatusPreExisting || res.ErrorCount != 0 || res.Baseline == nil {
		t.Errorf("result %+v", res)
	}
	if seen.Outcome.ExitCode != 2 || seen.Dir != filepath.Join(e.Root, "sub dir") {
		t.Errorf("failure %+v", seen)
	}
	b, _ := os.ReadFile(res.LogPath)
	log := string(b)
	for _, want := range []string{"Changed files: 2\n", "a.go\n../top.go\n", "judged\n", "\nResult: pre_existing - pre-existing\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if LastResult(res.LogPath) != string(gate.StatusPreExisting) {
		t.Errorf("LastResult = %q", LastResult(res.LogPath))
	}
}

// Only a check scoped to the changed files is given them: one whose
// command names neither ${CHANGED_FILES} nor GAUNTLET_CHANGED_FILES_FILE
// and that has no glob gets no list (nil), whatever the run's changes.
func TestGivenFiles(t *testing.T) {
	files := []string{"src/a.go", "src/-x.go"}
	for _, tc := range []struct {
		name    string
		command string
		glob    []string
		want    []string
	}{
		{"names nothing", "make test", nil, nil},
		{"a lookalike the shell expands", "lint $CHANGED_FILES", nil, nil},
		{"${CHANGED_FILES}", "lint ${CHANGED_FILES}", nil, []string{"a.go", "./-x.go"}},
		{"the list file", `xargs -0 lint < "$GAUNTLET_CHANGED_FILES_FILE"`, nil, []string{"a.go", "./-x.go"}},
		{"a glob", "make test", []string{"*.go"}, []string{"a.go", "./-x.go"}},
	} {
		job := gate.Job{Kind: gate.KindCheck, WorkingDir: "src", Check: &config.Check{Command: tc.command, Glob: tc.glob}}
		if got := GivenFiles(job, files); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
