package install

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/jsonobj"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// wantFresh is the file each agent gets in an empty project.
var wantFresh = map[hookproto.Agent]string{
	hookproto.Claude: `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "agent-gauntlet stop-hook --agent claude --timeout 600",
            "timeout": 600
          }
        ]
      }
    ]
  }
}
`,
	hookproto.Codex: `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "agent-gauntlet stop-hook --agent codex --timeout 600",
            "timeout": 600
          }
        ]
      }
    ]
  }
}
`,
	hookproto.Gemini: `{
  "hooks": {
    "AfterAgent": [
      {
        "hooks": [
          {
            "type": "command",
            "name": "agent-gauntlet",
            "command": "agent-gauntlet stop-hook --agent gemini --timeout 600",
            "timeout": 600000
          }
        ]
      }
    ]
  }
}
`,
	hookproto.Cursor: `{
  "version": 1,
  "hooks": {
    "stop": [
      {
        "command": "agent-gauntlet stop-hook --agent cursor --timeout 600",
        "timeout": 600,
        "loop_limit": 5
      }
    ]
  }
}
`,
	hookproto.Copilot: `{
  "version": 1,
  "hooks": {
    "agentStop": [
      {
        "type": "command",
        "bash": "agent-gauntlet stop-hook --agent copilot --timeout 600",
        "powershell": "agent-gauntlet stop-hook --agent copilot --timeout 600",
        "timeoutSec": 600
      }
    ]
  }
}
`,
	hookproto.Qwen: `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "agent-gauntlet stop-hook --agent qwen --timeout 600",
            "timeout": 600
          }
        ]
      }
    ]
  }
}
`,
	// Factory Droid's hooks.json has the events at the top level.
	hookproto.Droid: `{
  "Stop": [
    {
      "hooks": [
        {
          "type": "command",
          "command": "agent-gauntlet stop-hook --agent droid --timeout 600",
          "timeout": 600
        }
      ]
    }
  ]
}
`,
}

// TestInstallTimeoutReadsBack: the timeout written into each agent's file
// is the one its client reads, whatever the unit (Qwen Code reads 1000 and
// more as milliseconds, Gemini CLI always).
func TestInstallTimeoutReadsBack(t *testing.T) {
	for _, spec := range Specs() {
		for _, seconds := range []int{30, 600, 999, 1000, 3600} {
			root := t.TempDir()
			if _, err := Install(root, spec.Agent, Options{TimeoutSeconds: seconds}); err != nil {
				t.Fatal(err)
			}
			st := Check(root, spec.Agent, "")
			if !st.Installed || st.Timeout != time.Duration(seconds)*time.Second {
				t.Errorf("%s: %d s installed, the client reads %s (%+v)", spec.Agent, seconds, st.Timeout, st)
			}
		}
	}
}

func TestInstallFresh(t *testing.T) {
	for _, spec := range Specs() {
		t.Run(string(spec.Agent), func(t *testing.T) {
			root := t.TempDir()
			res, err := Install(root, spec.Agent, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Added || res.Path != filepath.Join(root, spec.Path) {
				t.Errorf("result = %+v", res)
			}
			got, err := os.ReadFile(res.Path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != wantFresh[spec.Agent] {
				t.Errorf("file =\n%s\nwant\n%s", got, wantFresh[spec.Agent])
			}
			// Never twice.
			again, err := Install(root, spec.Agent, Options{TimeoutSeconds: 30})
			if err != nil || again.Added || again.Command != res.Command {
				t.Errorf("second install = %+v, %v", again, err)
			}
			if after, _ := os.ReadFile(res.Path); string(after) != string(got) {
				t.Errorf("second install changed the file:\n%s", after)
			}
			st := Check(root, spec.Agent, "")
			if !st.Installed || st.Path != res.Path || st.Err != nil || st.Command != res.Command {
				t.Errorf("Check = %+v", st)
			}
		})
	}
}

func TestInstallMergesKeepingKeysAndOrder(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ".claude", "settings.json")
	existing := `{
  "permissions": {"allow": ["Bash(go test:*)"], "deny": []},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre && true"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "env": {"A": "1"},
  "model": "opus"
}
`
	writeTestFile(t, path, existing)
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(root, hookproto.Claude, Options{TimeoutSeconds: 300}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := `{
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ],
    "deny": []
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "echo pre && true"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      },
      {
        "hooks": [
          {
            "type": "command",
            "command": "agent-gauntlet stop-hook --agent claude --timeout 300",
            "timeout": 300
          }
        ]
      }
    ]
  },
  "env": {
    "A": "1"
  },
  "model": "opus"
}
`
	if string(got) != want {
		t.Errorf("merged =\n%s\nwant\n%s", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
}

func TestInstallRefusesUnparseable(t *testing.T) {
	for name, content := range map[string]string{
		"syntax":        `{"hooks": {"Stop": [}`,
		"array":         `[1, 2]`,
		"hooks string":  `{"hooks": "none"}`,
		"stop object":   `{"hooks": {"Stop": {"command": "x"}}}`,
		"trailing data": `{} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, ".claude", "settings.json")
			writeTestFile(t, path, content)
			_, err := Install(root, hookproto.Claude, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || strings.Contains(msg, "\n") {
				t.Errorf("error %q does not name %s on one line", msg, path)
			}
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Errorf("file changed: %s", got)
			}
			if st := Check(root, hookproto.Claude, ""); st.Err == nil || st.Installed {
				t.Errorf("Check = %+v", st)
			}
		})
	}
}

func TestInstallRecognisesExistingCommands(t *testing.T) {
	for _, cmd := range []string{
		"agent-gauntlet stop-hook",
		"/usr/local/bin/agent-gauntlet stop-hook --agent claude",
		`"agent-gauntlet" stop-hook`,
	} {
		root := t.TempDir()
		path := filepath.Join(root, ".claude", "settings.json")
		content := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":` + quote(cmd) + `,"timeout":300}]}]}}`
		writeTestFile(t, path, content)
		res, err := Install(root, hookproto.Claude, Options{})
		if err != nil || res.Added || res.Command != cmd {
			t.Errorf("%s: Install = %+v, %v", cmd, res, err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("%s: file changed", cmd)
		}
	}
	if isGauntletCommand("agent-gauntlet run", StopHook) || isGauntletCommand("echo agent-gauntlet", StopHook) || isGauntletCommand("agent-gauntlet stop-hook", StartHook) {
		t.Error("isGauntletCommand matches other commands")
	}
}

func TestCheckLegacyLocalSettingsAndOverride(t *testing.T) {
	root := t.TempDir()
	st := Check(root, hookproto.Claude, "")
	if st.Installed || st.Err != nil || st.Path != filepath.Join(root, ".claude", "settings.json") {
		t.Errorf("empty project: %+v", st)
	}
	local := filepath.Join(root, ".claude", "settings.local.json")
	writeTestFile(t, local, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"agent-gauntlet stop-hook","timeout":300}]}]}}`)
	if st := Check(root, hookproto.Claude, ""); !st.Installed || st.Path != local {
		t.Errorf("legacy: %+v", st)
	}
	if res, err := Install(root, hookproto.Claude, Options{}); err != nil || res.Added || res.Path != local {
		t.Errorf("install over legacy = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".claude", "settings.json")); !os.IsNotExist(err) {
		t.Errorf("settings.json written next to the legacy hook: %v", err)
	}
	custom := filepath.Join(t.TempDir(), "custom.json")
	res, err := Install(root, hookproto.Claude, Options{Path: custom})
	if err != nil || !res.Added || res.Path != custom {
		t.Fatalf("override install = %+v, %v", res, err)
	}
	if st := Check(root, hookproto.Claude, custom); !st.Installed || st.Path != custom {
		t.Errorf("override check: %+v", st)
	}
}

func TestParseAgents(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []hookproto.Agent
	}{
		{nil, nil},
		{[]string{"codex", "claude"}, []hookproto.Agent{hookproto.Claude, hookproto.Codex}},
		{[]string{"gemini,cursor", " copilot "}, []hookproto.Agent{hookproto.Gemini, hookproto.Cursor, hookproto.Copilot}},
		{[]string{"all", "claude"}, hookproto.Agents},
	} {
		got, err := ParseAgents(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseAgents(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if _, err := ParseAgents([]string{"vim"}); err == nil || !strings.Contains(err.Error(), `"vim"`) {
		t.Errorf("ParseAgents(vim) error = %v", err)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func quote(s string) string {
	b, _ := jsonobj.Marshal(s)
	return string(b)
}

// Only what a client runs counts as installed: the outdated shape from the
// TypeScript tool's old guide (a bare string) and a command that merely
// mentions the hook are not installs, so init adds the real hook.
func TestCheckCountsOnlyRunnableCommands(t *testing.T) {
	for _, tc := range []struct {
		name, settings string
		installed      bool
	}{
		{"outdated bare string", `{"hooks":{"Stop":[{"matcher":"","hooks":["agent-gauntlet stop-hook"]}]}}`, false},
		{"mentioned in a description", `{"hooks":{"Stop":[{"description":"agent-gauntlet stop-hook","hooks":[{"type":"command","command":"true"}]}]}}`, false},
		{"a command", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/usr/local/bin/agent-gauntlet stop-hook --agent claude"}]}]}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTestFile(t, filepath.Join(root, ".claude", "settings.json"), tc.settings)
			if st := Check(root, hookproto.Claude, ""); st.Installed != tc.installed {
				t.Fatalf("Installed = %v, want %v (%+v)", st.Installed, tc.installed, st)
			}
			res, err := Install(root, hookproto.Claude, Options{})
			if err != nil || res.Added == tc.installed {
				t.Fatalf("Install = %+v, %v; want Added %v", res, err, !tc.installed)
			}
		})
	}
	// Copilot names its command fields after the shell.
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, ".github", "hooks", "agent-gauntlet.json"),
		`{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"agent-gauntlet stop-hook --agent copilot","timeoutSec":30}]}}`)
	if st := Check(root, hookproto.Copilot, ""); !st.Installed {
		t.Fatalf("copilot bash command not found: %+v", st)
	}
}

// TestInstallRefusesLinks pins that Install writes nothing through a
// symbolic link: a settings file, or its directory, that is a link (to a
// directory or a file outside the project) is refused with an error
// naming it, and what it points to keeps its bytes.
func TestInstallRefusesLinks(t *testing.T) {
	for _, at := range []string{".claude/settings.json", ".claude"} {
		for _, kind := range []string{"dir", "file"} {
			t.Run(at+"/"+kind, func(t *testing.T) {
				root := filepath.Join(t.TempDir(), "p")
				outside := filepath.Join(filepath.Dir(root), "outside")
				sentinel := filepath.Join(outside, "settings.json")
				writeTestFile(t, sentinel, `{"model":"opus"}`)
				target := outside
				if kind == "file" {
					target = sentinel
				}
				link := filepath.Join(root, at)
				if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				_, err := Install(root, hookproto.Claude, Options{})
				var refused *owned.RefusedError
				if !errors.As(err, &refused) || !strings.Contains(err.Error(), link) {
					t.Fatalf("Install through %s -> %s: %v, want a refusal naming it", at, target, err)
				}
				if data, _ := os.ReadFile(sentinel); string(data) != `{"model":"opus"}` {
					t.Fatalf("the file outside changed:\n%s", data)
				}
				if entries, _ := os.ReadDir(outside); len(entries) != 1 {
					t.Fatalf("written outside: %v", entries)
				}
			})
		}
	}
}

// TestInstallStartHook pins the session-start hook: Claude Code's
// SessionStart and Cursor's sessionStart, in the files of their stop
// hooks, beside them, never twice; other agents have none.
func TestInstallStartHook(t *testing.T) {
	root := t.TempDir()
	for _, a := range []hookproto.Agent{hookproto.Claude, hookproto.Cursor} {
		if _, err := Install(root, a, Options{}); err != nil {
			t.Fatal(err)
		}
		res, err := Install(root, a, Options{Hook: StartHook})
		if err != nil || !res.Added || res.Command != "agent-gauntlet start-hook --agent "+string(a) {
			t.Fatalf("%s: %+v %v", a, res, err)
		}
		if again, _ := Install(root, a, Options{Hook: StartHook}); again.Added {
			t.Errorf("%s: installed twice", a)
		}
		if st := CheckHook(root, a, "", StartHook); !st.Installed {
			t.Errorf("%s: start hook not found: %+v", a, st)
		}
		if st := Check(root, a, ""); !st.Installed || strings.Contains(st.Command, "start-hook") {
			t.Errorf("%s: stop hook: %+v", a, st)
		}
	}
	claude, _ := os.ReadFile(filepath.Join(root, ".claude", "settings.json"))
	if !strings.Contains(string(claude), `"SessionStart": [`) || !strings.Contains(string(claude), `"timeout": 30`) {
		t.Errorf("claude settings:\n%s", claude)
	}
	cursor, _ := os.ReadFile(filepath.Join(root, ".cursor", "hooks.json"))
	if !strings.Contains(string(cursor), `"sessionStart": [`) {
		t.Errorf("cursor hooks:\n%s", cursor)
	}
	if _, err := Install(root, hookproto.Codex, Options{Hook: StartHook}); err == nil {
		t.Errorf("codex start hook installed")
	}
	if st := CheckHook(root, hookproto.Codex, "", StartHook); st.Installed || st.Path != "" {
		t.Errorf("codex: %+v", st)
	}
}
