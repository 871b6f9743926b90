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

// TestPluginStopHookIsTheInstalledOne checks that the plugin's Stop hook
// runs, through its script, the command and timeout that `init --agent
// claude` writes into .claude/settings.json.
func TestPluginStopHookIsTheInstalledOne(t *testing.T) {
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
	spec, _ := SpecFor(hookproto.Claude)
	stop := cfg.Hooks[spec.Event]
	if len(stop) != 1 || len(stop[0].Hooks) != 1 {
		t.Fatalf("hooks.json: want one %s hook, got %+v", spec.Event, cfg.Hooks)
	}
	h := stop[0].Hooks[0]
	want := `"` + pluginScript + `" ` + strings.TrimPrefix(Command(hookproto.Claude, DefaultTimeoutSeconds), Program+" ")
	if h.Type != "command" || h.Command != want || h.Timeout != DefaultTimeoutSeconds {
		t.Errorf("plugin Stop hook = %+v, want command %q with timeout %d", h, want, DefaultTimeoutSeconds)
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
	run := func(path, stdin string) (string, error) {
		cmd := exec.Command(script, "stop-hook", "--agent", "claude")
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
