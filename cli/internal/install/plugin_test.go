package install

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
)

// pluginDir is the repository's Claude Code plugin (testdata/e2e/
// claude_plugin.txtar installs it with the real client).
var pluginDir = filepath.Join("..", "..", "..", "plugins", "agent-gauntlet")

// pluginScript is the command every hook of the plugin runs.
const pluginScript = "${CLAUDE_PLUGIN_ROOT}/scripts/agent-gauntlet-hook"

// TestPluginHooksAreTheInstalledOnes checks that the plugin's Stop and
// SessionStart hooks run, through its script, the commands and timeouts
// that `init --agent claude` writes into .claude/settings.json.
func TestPluginHooksAreTheInstalledOnes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(pluginDir, "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type    string
				Command string
				Timeout int
			}
		}
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("hooks.json: %v", err)
	}
	for _, tc := range []struct {
		hook    Hook
		timeout int
	}{{StopHook, DefaultTimeoutSeconds}, {StartHook, StartTimeoutSeconds}} {
		spec, ok := SpecForHook(hookproto.Claude, tc.hook)
		if !ok {
			t.Fatalf("no Claude spec for %s", tc.hook)
		}
		entries := cfg.Hooks[spec.Event]
		if len(entries) != 1 || len(entries[0].Hooks) != 1 {
			t.Fatalf("hooks.json: want one %s hook, got %+v", spec.Event, cfg.Hooks)
		}
		h := entries[0].Hooks[0]
		want := `"` + pluginScript + `" ` + strings.TrimPrefix(CommandFor(tc.hook, hookproto.Claude, tc.timeout), Program+" ")
		if h.Type != "command" || h.Command != want || h.Timeout != tc.timeout {
			t.Errorf("plugin %s hook = %+v, want command %q with timeout %d", spec.Event, h, want, tc.timeout)
		}
	}
	if len(cfg.Hooks) != 2 {
		t.Errorf("hooks.json: want Stop and SessionStart only, got %v", cfg.Hooks)
	}
}

// TestPluginScript runs the plugin's hook script: with agent-gauntlet on
// PATH it runs it with the hook's arguments, standard input and output;
// without, it answers one JSON line that lets the agent stop and says how to
// install agent-gauntlet, and exits 0.
func TestPluginScript(t *testing.T) {
	script, err := filepath.Abs(filepath.Join(pluginDir, "scripts", "agent-gauntlet-hook"))
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(script); err != nil || info.Mode().Perm()&0o111 == 0 {
		t.Fatalf("%s must be an executable file: %v", script, err)
	}
	run := func(path, stdin string, args ...string) (string, error) {
		if len(args) == 0 {
			args = []string{"stop-hook", "--agent", "claude"}
		}
		cmd := exec.Command(script, args...)
		cmd.Env = append(os.Environ(), "PATH="+path)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		return string(out), err
	}

	// without agent-gauntlet: fail open, one line
	empty := t.TempDir()
	out, err := run(empty, `{"hook_event_name":"Stop"}`)
	if err != nil {
		t.Fatalf("without agent-gauntlet: %v", err)
	}
	var answer struct{ Decision, SystemMessage string }
	if strings.Count(out, "\n") != 1 || json.Unmarshal([]byte(out), &answer) != nil {
		t.Fatalf("without agent-gauntlet: want one JSON line, got %q", out)
	}
	if answer.Decision != "approve" || !strings.Contains(answer.SystemMessage, "npm install -g agent-gauntlet-go") ||
		!strings.Contains(answer.SystemMessage, "go install github.com/agent-gauntlet/agent-gauntlet/cli/cmd/agent-gauntlet@latest") {
		t.Errorf("without agent-gauntlet: %s", out)
	}

	// without agent-gauntlet, the session-start hook adds nothing
	if out, err := run(empty, `{"hook_event_name":"SessionStart"}`, "start-hook", "--agent", "claude"); err != nil || out != "" {
		t.Errorf("start-hook without agent-gauntlet: %q, %v", out, err)
	}

	// with agent-gauntlet on PATH: it runs, with the arguments and stdin
	bin := t.TempDir()
	fake := "#!/bin/sh\nprintf 'args: %s\\n' \"$*\"\ncat\n"
	if err := os.WriteFile(filepath.Join(bin, Program), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err = run(bin+string(os.PathListSeparator)+os.Getenv("PATH"), "the input\n")
	if err != nil || out != "args: stop-hook --agent claude\nthe input\n" {
		t.Errorf("with agent-gauntlet: %q, %v", out, err)
	}
}
