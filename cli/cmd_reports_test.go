package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// reportProject creates a git repository with a gauntlet configuration
// whose one check passes, plus an uncommitted change.
func reportProject(t *testing.T) string {
	t.Helper()
	testenv.Setenv(t)
	root := t.TempDir()
	files := map[string]string{
		".gauntlet/config.yml":      "base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: src\n    checks: [lint]\n",
		".gauntlet/checks/lint.yml": "command: \"true\"\n",
		".gitignore":                "gauntlet_logs/\n",
		"src/main.txt":              "main\n",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "src", "new.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// A report file inside the log directory or .gauntlet/ (directly, or
// through a symbolic link) is refused before anything runs.
func TestReportPaths(t *testing.T) {
	root := reportProject(t)
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
			paths := reportPaths{junit: tt.path}
			res := runner.ExecuteRun(context.Background(), runner.Options{Dir: root, Silent: true, Precheck: paths.precheck})
			if tt.err == "" {
				if res.ConfigErr != nil || res.Status != runner.StatusPassed {
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
