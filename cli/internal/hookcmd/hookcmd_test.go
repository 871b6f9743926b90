package hookcmd

import (
	"slices"
	"testing"
)

// TestFind is a corpus of hook commands as people and installers write them:
// each either starts the stop hook (with the program and arguments sh would
// pass) or does not, however often it names it.
func TestFind(t *testing.T) {
	cases := []struct {
		command string
		runs    bool
		program string
		runner  string
		args    []string
	}{
		{command: "agent-gauntlet stop-hook --agent claude --timeout 600", runs: true, program: "agent-gauntlet",
			args: []string{"--agent", "claude", "--timeout", "600"}},
		{command: "  agent-gauntlet   stop-hook\t--agent=codex ", runs: true, program: "agent-gauntlet", args: []string{"--agent=codex"}},
		{command: "/usr/local/bin/agent-gauntlet stop-hook", runs: true, program: "/usr/local/bin/agent-gauntlet", args: []string{}},
		{command: `"$CLAUDE_PROJECT_DIR/bin/agent-gauntlet" stop-hook --timeout 600`, runs: true,
			program: "$CLAUDE_PROJECT_DIR/bin/agent-gauntlet", args: []string{"--timeout", "600"}},
		{command: "'agent-gauntlet' 'stop-hook' --agent claude", runs: true, program: "agent-gauntlet", args: []string{"--agent", "claude"}},
		{command: "agent-gauntlet-go stop-hook --agent claude", runs: true, program: "agent-gauntlet-go", args: []string{"--agent", "claude"}},
		{command: "npx agent-gauntlet-go stop-hook --agent qwen", runs: true, program: "agent-gauntlet-go", runner: "npx",
			args: []string{"--agent", "qwen"}},
		{command: "npx -y agent-gauntlet-go@1.2.0 stop-hook", runs: true, program: "agent-gauntlet-go@1.2.0", runner: "npx", args: []string{}},
		{command: "pnpm dlx agent-gauntlet-go stop-hook", runs: true, program: "agent-gauntlet-go", runner: "pnpm", args: []string{}},
		{command: "cd \"$CLAUDE_PROJECT_DIR\" && agent-gauntlet stop-hook --agent claude 2>/dev/null", runs: true,
			program: "agent-gauntlet", args: []string{"--agent", "claude"}},
		{command: "agent-gauntlet stop-hook --agent claude 2>&1 >>/tmp/log", runs: true, program: "agent-gauntlet",
			args: []string{"--agent", "claude"}},
		{command: "GAUNTLET_STOP_HOOK_TIMEOUT=600 agent-gauntlet stop-hook", runs: true, program: "agent-gauntlet", args: []string{}},
		{command: "exec env FOO=1 agent-gauntlet stop-hook --timeout 9", runs: true, program: "agent-gauntlet", args: []string{"--timeout", "9"}},
		{command: `sh -c 'agent-gauntlet stop-hook --agent droid'`, runs: true, program: "agent-gauntlet", args: []string{"--agent", "droid"}},
		{command: "agent-gauntlet stop-hook --timeout 600 --timeout 9000", runs: true, program: "agent-gauntlet",
			args: []string{"--timeout", "600", "--timeout", "9000"}},
		{command: "agent-gauntlet stop-hook # --timeout 600", runs: true, program: "agent-gauntlet", args: []string{}},
		// Commands that never start it.
		{command: "# agent-gauntlet stop-hook --agent claude --timeout 600"},
		{command: "echo agent-gauntlet stop-hook --agent claude"},
		{command: "true || echo 'agent-gauntlet stop-hook'"},
		{command: "agent-gauntlet start-hook --agent claude"},
		{command: "agent-gauntlet run"},
		{command: "agent-gauntlet-hook stop-hook"},
		{command: "npx cowsay agent-gauntlet stop-hook"},
		{command: "printf '%s' \"agent-gauntlet stop-hook\""},
		{command: "agent-gauntlet 'stop-hook --agent claude'"},
		{command: "agent-gauntlet > stop-hook"},
	}
	for _, tc := range cases {
		inv, ok := Find(tc.command, "stop-hook")
		if ok != tc.runs {
			t.Errorf("Find(%q) runs = %t, want %t", tc.command, ok, tc.runs)
			continue
		}
		if !ok {
			continue
		}
		if inv.Program != tc.program || inv.Runner != tc.runner || !slices.Equal(inv.Args, tc.args) {
			t.Errorf("Find(%q) = %q via %q args %q, want %q via %q args %q", tc.command, inv.Program, inv.Runner, inv.Args,
				tc.program, tc.runner, tc.args)
		}
		if !Mentions(tc.command, "stop-hook") {
			t.Errorf("Mentions(%q) = false for a command that runs the hook", tc.command)
		}
	}
}

// FuzzFind: any command line is read without panicking, and a command
// found to start the hook is one that names it.
func FuzzFind(f *testing.F) {
	for _, s := range []string{"agent-gauntlet stop-hook --agent claude", "a 'b' \"c\\\"\" # d", "x 2>&1 | y && z; (w)", `"unterminated`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		inv, ok := Find(s, "stop-hook")
		if ok && inv.Hook != "stop-hook" {
			t.Fatalf("Find(%q) hook %q", s, inv.Hook)
		}
	})
}
