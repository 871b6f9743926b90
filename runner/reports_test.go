package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogTail(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := strings.Repeat("x", 100) + "\n" + "a\nb\n"
	tests := []struct {
		name            string
		path            string
		lines, maxBytes int
		want            string
	}{
		{"last lines", write("a.log", "1\n2\n3\n4\n"), 2, 1000, "3\n4"},
		{"whole short file", write("b.log", "only\n"), 5, 1000, "only"},
		{"byte bound drops the cut line", write("c.log", long), 10, 10, "a\nb"},
		{"ANSI codes and invalid UTF-8", write("d.log", "\x1b[31mred\x1b[0m \xff\n"), 5, 1000, "red \uFFFD"},
		{"missing file", filepath.Join(dir, "none.log"), 5, 1000, ""},
		{"a directory", dir, 5, 1000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LogTail(tt.path, tt.lines, tt.maxBytes); got != tt.want {
				t.Errorf("LogTail = %q, want %q", got, tt.want)
			}
		})
	}
}

// A report file inside the log directory or .gauntlet/ (directly, or
// through a symbolic link) is refused before anything runs.
func TestReportPaths(t *testing.T) {
	root := project(t, `"true"`, "")
	outside := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "gauntlet_logs"), filepath.Join(outside, "logs")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, err string
	}{
		{"outside the project", filepath.Join(outside, "junit.xml"), ""},
		{"in the project", filepath.Join(root, "reports", "junit.xml"), ""},
		{"in the log directory", filepath.Join(root, "gauntlet_logs", "junit.xml"), "is in the log directory"},
		{"in a new directory below the log directory", filepath.Join(root, "gauntlet_logs", "r", "x.sarif"), "is in the log directory"},
		{"through a link to the log directory", filepath.Join(outside, "logs", "junit.xml"), "is in the log directory"},
		{"in .gauntlet", filepath.Join(root, ".gauntlet", "config.yml"), "is in the configuration directory"},
		{"a directory", outside, "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ExecuteRun(context.Background(), Options{Dir: root, Silent: true, Reports: []string{tt.path}})
			if tt.err == "" {
				if res.ConfigErr != nil || res.Status != StatusPassed {
					t.Fatalf("result %+v", res)
				}
				return
			}
			if res.ConfigErr == nil || !strings.Contains(res.ConfigErr.Error(), tt.err) || res.GatesRun != 0 {
				t.Fatalf("result %+v, want an error containing %q", res, tt.err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "gauntlet_logs", "r")); !os.IsNotExist(err) {
		t.Errorf("a refused report path was created (%v)", err)
	}
}
