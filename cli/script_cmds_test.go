package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds are the custom testscript commands, wired through
// ScriptParams.Cmds.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"execstate":     cmdExecState,
	"blockedortold": cmdBlockedOrTold,
	"hookjson":      cmdHookJSON,
	"jsonq":         cmdJSONQ,
	"linkbin":       cmdLinkBin,
	"validreport":   cmdValidReport,
	"wfstep":        cmdWorkflowStep,
	"freshsecond":   cmdFreshSecond,
}

// cmdFreshSecond waits for the start of the next second of the clock, so
// that what the script does next shares a second (git's change time
// resolution):
//
//	freshsecond
func cmdFreshSecond(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: freshsecond")
	}
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
}

// cmdLinkBin makes a directory of links to the named executables, for a
// PATH holding only them (a machine without some tool):
//
//	linkbin DIR NAME...
//
// links DIR/NAME to NAME as found on the script's PATH, past version
// managers' shims directories (pyenv, rbenv, asdf: a shim needs its manager
// and the real HOME); a name not found fails the script.
func cmdLinkBin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: linkbin DIR NAME...")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	for _, name := range args[1:] {
		found := ""
		for _, d := range filepath.SplitList(ts.Getenv("PATH")) {
			if filepath.Base(d) == "shims" {
				continue
			}
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				found = p
				break
			}
		}
		if found == "" {
			ts.Fatalf("linkbin: %s not found on PATH", name)
		}
		ts.Check(os.Symlink(found, filepath.Join(dir, name)))
	}
}

// cmdExecState writes a real .execution_state:
//
//	execstate [-ts] <log-dir> <age> [branch]
//
// last_run_completed_at and last_full_pass_completed_at (the start of the
// stop hook's interval) are now minus age (a Go duration: 5m is five
// minutes ago, -1h one hour ahead): a full run of this tool passed then.
// With -ts the file holds only the TypeScript tool's four fields, as that
// tool writes them (last_run_completed_at in its ISO form, branch, commit,
// working_tree_ref). branch defaults to main; commit (and the TypeScript
// tool's working_tree_ref) is the HEAD of the git repository in the current
// directory (empty when there is none).
func cmdExecState(ts *testscript.TestScript, neg bool, args []string) {
	typeScript := len(args) > 0 && args[0] == "-ts"
	if typeScript {
		args = args[1:]
	}
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: execstate [-ts] <log-dir> <age> [branch]")
	}
	age, err := time.ParseDuration(args[1])
	ts.Check(err)
	branch := "main"
	if len(args) == 3 {
		branch = args[2]
	}
	cmd := exec.Command("git", "rev-parse", "HEAD")
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = envList(ts)
	out, _ := cmd.Output()
	commit := strings.TrimSpace(string(out))
	at := time.Now().Add(-age)
	dir := ts.MkAbs(args[0])
	if typeScript {
		data, err := json.Marshal(map[string]string{
			"last_run_completed_at": at.UTC().Format("2006-01-02T15:04:05.000Z"),
			"branch":                branch, "commit": commit, "working_tree_ref": commit,
		})
		ts.Check(err)
		ts.Check(os.MkdirAll(dir, 0o755))
		ts.Check(os.WriteFile(state.Path(dir), data, 0o644))
		return
	}
	st := state.State{LastRunCompletedAt: at, Branch: branch, Commit: commit, LastFullPassAt: at}
	ts.Check(state.Write(dir, st))
}

// envList is the script's hermetic environment (see scripttest.Hermetic)
// for a child process.
func envList(ts *testscript.TestScript) []string {
	return testenv.Env{Home: ts.Getenv("HOME")}.Environ(ts.Getenv("PATH"))
}

// cmdHookJSON checks that the last command's stdout is exactly one line
// holding one JSON object, then checks its keys:
//
//	hookjson [key=value | key~regexp | key!~regexp | key==other | key | !key]...
//
// key=value wants a string equal to value (other JSON values compare by
// their JSON text, as in version=1); key~regexp a string matching regexp;
// key!~regexp one that does not;
// key==other two keys with equal values; key the key present; !key the key
// absent. With no argument it checks the
// line only. "hookjson -empty" wants the object {}.
func cmdHookJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! hookjson")
	}
	out := ts.ReadFile("stdout")
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		ts.Fatalf("stdout is not exactly one line: %q", out)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &m); err != nil || m == nil {
		ts.Fatalf("stdout is not one JSON object: %v: %q", err, out)
	}
	for _, a := range args {
		switch {
		case a == "-empty":
			if len(m) != 0 {
				ts.Fatalf("want {}, got keys %v", keys(m))
			}
		case strings.HasPrefix(a, "!"):
			if _, ok := m[a[1:]]; ok {
				ts.Fatalf("key %q present, want absent: %s", a[1:], m[a[1:]])
			}
		case strings.Contains(a, "!~"):
			k, re, _ := strings.Cut(a, "!~")
			rx, err := regexp.Compile(re)
			ts.Check(err)
			if got := value(ts, m, k); rx.MatchString(got) {
				ts.Fatalf("%s = %q, matches %q", k, got, re)
			}
		case strings.Contains(a, "=="):
			k, other, _ := strings.Cut(a, "==")
			if value(ts, m, k) != value(ts, m, other) {
				ts.Fatalf("%s and %s differ", k, other)
			}
		case strings.Contains(a, "="):
			k, want, _ := strings.Cut(a, "=")
			if got := value(ts, m, k); got != want {
				ts.Fatalf("%s = %q, want %q", k, got, want)
			}
		case strings.Contains(a, "~"):
			k, re, _ := strings.Cut(a, "~")
			rx, err := regexp.Compile(re)
			ts.Check(err)
			if got := value(ts, m, k); !rx.MatchString(got) {
				ts.Fatalf("%s = %q, does not match %q", k, got, re)
			}
		default:
			if _, ok := m[a]; !ok {
				ts.Fatalf("key %q absent; keys %v", a, keys(m))
			}
		}
	}
}

// value is key's string value, or its JSON text when not a string.
func value(ts *testscript.TestScript, m map[string]json.RawMessage, k string) string {
	raw, ok := m[k]
	if !ok {
		ts.Fatalf("key %q absent; keys %v", k, keys(m))
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

func keys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
