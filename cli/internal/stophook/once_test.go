package stophook

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// TestOnceNoticesOutliveTheirStop: a notice an answer says once and then
// takes as told (onceSources, enumerated from the code: every source needs
// a case here) is told as the trust change is, whichever session's stop
// first told it: in every later answer of that session, and in every
// other session's for verdicts.NoticeWindow. The stop that first tells it
// may be the agent's own stop-hook run under a session id of its own; the
// session a person watches still hears of it.
func TestOnceNoticesOutliveTheirStop(t *testing.T) {
	const commits = "the commits of main up to HEAD 0123456789ab: the base branch main holds HEAD"
	cases := map[string]func(t *testing.T) (root string, first runner.RunResult, want string){
		"run: commits no point anchors or the base moved over": func(t *testing.T) (string, runner.RunResult, string) {
			return project(t, ""), runner.RunResult{Status: runner.StatusNoChanges, Unverified: commits, Once: commits}, commits
		},
		"configuration adopted from HEAD": func(t *testing.T) (string, runner.RunResult, string) {
			root := t.TempDir()
			mustWrite(t, filepath.Join(root, ".gauntlet", "config.yml"),
				"cli:\n  default_preference: [claude]\nentry_points:\n  - path: \".\"\n")
			for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
				{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
				cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			return root, runner.RunResult{Status: runner.StatusPassed}, "was adopted as the trusted one at this stop"
		},
	}
	for _, src := range onceSources {
		if cases[src.name] == nil {
			t.Errorf("once-only notice %q has no case here", src.name)
		}
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			root, first, want := setup(t)
			// A run made the verdict book (the stand-in run makes none).
			p, err := place.Locate(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			if err := verdicts.Update(verdicts.KeyOf(p), func(*verdicts.Book) error { return nil }); err != nil {
				t.Fatal(err)
			}
			getenv := env(t, nil)
			stop := func(session string, at time.Time, res runner.RunResult) string {
				t.Helper()
				in, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "cwd": root, "session_id": session})
				out, _, _ := callExec(t, Options{Getenv: getenv, Now: func() time.Time { return at }},
					func(context.Context, runner.Options) runner.RunResult { return res }, string(in))
				if out.Block() {
					t.Fatalf("%s: blocked: %s", session, out.Message)
				}
				assertInStatus(t, hookproto.Claude, out)
				return out.Message
			}
			pass := runner.RunResult{Status: runner.StatusPassed}
			later := now.Add(2 * verdicts.NoticeWindow)
			for _, step := range []struct {
				session string
				at      time.Time
				res     runner.RunResult
				told    bool
			}{
				{"agent-own", now, first, true},
				{"s1", now.Add(time.Minute), pass, true},
				{"s1", now.Add(2 * time.Minute), pass, true},
				{"s2", now.Add(verdicts.NoticeWindow - time.Minute), pass, true},
				{"agent-own", later, pass, true},
				{"s1", later, pass, false},
			} {
				if msg := stop(step.session, step.at, step.res); strings.Contains(msg, want) != step.told {
					t.Errorf("%s at %s: told %v, want %v: %s", step.session, step.at, !step.told, step.told, msg)
				}
			}
		})
	}
}

// TestRunResultTextIsClassified: every text of a run's result is either
// said in every answer that carries it or once (RunResult.Once, handed to
// the verdict book); a new text field must be placed in one of the two.
func TestRunResultTextIsClassified(t *testing.T) {
	every := map[string]bool{"Message": true, "ConsoleLogPath": true, "ErrorMessage": true, "Root": true, "Base": true, "Unverified": true}
	once := map[string]bool{"Once": true}
	rt := reflect.TypeFor[runner.RunResult]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Type == reflect.TypeFor[string]() && !every[f.Name] && !once[f.Name] {
			t.Errorf("RunResult.%s: said in every answer, or once (through onceSources)?", f.Name)
		}
	}
}
