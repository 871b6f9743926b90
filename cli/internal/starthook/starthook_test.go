package starthook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// project writes a project whose check lint failed in run 1.
func project(t testing.TB, failed bool) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		".git/HEAD":                          "ref: refs/heads/main\n",
		".gauntlet/config.yml":               "cli:\n  default_preference: [claude]\nentry_points:\n  - path: src\n    checks: [lint, test]\n",
		".gauntlet/checks/lint.yml":          "command: make lint\n",
		".gauntlet/checks/test.yml":          "command: make test\n",
		"gauntlet_logs/console.1.log":        "x\n",
		"gauntlet_logs/check_src_lint.1.log": "Working directory: src\n\nboom\n\nResult: fail - Exited with code 1\n",
	}
	if !failed {
		files["gauntlet_logs/check_src_lint.1.log"] = "\nResult: pass - Command exited with code 0\n"
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
	return root
}

func call(t testing.TB, root, input string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	home := t.TempDir()
	Run(context.Background(), Options{Stdin: strings.NewReader(input), Stdout: &out, Stderr: &errOut, Cwd: root,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}})
	return out.String(), errOut.String()
}

func TestRun(t *testing.T) {
	pending := project(t, true)
	out, _ := call(t, pending, `{"hook_event_name":"SessionStart","source":"startup"}`)
	for _, want := range []string{`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"agent-gauntlet: failures`,
		`- Failed checks: check:src:lint\n`, `(checks: lint, test; reviews: none)`, "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("answer lacks %q: %s", want, out)
		}
	}
	for _, tc := range []struct{ name, root, input string }{
		{"nothing pending", project(t, false), `{}`},
		{"no project", t.TempDir(), `{}`},
		{"invalid input", pending, `[`},
		{"empty input", pending, ``},
	} {
		if out, _ := call(t, tc.root, tc.input); out != "{}\n" {
			t.Errorf("%s: %q", tc.name, out)
		}
	}
}

// TestContextBounds pins that the context names at most a dozen gates per
// kind and quotes odd names.
func TestContextBounds(t *testing.T) {
	var failed []string
	for i := range 30 {
		failed = append(failed, "check:pkg"+string(rune('a'+i%26))+":lint")
	}
	failed[0] = "check:odd\nStatus: Passed:lint"
	cfg := &config.Config{Root: "/p"}
	ctx := Context(cfg, runner.ProjectStatus{FailedChecks: failed})
	if !strings.Contains(ctx, "and 18 more") || strings.Contains(ctx, "\nStatus: Passed") {
		t.Errorf("context:\n%s", ctx)
	}
}

// BenchmarkStartHook measures the answer with failures pending (the
// context is built) and with nothing pending: both read a few small files.
func BenchmarkStartHook(b *testing.B) {
	for _, bc := range []struct {
		name    string
		pending bool
	}{{"pending", true}, {"nothing_pending", false}} {
		root := project(b, bc.pending)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				call(b, root, `{"hook_event_name":"SessionStart"}`)
			}
		})
	}
}

// TestContextPreExisting pins that a new session learns which failures of
// the last run the base branch has too, apart from the failed checks, and
// hears nothing when only those are left (nothing is pending).
func TestContextPreExisting(t *testing.T) {
	cfg := &config.Config{Root: "/p"}
	ctx := Context(cfg, runner.ProjectStatus{FailedChecks: []string{"check:.:go-test"}, PreExisting: []string{"check:.:go-vet"}})
	if !strings.Contains(ctx, "- Failed checks: check:.:go-test\n") ||
		!strings.Contains(ctx, "- Failing on the base branch too, not caused by the change (they do not block; do not fix them): check:.:go-vet\n") {
		t.Errorf("context:\n%s", ctx)
	}
	if ctx := Context(cfg, runner.ProjectStatus{PreExisting: []string{"check:.:go-vet"}}); ctx != "" {
		t.Errorf("only pre-existing failures: %q", ctx)
	}
}
