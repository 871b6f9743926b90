package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Pending reads the gauntlet's own records: a failed check stays pending
// when its log, the console log and the execution state are deleted; a
// configuration read without its gate files leaves nothing out; Describe
// names it; a pass settles it.
func TestPendingFromTheRecords(t *testing.T) {
	root := project(t, "test -f ok", "")
	ctx := context.Background()
	if res := ExecuteRun(ctx, Options{Dir: root, Silent: true}); res.Status != StatusFailed {
		t.Fatalf("first run: %+v", res)
	}
	logDir := filepath.Join(root, config.DefaultLogDir)
	if err := os.RemoveAll(logDir); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadProject(ctx, root, config.ReadGates)
	if err != nil {
		t.Fatal(err)
	}
	p := Pending(ctx, cfg, time.Now())
	if p.Empty() || strings.Join(p.Checks, ",") != "check:src:lint" || !strings.Contains(p.Describe(), "check:src:lint failed") {
		t.Errorf("Pending after the log directory was deleted = %+v (%q)", p, p.Describe())
	}
	if !strings.HasSuffix(p.Record, ".json") || !strings.Contains(p.Record, filepath.Join(".git", "agent-gauntlet", "verdicts")) {
		t.Errorf("Record = %q", p.Record)
	}
	settings, err := config.LoadProject(ctx, root, config.ReadSettings)
	if err != nil {
		t.Fatal(err)
	}
	if p := Pending(ctx, settings, time.Now()); strings.Join(p.Checks, ",") != "check:src:lint" {
		t.Errorf("Pending of a settings-only configuration = %+v", p)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "ok"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := ExecuteRun(ctx, Options{Dir: root, Silent: true}); res.Status != StatusPassed {
		t.Fatalf("passing run: %+v", res)
	}
	if p := Pending(ctx, cfg, time.Now()); !p.Empty() || p.Describe() != "" {
		t.Errorf("Pending after a pass = %+v", p)
	}
}

// The retry budget is the agent's: runs by hand never spend it nor are
// refused by it, the stop hook's runs (Options.Agent) do and are.
func TestBudgetIsTheAgents(t *testing.T) {
	root := project(t, "test -f ok", "max_retries: 1\n")
	ctx := context.Background()
	cfg, err := config.LoadProject(ctx, root, config.ReadGates)
	if err != nil {
		t.Fatal(err)
	}
	left := func() int { return Status(ctx, cfg, func(string) string { return "" }, time.Now()).Run.Left }
	for i := range 3 {
		if res := ExecuteRun(ctx, Options{Dir: root, Silent: true}); res.Status != StatusFailed {
			t.Fatalf("run %d by hand: %s", i+1, res.Status)
		}
	}
	if n := left(); n != 2 {
		t.Fatalf("runs by hand left %d of 2 runs", n)
	}
	agent := Options{Dir: root, Silent: true, Agent: true, SessionID: "s1"}
	for i, want := range []GauntletStatus{StatusFailed, StatusRetryLimitExceeded, StatusRetryLimitExceeded} {
		if res := ExecuteRun(ctx, agent); res.Status != want {
			t.Fatalf("agent's run %d: %s, want %s", i+1, res.Status, want)
		}
	}
	if n := left(); n != 0 {
		t.Errorf("the agent has %d runs left after the limit", n)
	}
	if res := ExecuteRun(ctx, Options{Dir: root, Silent: true}); res.Status != StatusFailed {
		t.Errorf("a run by hand at the agent's limit: %s", res.Status)
	}
}
