package cli

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// BenchmarkGrammar compares what Kong costs at each start for the whole
// CLI and for the one-command grammar of the stop hook.
func BenchmarkGrammar(b *testing.B) {
	for _, args := range [][]string{{"run"}, {"stop-hook"}} {
		b.Run(args[0], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p, err := kong.New(grammar(args), kongVars("x"), kong.Writers(io.Discard, io.Discard))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.Parse(args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The stop-hook grammar is the CLI's own stop-hook command: same flags,
// same help, and it runs the hook.
func TestStopHookGrammar(t *testing.T) {
	var out, errOut strings.Builder
	env := &Env{Ctx: context.Background(), Stdin: strings.NewReader(`{"stop_hook_active":true}`), Stdout: &out, Stderr: &errOut,
		Getenv: func(string) string { return "" }, Cwd: t.TempDir()}
	if code := run(env, []string{"stop-hook", "--agent", "claude", "--timeout", "600"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), `"status":"stop_hook_active"`) {
		t.Fatalf("stdout %q", out.String())
	}
	out.Reset()
	env.Stdin = strings.NewReader("")
	if code := run(env, []string{"stop-hook", "--help"}); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, want := range []string{"Usage: agent-gauntlet stop-hook", "--agent", "--timeout"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stop-hook --help lacks %q:\n%s", want, out.String())
		}
	}
}

// An agent may delete the directory it stands in; its stop hook must still
// answer with one JSON line and exit 0.
func TestStopHookFromDeletedDir(t *testing.T) {
	gone := t.TempDir() + "/gone"
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	code := Main(context.Background(), []string{"stop-hook"}, strings.NewReader(`{"stop_hook_active":false}`), &out, &errOut)
	if code != 0 || !strings.HasPrefix(out.String(), `{"decision":"approve","status":"no_config"`) || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	// Other commands need the directory and say so.
	if code := Main(context.Background(), []string{"list"}, strings.NewReader(""), &out, &errOut); code == 0 {
		t.Fatalf("list from a deleted directory exited 0")
	}
}

// TestHookGrammars pins that every hook command's one-command grammar is
// made of a field of CLI (a renamed field would otherwise panic at start).
func TestHookGrammars(t *testing.T) {
	for name := range hookFields {
		if _, err := kong.New(grammar([]string{name}), kongVars("x"), kong.Writers(io.Discard, io.Discard)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
