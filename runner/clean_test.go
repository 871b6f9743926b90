package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
)

// Manual clean archives the logs and the state, records a manual CLEAN in
// the debug log, and respects a run in progress.
func TestClean(t *testing.T) {
	root := project(t, "exit 1", "debug_log:\n  enabled: true\n")
	if res := ExecuteRun(t.Context(), Options{Dir: root, Silent: true}); res.Status != StatusFailed {
		t.Fatalf("run %+v", res)
	}
	cfg, err := config.LoadProject(t.Context(), filepath.Join(root, "src"), config.ReadAll)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Clean(t.Context(), CleanOptions{Config: cfg})
	if err != nil || !res.Archived || res.LogDir != logDir(root) {
		t.Fatalf("Clean = %+v, %v", res, err)
	}
	for _, f := range []string{"console.1.log", ".execution_state"} {
		if _, err := os.Stat(filepath.Join(logDir(root), "previous", f)); err != nil {
			t.Error(err)
		}
	}
	debug, _ := os.ReadFile(filepath.Join(logDir(root), ".debug.log"))
	if !strings.Contains(string(debug), "] CLEAN type=manual reason=user_request\n") {
		t.Errorf("debug log:\n%s", debug)
	}
	if res, err := Clean(t.Context(), CleanOptions{Config: cfg}); err != nil || res.Archived {
		t.Errorf("second Clean = %+v, %v", res, err)
	}

	l, err := lock.Acquire(logDir(root))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	var held *lock.HeldError
	if _, err := Clean(t.Context(), CleanOptions{Config: cfg}); !errors.As(err, &held) {
		t.Errorf("Clean under a held lock: %v", err)
	}
}

// Without a project, clean archives gauntlet_logs of the directory, and
// creates nothing when it does not exist.
func TestCleanWithoutProject(t *testing.T) {
	dir := t.TempDir()
	if _, err := config.LoadProject(t.Context(), dir, config.ReadAll); !errors.Is(err, config.ErrNotFound) {
		t.Fatalf("LoadProject = %v", err)
	}
	res, err := Clean(t.Context(), CleanOptions{Dir: dir})
	if err != nil || res.Archived || res.LogDir != filepath.Join(dir, "gauntlet_logs") {
		t.Fatalf("Clean = %+v, %v", res, err)
	}
	if _, err := os.Stat(res.LogDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("log dir created: %v", err)
	}
}
