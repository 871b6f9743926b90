package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// envMap is a getenv backed by a map.
func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestGlobalPath(t *testing.T) {
	if got, want := GlobalPath(envMap(map[string]string{"HOME": "/home/u"})), "/home/u/.config/agent-gauntlet/config.yml"; got != want {
		t.Errorf("GlobalPath = %q, want %q", got, want)
	}
	t.Setenv("HOME", "/home/fallback")
	for _, getenv := range []func(string) string{envMap(nil), nil} {
		if got, want := GlobalPath(getenv), "/home/fallback/.config/agent-gauntlet/config.yml"; got != want {
			t.Errorf("GlobalPath without HOME = %q, want %q", got, want)
		}
	}
}

func TestLoadGlobal(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content string // "" with noFile: no file at all
		noFile  bool
		want    Global
		wantErr string // "" for no error; else the text after the path prefix
	}{
		{name: "missing file", noFile: true},
		{name: "empty file", content: ""},
		{name: "interval only (seed scenario)", content: "stop_hook:\n  run_interval_minutes: 15\n",
			want: Global{StopHook: StopHookSettings{RunIntervalMinutes: ptr(15)}}},
		{name: "every field", content: "stop_hook: {enabled: false, run_interval_minutes: 0, verify_on_continue: true}\ndebug_log: {enabled: true, max_size_mb: 1}\n",
			want: Global{
				StopHook: StopHookSettings{Enabled: ptr(false), RunIntervalMinutes: ptr(0), VerifyOnContinue: ptr(true)},
				DebugLog: DebugLogSettings{Enabled: ptr(true), MaxSizeMB: ptr(1.0)},
			}},
		{name: "unknown keys are ignored", content: "theme: dark\nstop_hook: {enabled: true, other: 1}\n",
			want: Global{StopHook: StopHookSettings{Enabled: ptr(true)}}},
		{name: "invalid YAML", content: "stop_hook: [\n", wantErr: "invalid YAML: line 1: did not find expected node content"},
		{name: "not a mapping", content: "- 1\n", wantErr: "must be a YAML mapping of keys to values"},
		{name: "wrong types", content: "stop_hook: {enabled: maybe, run_interval_minutes: -1}\ndebug_log: {max_size_mb: 0}\n",
			wantErr: "stop_hook.enabled: must be true or false; stop_hook.run_interval_minutes: must be a non-negative integer; debug_log.max_size_mb: must be a positive number"},
		{name: "section of the wrong type", content: "stop_hook: true\n", wantErr: "stop_hook: must be a mapping"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name, "config.yml")
			if !tc.noFile {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			g, err := LoadGlobal(path)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("LoadGlobal: %v", err)
				}
			} else {
				want := "ignoring global config " + path + " (using defaults): " + tc.wantErr
				if err == nil || err.Error() != want {
					t.Fatalf("LoadGlobal error = %v, want %q", err, want)
				}
			}
			if !reflect.DeepEqual(g, tc.want) {
				t.Errorf("LoadGlobal = %#v, want %#v", g, tc.want)
			}
		})
	}
}

func TestLoadGlobalUnreadable(t *testing.T) {
	dir := t.TempDir() // a directory cannot be read as a file
	g, err := LoadGlobal(dir)
	want := "ignoring global config " + dir + " (using defaults): is a directory, not a regular file"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	if !reflect.DeepEqual(g, Global{}) {
		t.Errorf("Global = %#v, want zero", g)
	}
	if g, err := LoadGlobal(""); err != nil || !reflect.DeepEqual(g, Global{}) {
		t.Errorf(`LoadGlobal("") = %#v, %v`, g, err)
	}
}

// A FIFO in the global config's place is a warning, never a hang (the stop
// hook reads it on every stop).
func TestLoadGlobalFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yml")
	fifotest.Create(t, p)
	g, err := LoadGlobal(p)
	want := "ignoring global config " + p + " (using defaults): is a named pipe (FIFO), not a regular file"
	if err == nil || err.Error() != want || !reflect.DeepEqual(g, Global{}) {
		t.Errorf("LoadGlobal = %#v, %v; want defaults and %q", g, err, want)
	}
}

func TestResolveStopHook(t *testing.T) {
	defaults := StopHook{Enabled: true, RunIntervalMinutes: 10}
	tests := []struct {
		name    string
		env     map[string]string
		project StopHookSettings
		global  StopHookSettings
		want    StopHook
	}{
		{name: "defaults", want: defaults},
		{name: "global only", global: StopHookSettings{Enabled: ptr(false), RunIntervalMinutes: ptr(15), VerifyOnContinue: ptr(true)},
			want: StopHook{Enabled: false, RunIntervalMinutes: 15, VerifyOnContinue: true}},
		{name: "project beats global per field",
			global:  StopHookSettings{Enabled: ptr(false), RunIntervalMinutes: ptr(15)},
			project: StopHookSettings{RunIntervalMinutes: ptr(2), VerifyOnContinue: ptr(true)},
			want:    StopHook{Enabled: false, RunIntervalMinutes: 2, VerifyOnContinue: true}},
		{name: "env beats project",
			env:     map[string]string{EnvStopHookEnabled: "TRUE", EnvStopHookIntervalMinutes: " 0 "},
			project: StopHookSettings{Enabled: ptr(false), RunIntervalMinutes: ptr(5)},
			want:    StopHook{Enabled: true, RunIntervalMinutes: 0}},
		{name: "env 0 and 1", env: map[string]string{EnvStopHookEnabled: "0", EnvStopHookIntervalMinutes: "1"},
			want: StopHook{Enabled: false, RunIntervalMinutes: 1}},
		{name: "env false trimmed", env: map[string]string{EnvStopHookEnabled: "  False\n"},
			want: StopHook{Enabled: false, RunIntervalMinutes: 10}},
		{name: "env 1 enables", env: map[string]string{EnvStopHookEnabled: "1"}, global: StopHookSettings{Enabled: ptr(false)},
			want: defaults},
		{name: "env garbage ignored",
			env:     map[string]string{EnvStopHookEnabled: "yes", EnvStopHookIntervalMinutes: "-3"},
			project: StopHookSettings{Enabled: ptr(false), RunIntervalMinutes: ptr(7)},
			want:    StopHook{Enabled: false, RunIntervalMinutes: 7}},
		{name: "env interval not an integer", env: map[string]string{EnvStopHookIntervalMinutes: "2.5"}, want: defaults},
		{name: "env interval with unit", env: map[string]string{EnvStopHookIntervalMinutes: "5m"}, want: defaults},
		{name: "env interval plus sign", env: map[string]string{EnvStopHookIntervalMinutes: "+5"}, want: defaults},
		{name: "env interval too large", env: map[string]string{EnvStopHookIntervalMinutes: "99999999999999999999"}, want: defaults},
		{name: "empty env ignored", env: map[string]string{EnvStopHookEnabled: "", EnvStopHookIntervalMinutes: " "}, want: defaults},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ResolveStopHook(envMap(tc.env), tc.project, Global{StopHook: tc.global})
			got.From = StopHookOrigins{}
			if got != tc.want {
				t.Errorf("ResolveStopHook = %+v, want %+v", got, tc.want)
			}
		})
	}
	got := ResolveStopHook(nil, StopHookSettings{}, Global{})
	if got.From != (StopHookOrigins{OriginDefault, OriginDefault, OriginDefault}) {
		t.Errorf("ResolveStopHook(nil getenv) origins = %+v", got.From)
	}
	if got.From = (StopHookOrigins{}); got != defaults {
		t.Errorf("ResolveStopHook(nil getenv) = %+v", got)
	}
}

// Each setting names the strongest source that set it: what a message
// about a disabled hook or a shortened check names.
func TestResolveStopHookOrigins(t *testing.T) {
	tests := []struct {
		name            string
		env             map[string]string
		project, global StopHookSettings
		want            StopHookOrigins
	}{
		{name: "defaults", want: StopHookOrigins{OriginDefault, OriginDefault, OriginDefault}},
		{name: "global", global: StopHookSettings{Enabled: ptr(false), RunIntervalMinutes: ptr(3), VerifyOnContinue: ptr(true)},
			want: StopHookOrigins{OriginGlobal, OriginGlobal, OriginGlobal}},
		{name: "project over global, field by field", global: StopHookSettings{Enabled: ptr(false), RunIntervalMinutes: ptr(3)},
			project: StopHookSettings{Enabled: ptr(true), VerifyOnContinue: ptr(false)},
			want:    StopHookOrigins{OriginProject, OriginGlobal, OriginProject}},
		{name: "env over both", env: map[string]string{EnvStopHookEnabled: "false", EnvStopHookIntervalMinutes: "0"},
			project: StopHookSettings{Enabled: ptr(true), RunIntervalMinutes: ptr(5)},
			want:    StopHookOrigins{OriginEnv, OriginEnv, OriginDefault}},
		{name: "env that does not parse sets nothing", env: map[string]string{EnvStopHookEnabled: "nope"},
			global: StopHookSettings{Enabled: ptr(false)}, want: StopHookOrigins{OriginGlobal, OriginDefault, OriginDefault}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ResolveStopHook(envMap(tc.env), tc.project, Global{StopHook: tc.global}).From; got != tc.want {
				t.Errorf("origins = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestResolveDebugLog(t *testing.T) {
	tests := []struct {
		name            string
		project, global DebugLogSettings
		want            DebugLog
	}{
		{name: "defaults", want: DebugLog{Enabled: false, MaxSizeMB: 10}},
		{name: "global", global: DebugLogSettings{Enabled: ptr(true), MaxSizeMB: ptr(3.0)}, want: DebugLog{Enabled: true, MaxSizeMB: 3}},
		{name: "project fields that are set win",
			global:  DebugLogSettings{Enabled: ptr(true), MaxSizeMB: ptr(3.0)},
			project: DebugLogSettings{Enabled: ptr(false)},
			want:    DebugLog{Enabled: false, MaxSizeMB: 3}},
		{name: "project only", project: DebugLogSettings{MaxSizeMB: ptr(0.5)}, want: DebugLog{MaxSizeMB: 0.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ResolveDebugLog(tc.project, Global{DebugLog: tc.global}); got != tc.want {
				t.Errorf("ResolveDebugLog = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The gauntlet's marker reads as a boolean: unset, empty and the false
// words leave it off; its own "1", and any other value (the TypeScript
// tool took any non-empty one), set it.
func TestStopHookActive(t *testing.T) {
	for v, want := range map[string]bool{
		"": false, "0": false, "false": false, " FALSE ": false, "no": false, "off": false, "Off": false,
		"1": true, "true": true, "yes": true, "on": true, "anything": true,
	} {
		getenv := func(k string) string {
			if k == EnvStopHookActive {
				return v
			}
			return ""
		}
		if got := StopHookActive(getenv); got != want {
			t.Errorf("StopHookActive with %s=%q = %v, want %v", EnvStopHookActive, v, got, want)
		}
	}
}
