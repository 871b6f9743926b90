package adapter

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/proc"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/internal/standin"
)

// TestArgv pins the exact command line of every adapter.
func TestArgv(t *testing.T) {
	tests := []struct {
		name  string
		model string
		want  []string
	}{
		{Claude, "", []string{"-p", "--allowedTools", "Read,Glob,Grep", "--max-turns", "10", "--output-format", "json", "--settings", `{"disableAllHooks":true}`, "--setting-sources", "user", "--strict-mcp-config"}},
		{Claude, "opus", []string{"-p", "--allowedTools", "Read,Glob,Grep", "--max-turns", "10", "--output-format", "json", "--settings", `{"disableAllHooks":true}`, "--setting-sources", "user", "--strict-mcp-config", "--model", "opus"}},
		{Codex, "", []string{"exec", "--sandbox", "read-only", "-c", `approval_policy="never"`, "--skip-git-repo-check", "--add-dir", "/proj", "--color", "never", "-"}},
		{Codex, "gpt-5", []string{"exec", "--sandbox", "read-only", "-c", `approval_policy="never"`, "--skip-git-repo-check", "--add-dir", "/proj", "--color", "never", "-m", "gpt-5", "-"}},
		{Gemini, "", []string{"--approval-mode", "default", "--skip-trust", "--output-format", "json"}},
		{Gemini, "flash", []string{"--approval-mode", "default", "--skip-trust", "--output-format", "json", "-m", "flash"}},
		{Copilot, "", []string{"-s", "--no-ask-user", "--allow-tool", "shell(cat)", "--allow-tool", "shell(grep)", "--allow-tool", "shell(ls)", "--allow-tool", "shell(head)", "--allow-tool", "shell(tail)", "--deny-tool", "write"}},
		{Copilot, "gpt-5", []string{"-s", "--no-ask-user", "--allow-tool", "shell(cat)", "--allow-tool", "shell(grep)", "--allow-tool", "shell(ls)", "--allow-tool", "shell(head)", "--allow-tool", "shell(tail)", "--deny-tool", "write", "--model", "gpt-5"}},
		{Cursor, "", []string{"-p", "--output-format", "text", "--mode", "ask", "--trust", "--workspace", "/proj"}},
		{Cursor, "sonnet-4", []string{"-p", "--output-format", "text", "--mode", "ask", "--trust", "--workspace", "/proj", "--model", "sonnet-4"}},
	}
	for _, tt := range tests {
		spec, ok := Lookup(tt.name)
		if !ok {
			t.Fatalf("Lookup(%q) failed", tt.name)
		}
		if got := spec.Argv("/proj", tt.model); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s model %q:\n got %q\nwant %q", tt.name, tt.model, got, tt.want)
		}
	}
	wantBin := map[string]string{Claude: "claude", Codex: "codex", Gemini: "gemini", Copilot: "copilot", Cursor: "agent"}
	for name, bin := range wantBin {
		if s, _ := Lookup(name); s.Binary != bin {
			t.Errorf("%s binary = %q, want %q", name, s.Binary, bin)
		}
	}
	// codex and gemini load the instructions, settings and tools of their
	// working directory's project with no flag to say no: they run outside it
	wantOutside := map[string]bool{Codex: true, Gemini: true}
	for _, s := range Specs {
		if s.Outside != wantOutside[s.Name] {
			t.Errorf("%s Outside = %v, want %v", s.Name, s.Outside, wantOutside[s.Name])
		}
	}
	if got := Names(); !reflect.DeepEqual(got, []string{Claude, Codex, Gemini, Copilot, Cursor}) {
		t.Errorf("Names() = %q", got)
	}
	if _, ok := Lookup("vim"); ok {
		t.Error("Lookup(vim) succeeded")
	}
}

// TestInvokeStandIns runs every adapter against its stand-in and checks what
// the child saw: argv, stdin, environment and working directory.
func TestInvokeStandIns(t *testing.T) {
	dir := standin.Install(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvStopHookActive, "")
	stdin := "Review this.\n\n--- DIFF ---\ndiff --git a/x b/x\n+secret prompt text\n"
	for _, spec := range Specs {
		t.Run(spec.Name, func(t *testing.T) {
			ans, err := Invoke(context.Background(), spec, Request{Root: root, Model: "m1", Stdin: stdin, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if got, want := standin.Argv(t, dir, spec.Binary), spec.Argv(root, "m1"); !reflect.DeepEqual(got, want) {
				t.Errorf("argv = %q, want %q", got, want)
			}
			for _, a := range standin.Argv(t, dir, spec.Binary) {
				if strings.Contains(a, "secret prompt") || strings.Contains(a, "DIFF") {
					t.Errorf("argv carries the prompt: %q", a)
				}
			}
			if got := standin.Read(t, dir, spec.Binary, "stdin"); got != stdin {
				t.Errorf("stdin = %q, want %q", got, stdin)
			}
			if got := standin.Read(t, dir, spec.Binary, "env"); got != "1\n" {
				t.Errorf("%s = %q, want 1", EnvStopHookActive, got)
			}
			checkCwd(t, spec, root, strings.TrimSpace(standin.Read(t, dir, spec.Binary, "cwd")))
			if !strings.Contains(ans.Text, `"status":"pass"`) || ans.ExitCode != 0 || ans.Failure() != "" {
				t.Errorf("answer = %+v", ans)
			}
			if ans.Argv[0] != spec.Binary {
				t.Errorf("Argv[0] = %q", ans.Argv[0])
			}
		})
	}
}

// checkCwd checks the working directory a stand-in of spec saw for a run
// in root: root itself, or for an Outside spec a directory outside root
// that is gone once the run is over.
func checkCwd(t *testing.T, spec Spec, root, cwd string) {
	t.Helper()
	if !spec.Outside {
		if cwd != root {
			t.Errorf("cwd = %q, want %q", cwd, root)
		}
		return
	}
	if inside(cwd, root) {
		t.Errorf("cwd = %q: inside the project %q", cwd, root)
	}
	if _, err := os.Lstat(cwd); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the working directory %q is left after the run (%v)", cwd, err)
	}
}

// TestInvokeOutsideTempInProject: a reviewer that runs outside the project
// runs outside it, and outside its git work tree, even where the temporary
// directory lies inside them (as TMPDIR under a test's work directory does).
func TestInvokeOutsideTempInProject(t *testing.T) {
	tests := []struct {
		name string
		git  string // the directory, below the test's, that holds .git
		root string // the project, below the test's directory
		tmp  string // TMPDIR, below the test's directory
	}{
		{name: "TMPDIR in the project", git: "repo", root: "repo", tmp: "repo/tmp"},
		{name: "TMPDIR in the project, no git", root: "repo", tmp: "repo/tmp"},
		{name: "TMPDIR in the work tree beside the project", git: "repo", root: "repo/app", tmp: "repo/tmp"},
		{name: "TMPDIR in the work tree above the project", git: "repo", root: "repo/app/sub", tmp: "repo/app/tmp"},
	}
	dir := standin.Install(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			root, tmp := filepath.Join(base, tt.root), filepath.Join(base, tt.tmp)
			for _, d := range []string{root, tmp} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if tt.git != "" {
				if err := os.Mkdir(filepath.Join(base, tt.git, ".git"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("TMPDIR", tmp)
			for _, spec := range Specs {
				if !spec.Outside {
					continue
				}
				if _, err := Invoke(context.Background(), spec, Request{Root: root, Stdin: "x", Timeout: 10 * time.Second}); err != nil {
					t.Fatalf("%s: Invoke: %v", spec.Name, err)
				}
				cwd := strings.TrimSpace(standin.Read(t, dir, spec.Binary, "cwd"))
				checkCwd(t, spec, root, cwd)
				if inside(cwd, base) {
					t.Errorf("%s: cwd = %q: inside the work tree %q", spec.Name, cwd, base)
				}
			}
			if entries, err := os.ReadDir(tmp); err != nil || len(entries) != 0 {
				t.Errorf("TMPDIR holds %d entries (%v)", len(entries), err)
			}
		})
	}
}

func TestInvokeAnswers(t *testing.T) {
	review := `{"status":"fail","violations":[]}`
	tests := []struct {
		name        string
		adapter     string
		answer      string
		stderr      string
		exit        string
		wantText    string
		wantFailure string
		wantLimit   bool
		wantUsage   string
	}{
		{
			name: "claude envelope", adapter: Claude,
			answer:    `{"type":"result","subtype":"success","is_error":false,"result":"{\"status\":\"fail\",\"violations\":[]}","total_cost_usd":0.0421,"num_turns":3,"usage":{"input_tokens":1200,"output_tokens":350,"cache_read_input_tokens":10,"cache_creation_input_tokens":20}}`,
			wantText:  review,
			wantUsage: "cost $0.0421, input tokens 1200, output tokens 350, cache read 10, cache write 20, turns 3",
		},
		{
			name: "claude error envelope with usage limit", adapter: Claude,
			answer:      `{"type":"result","subtype":"success","is_error":true,"result":"Claude AI usage limit reached|1760000000","total_cost_usd":0}`,
			wantText:    "Claude AI usage limit reached|1760000000",
			wantFailure: "Claude AI usage limit reached|1760000000",
			wantLimit:   true,
			wantUsage:   "cost $0.0000, input tokens 0, output tokens 0",
		},
		{
			name: "claude max turns", adapter: Claude,
			answer:      `{"type":"result","subtype":"error_max_turns","is_error":false,"num_turns":10}`,
			wantFailure: "claude reported error_max_turns",
			wantUsage:   "input tokens 0, output tokens 0, turns 10",
		},
		{
			name: "claude plain text stays text", adapter: Claude,
			answer: "not json " + review, wantText: "not json " + review,
		},
		{
			name: "gemini envelope", adapter: Gemini,
			answer:    `{"response":"{\"status\":\"fail\",\"violations\":[]}","stats":{"models":{"gemini-2.5-pro":{"tokens":{"prompt":100,"candidates":20,"cached":5}}}}}`,
			wantText:  review,
			wantUsage: "input tokens 100, output tokens 20, cache read 5, cache write 0",
		},
		{
			name: "gemini quota error", adapter: Gemini,
			answer:      `{"error":{"type":"ApiError","message":"Quota exceeded for quota metric"}}`,
			exit:        "1",
			wantFailure: "Quota exceeded for quota metric",
			wantLimit:   true,
		},
		{
			// gemini 0.61.0 prints its error envelope on stderr, after the
			// warnings and the stack trace, and nothing on stdout
			name: "gemini error envelope on stderr", adapter: Gemini,
			answer: "",
			stderr: "Warning: 256-color support not detected.\nError generating content via API. ModelNotFoundError\n    at classifyGoogleError (file:///gemini.js:1:1) {\n  code: 404\n}\n" +
				"{\n  \"session_id\": \"34040d6f\",\n  \"error\": {\n    \"type\": \"Error\",\n    \"message\": \"{\\\"error\\\":{\\\"message\\\":\\\"\\\",\\\"code\\\":404}}\",\n    \"code\": 1\n  }\n}\n",
			exit:        "1",
			wantFailure: `{"error":{"message":"","code":404}}`,
		},
		{
			name: "gemini stderr without an envelope", adapter: Gemini,
			answer: "", stderr: "Gemini CLI is not running in a trusted directory.\n", exit: "55",
			wantFailure: "process exited with code 55: Gemini CLI is not running in a trusted directory.",
		},
		{
			name: "codex stderr usage limit", adapter: Codex,
			answer: "", stderr: "ERROR: You've hit your usage limit. Try again later.\n", exit: "1",
			wantFailure: "process exited with code 1: ERROR: You've hit your usage limit. Try again later.",
			wantLimit:   true,
		},
		{
			name: "copilot non-zero exit", adapter: Copilot,
			answer: "partial", stderr: "\nboom\nmore\n", exit: "3",
			wantText: "partial", wantFailure: "process exited with code 3: boom",
		},
		{
			name: "cursor malformed answer is text", adapter: Cursor,
			answer: "I think it is fine", wantText: "I think it is fine",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, _ := Lookup(tt.adapter)
			dir := standin.Install(t, spec.Binary)
			standin.Set(t, dir, spec.Binary, "answer", tt.answer)
			if tt.stderr != "" {
				standin.Set(t, dir, spec.Binary, "stderr", tt.stderr)
			}
			if tt.exit != "" {
				standin.Set(t, dir, spec.Binary, "exit", tt.exit)
			}
			var log strings.Builder
			ans, err := Invoke(context.Background(), spec, Request{Root: t.TempDir(), Stdin: "p", Log: &log})
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if tt.wantText != "" && ans.Text != tt.wantText {
				t.Errorf("Text = %q, want %q", ans.Text, tt.wantText)
			}
			if got := ans.Failure(); got != tt.wantFailure {
				t.Errorf("Failure() = %q, want %q", got, tt.wantFailure)
			}
			if got := ans.LimitPhrase() != ""; got != tt.wantLimit {
				t.Errorf("LimitPhrase() = %q, want limit %v", ans.LimitPhrase(), tt.wantLimit)
			}
			gotUsage := ""
			if ans.Usage != nil {
				gotUsage = ans.Usage.String()
			}
			if gotUsage != tt.wantUsage {
				t.Errorf("Usage = %q, want %q", gotUsage, tt.wantUsage)
			}
			if !strings.Contains(log.String(), tt.answer) || !strings.Contains(log.String(), strings.TrimSpace(tt.stderr)) {
				t.Errorf("log %q misses stdout or stderr", log.String())
			}
		})
	}
}

func TestInvokeTimeoutKillsTheGroup(t *testing.T) {
	dir := standin.Install(t, "codex")
	standin.Set(t, dir, "codex", "sleep", "30")
	spec, _ := Lookup(Codex)
	start := time.Now()
	_, err := Invoke(context.Background(), spec, Request{Root: t.TempDir(), Stdin: "p", Timeout: 300 * time.Millisecond})
	if !errors.Is(err, proc.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if !strings.Contains(err.Error(), "codex timed out after 300ms") {
		t.Errorf("err = %q", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Invoke returned after %s: the sleeping child was not killed", d)
	}
}

func TestInvokeMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	spec, _ := Lookup(Cursor)
	if _, err := Invoke(context.Background(), spec, Request{Root: t.TempDir()}); err == nil {
		t.Fatal("Invoke of a missing binary succeeded")
	}
}

func TestCheck(t *testing.T) {
	spec, _ := Lookup(Claude)
	tests := []struct {
		name    string
		install bool
		probe   bool
		files   map[string]string
		want    Health
	}{
		{name: "missing", want: Health{StateMissing, MsgMissing}},
		{name: "installed, no probe", install: true, want: Health{StateHealthy, MsgInstalled}},
		{name: "probe ok", install: true, probe: true, files: map[string]string{"answer": `{"type":"result","result":"OK"}`}, want: Health{StateHealthy, MsgReady}},
		{name: "probe usage limit", install: true, probe: true, files: map[string]string{"answer": `{"type":"result","is_error":true,"result":"Your credit balance is too low"}`}, want: Health{StateUnhealthy, MsgUsageLimit}},
		{name: "probe timeout", install: true, probe: true, files: map[string]string{"sleep": "5"}, want: Health{StateUnhealthy, MsgProbeTimeout}},
		{name: "probe error", install: true, probe: true, files: map[string]string{"stderr": "not logged in\n", "exit": "2", "answer": ""}, want: Health{StateUnhealthy, "Error: process exited with code 2: not logged in"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.install {
				dir := standin.Install(t, "claude")
				for k, v := range tt.files {
					standin.Set(t, dir, "claude", k, v)
				}
			} else {
				t.Setenv("PATH", t.TempDir())
			}
			if got := check(context.Background(), spec, t.TempDir(), tt.probe, 300*time.Millisecond); got != tt.want {
				t.Errorf("Check = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLimitPhrase(t *testing.T) {
	tests := map[string]string{
		"Claude AI usage limit reached":             "usage limit",
		"429: QUOTA EXCEEDED":                       "quota exceeded",
		"your quota will reset at 5pm":              "quota will reset",
		"Credit balance is too low":                 "credit balance is too low",
		"You're out of extra usage":                 "out of extra usage",
		"out of usage until Monday":                 "out of usage",
		`{"status":"pass","message":"all clear"}`:   "",
		"the limit of usage is documented in a.txt": "",
	}
	for in, want := range tests {
		if got := LimitPhrase(in); got != want {
			t.Errorf("LimitPhrase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTrailingObject(t *testing.T) {
	tests := map[string]string{
		"":                                  "",
		"plain error\n":                     "",
		`{"error":{"message":"m"}}`:         `{"error":{"message":"m"}}`,
		"warn\n{\n  \"a\": 1\n}\n":          "{\n  \"a\": 1\n}",
		"at x {\n  code: 404\n}\n{\"b\":2}": `{"b":2}`,
		"{\"a\":1}\ntrailing text":          "",
	}
	for in, want := range tests {
		if got := trailingObject(in); got != want {
			t.Errorf("trailingObject(%q) = %q, want %q", in, got, want)
		}
	}
}
