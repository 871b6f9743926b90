//go:build unix

package reliability

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// maxPeakRSS bounds the peak resident memory of one agent-gauntlet process
// (and of its waited-for children, which getrusage folds in as a maximum)
// while a check prints outputSize bytes.
const (
	maxPeakRSS = 100 << 20
	outputSize = 100 << 20
)

// TestLargeOutputBoundedMemory runs a check that prints 100 MB: failing
// (run), failing again in verification mode (the second run reads the
// first run's logs), and through the stop hook, which blocks and builds its
// instructions. The peak RSS of each process stays under 100 MiB: output
// goes to the log file, and what of it is parsed is bounded. The output is
// plain lines (read as text, streamed) or go test -v's (whose parser holds
// it, up to the bound). It asserts on memory only, never on time.
func TestLargeOutputBoundedMemory(t *testing.T) {
	for _, tt := range []struct {
		name, command string
		files         map[string]string
		exec          string // a file to make executable
	}{
		// 100 MB of 64-byte lines on stdout and a little on stderr, then fail.
		{"plain", "sh loud.sh", map[string]string{
			"loud.sh": "yes 'loud check output: padding padding padding padding padding' | head -c " +
				strconv.Itoa(outputSize) + "\necho 'loud check: failing' >&2\nexit 1\n",
		}, ""},
		// A stand-in for go, so that the command is read as go test's.
		{"go test -v", "bin/go test -v ./...", map[string]string{
			"bin/go": "#!/bin/sh\nyes \"$(printf '=== RUN   TestX\\n    x_test.go:12: a line the test logs\\n--- PASS: TestX (0.00s)')\" | head -c " +
				strconv.Itoa(outputSize) + "\nexit 1\n",
		}, "bin/go"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{
				".gauntlet/config.yml": "base_branch: main\ncli:\n  default_preference: [claude]\nmax_retries: 5\n" +
					"stop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: src\n    checks: [loud]\n",
				".gauntlet/checks/loud.yml": "command: " + tt.command + "\nworking_directory: .\n",
				".gitignore":                "gauntlet_logs/\n",
				"src/main.txt":              "hello\n",
			}
			for name, content := range tt.files {
				files[name] = content
			}
			s := newSandbox(t, "", files)
			if tt.exec != "" {
				if err := os.Chmod(filepath.Join(s.repo, tt.exec), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			s.write(map[string]string{"src/new.txt": "a change\n"})
			runLoud(t, s)
		})
	}
}

// runLoud runs the gauntlet three times in s, whose check prints
// outputSize bytes and fails, and checks the peak RSS of each process.
func runLoud(t *testing.T, s *sandbox) {
	for i, step := range []struct {
		name  string
		args  []string
		stdin string
		log   string // the check log this step writes
	}{
		{"first run", []string{"run"}, "", "check_src_loud.1.log"},
		{"verification run", []string{"run"}, "", "check_src_loud.2.log"},
		{"stop hook", []string{"stop-hook"}, `{"hook_event_name":"Stop","stop_hook_active":false}` + "\n", "check_src_loud.3.log"},
	} {
		r := s.run(step.stdin, step.args...)
		noGoDump(t, step.name, r.stdout+r.stderr)
		if r.waitErr != nil {
			t.Fatalf("%s: %v", step.name, r)
		}
		if step.args[0] == "run" && r.code != 1 {
			t.Errorf("%s: want exit 1 (the check fails):\n%v", step.name, r)
		}
		if step.args[0] == "stop-hook" {
			if a, err := parseHookAnswer(r.stdout); err != nil || a.Decision != "block" || a.Status != "failed" {
				t.Errorf("%s: want one block line with status failed: %v\n%v", step.name, err, r)
			}
		}
		fi, err := os.Stat(filepath.Join(s.logDir(), step.log))
		if err != nil || fi.Size() < outputSize {
			t.Errorf("%s (step %d): log %s holds %v bytes (%v), want the whole %d-byte output", step.name, i, step.log, sizeOf(fi), err, outputSize)
		}
		t.Logf("%s: peak RSS %.1f MiB", step.name, float64(r.maxRSS)/(1<<20))
		if r.maxRSS <= 0 {
			t.Errorf("%s: no peak RSS reported", step.name)
		}
		if r.maxRSS > maxPeakRSS {
			t.Errorf("%s: peak RSS %.1f MiB, want under %d MiB", step.name, float64(r.maxRSS)/(1<<20), maxPeakRSS>>20)
		}
	}
}

func sizeOf(fi os.FileInfo) int64 {
	if fi == nil {
		return -1
	}
	return fi.Size()
}
