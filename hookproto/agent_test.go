package hookproto

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDialects pins the table's invariants: every row complete, names and
// settings files unique, Claude Code first (the default dialect), Env
// markers unique, a session-start event exactly where there is an encoder
// for it.
func TestDialects(t *testing.T) {
	if Dialects[0].Agent != Claude {
		t.Errorf("first row %s, want claude", Dialects[0].Agent)
	}
	seen := map[string]Agent{}
	for _, d := range Dialects {
		if d.Agent == "" || d.Agent != Agent(strings.ToLower(string(d.Agent))) || d.Display == "" {
			t.Errorf("%+v: name and display name required, name lower case", d.Agent)
		}
		if d.decode == nil || d.encode == nil || d.HookTimeout <= 0 {
			t.Errorf("%s: decoder, encoder and hook timeout required", d.Agent)
		}
		if d.DirField == "" {
			t.Errorf("%s: the input field of the directory is not named", d.Agent)
		}
		if d.shape == nil && d.Env == "" && d.Agent != Claude {
			t.Errorf("%s: neither a shape nor an Env marker: never recognised", d.Agent)
		}
		s := d.Settings
		if s.Path == "" || s.Stop == "" || strings.Contains(s.Path, `\`) {
			t.Errorf("%s: settings %+v", d.Agent, s)
		}
		if (s.Start != "") != (d.encodeStart != nil) {
			t.Errorf("%s: start event %q but encoder %v", d.Agent, s.Start, d.encodeStart != nil)
		}
		for _, k := range []string{"agent " + string(d.Agent), "display " + d.Display, "path " + s.Path, "env " + d.Env} {
			if k == "env " {
				continue
			}
			if other, dup := seen[k]; dup {
				t.Errorf("%s and %s share %s", other, d.Agent, k)
			}
			seen[k] = d.Agent
		}
	}
}

func TestFromEnv(t *testing.T) {
	env := func(vars ...string) func(string) string {
		return func(k string) string {
			for _, v := range vars {
				if v == k {
					return "/p"
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		vars []string
		want Agent
	}{
		{nil, ""},
		// Qwen Code sets Claude Code's and Gemini CLI's variables too.
		{[]string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "QWEN_PROJECT_DIR"}, Qwen},
		{[]string{"CLAUDE_PROJECT_DIR", "FACTORY_PROJECT_DIR", "DROID_PROJECT_DIR"}, Droid},
		{[]string{"CLAUDE_PROJECT_DIR"}, ""},
	} {
		if got := FromEnv(env(tc.vars...)); got != tc.want {
			t.Errorf("FromEnv(%v) = %q, want %q", tc.vars, got, tc.want)
		}
	}
	if FromEnv(nil) != "" {
		t.Error("FromEnv(nil) not empty")
	}
}

// The session's project is the one the client names in its row's variable,
// whatever the input's cwd says and whichever other clients' variables are
// set too (Qwen Code and Factory Droid set Claude Code's and Gemini CLI's
// as well); a client without one is taken at its input's word.
func TestSessionProject(t *testing.T) {
	base := t.TempDir()
	dir := func(name string) string { return filepath.Join(base, name) }
	all := map[string]string{
		"CLAUDE_PROJECT_DIR": dir("claude"), "GEMINI_PROJECT_DIR": dir("gemini"), "QWEN_PROJECT_DIR": dir("qwen"),
		"FACTORY_PROJECT_DIR": dir("factory"), "DROID_PROJECT_DIR": dir("droid"), "CURSOR_PROJECT_DIR": dir("cursor"),
	}
	want := map[Agent]Project{
		Claude:  {Dir: dir("claude"), From: "CLAUDE_PROJECT_DIR", Env: true},
		Gemini:  {Dir: dir("gemini"), From: "GEMINI_PROJECT_DIR", Env: true},
		Qwen:    {Dir: dir("qwen"), From: "QWEN_PROJECT_DIR", Env: true},
		Droid:   {Dir: dir("factory"), From: "FACTORY_PROJECT_DIR", Env: true},
		Codex:   {Dir: dir("elsewhere"), From: "cwd"},
		Copilot: {Dir: dir("elsewhere"), From: "cwd"},
		Cursor:  {Dir: dir("elsewhere"), From: "workspace_roots"},
	}
	for _, a := range Agents {
		in := Input{Agent: a, Dir: dir("elsewhere")}
		if got := SessionProject(in, func(k string) string { return all[k] }, dir("cwd")); got != want[a] {
			t.Errorf("%s: SessionProject = %+v, want %+v", a, got, want[a])
		}
		// Without the variable (or with one that is no absolute path) the
		// input decides; a relative directory is taken from the hook's cwd.
		bad := func(k string) string {
			return map[string]string{"CLAUDE_PROJECT_DIR": "rel", "GEMINI_PROJECT_DIR": ""}[k]
		}
		in.Dir = "sub"
		if got := SessionProject(in, bad, dir("cwd")); got.Dir != filepath.Join(dir("cwd"), "sub") || got.Env {
			t.Errorf("%s: without the variable = %+v", a, got)
		}
		in.Dir = ""
		if got := SessionProject(in, nil, dir("cwd")); got != (Project{}) {
			t.Errorf("%s: nothing named = %+v", a, got)
		}
	}
}

// TestTimeoutUnit: what is written reads back as the seconds meant, in
// every unit, across Qwen Code's switch at 1000.
func TestTimeoutUnit(t *testing.T) {
	for _, u := range []TimeoutUnit{Seconds, Milliseconds, SecondsBelow1000} {
		for _, s := range []int{1, 30, 600, 999, 1000, 1200, 86400} {
			if got := u.Read(float64(u.Write(s))); got != time.Duration(s)*time.Second {
				t.Errorf("unit %d: %d s written as %d reads %s", u, s, u.Write(s), got)
			}
		}
	}
	if got := SecondsBelow1000.Read(1000); got != time.Second {
		t.Errorf("Qwen Code reads 1000 as %s, want 1s", got)
	}
	if got := SecondsBelow1000.Write(1200); got != 1200000 {
		t.Errorf("1200 s written as %d for Qwen Code, want 1200000", got)
	}
}
