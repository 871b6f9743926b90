package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// TestRunReadsFindings: a failed check's result carries what its output
// reported, in the format it names, and its log lists it.
func TestRunReadsFindings(t *testing.T) {
	e := env(t)
	j := job(`printf 'a.go:3:2: unreachable code\na.go:9:1: unreachable code\n'; exit 1`, func(c *config.Check) { c.Format = "govet" })
	res := Run(context.Background(), j, e)
	if res.Findings == nil || len(res.Findings.Failing()) != 2 {
		t.Fatalf("findings %+v", res.Findings)
	}
	if f := res.Findings.Findings[1]; f.File != "sub dir/a.go" || f.Line != 9 || f.Message != "unreachable code" {
		t.Errorf("finding %+v", f)
	}
	b, _ := os.ReadFile(res.LogPath)
	if !strings.Contains(string(b), FindingsHeader+"\nRead as govet: 2 to fix.\n  sub dir/a.go:3:2: error: unreachable code\n") {
		t.Errorf("log:\n%s", b)
	}
}

// TestRunJUnitStale: a JUnit report older than the run is not read as the
// run's: the result says so.
func TestRunJUnitStale(t *testing.T) {
	e := env(t)
	old := filepath.Join(e.Root, "sub dir", "report.xml")
	if err := os.WriteFile(old, []byte(`<testsuite><testcase name="t"/></testsuite>`), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	j := job(`exit 1`, func(c *config.Check) { c.JUnit = "report.xml" })
	res := Run(context.Background(), j, e)
	if res.Findings == nil || !strings.Contains(res.Findings.Problem, "not written by this run") {
		t.Fatalf("findings %+v", res.Findings)
	}
	j = job(`printf '<testsuite><testcase classname="c" name="t"><failure message="boom"/></testcase></testsuite>' > report.xml; exit 1`,
		func(c *config.Check) { c.JUnit = "report.xml" })
	res = Run(context.Background(), j, e)
	if res.Findings == nil || res.Findings.Problem != "" || len(res.Findings.Failing()) != 1 ||
		res.Findings.Failing()[0].Status != findings.StatusFailed {
		t.Fatalf("findings %+v", res.Findings)
	}
}
