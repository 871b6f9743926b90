package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// GlobalPath returns the global configuration file,
// $HOME/.config/agent-gauntlet/config.yml. HOME comes from getenv, else
// from os.UserHomeDir; "" when neither knows it.
func GlobalPath(getenv func(string) string) string {
	var home string
	if getenv != nil {
		home = getenv("HOME")
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = h
	}
	return filepath.Join(home, GlobalConfigDir, GlobalConfigFile)
}

// LoadGlobal reads the global configuration at path. A missing file (or an
// empty path) is the zero Global and no error. A file that cannot be read,
// is not valid YAML or holds a value of the wrong type gives the zero
// Global (defaults) and an error whose text is a one-line warning naming
// path, for the caller to print once. Unknown keys are ignored.
func LoadGlobal(path string) (Global, error) {
	if path == "" {
		return Global{}, nil
	}
	data, err := fsread.File(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return Global{}, nil
	}
	if err != nil {
		return Global{}, globalError(path, fserr.Pathless(err).Error())
	}
	c := &collector{}
	f := c.file("")
	var g Global
	v, err := parseYAML(data, 0)
	if err != nil {
		return Global{}, globalError(path, "invalid YAML: "+err.Error())
	}
	if o := f.top(v); o != nil {
		if s := o.child("stop_hook"); s != nil {
			g.StopHook = parseStopHook(s)
		}
		if d := o.child("debug_log"); d != nil {
			g.DebugLog = parseDebugLog(d)
		}
	}
	if len(c.problems) > 0 {
		lines := make([]string, len(c.problems))
		for i, p := range c.problems {
			lines[i] = p.String()
		}
		return Global{}, globalError(path, strings.Join(lines, "; "))
	}
	return g, nil
}

func globalError(path, why string) error {
	return fmt.Errorf("ignoring global config %s (using defaults): %s", path, why)
}

// ResolveStopHook resolves each stop-hook setting on its own: the
// environment (GAUNTLET_STOP_HOOK_ENABLED, GAUNTLET_STOP_HOOK_INTERVAL_MINUTES)
// wins over the project's stop_hook, which wins over the global stop_hook,
// which wins over the defaults (enabled, 10 minutes, no verify on continue).
// Environment values that do not parse are ignored.
func ResolveStopHook(getenv func(string) string, project StopHookSettings, global Global) StopHook {
	r := StopHook{Enabled: DefaultStopHookEnabled, RunIntervalMinutes: DefaultRunIntervalMinutes,
		From: StopHookOrigins{Enabled: OriginDefault, RunIntervalMinutes: OriginDefault, VerifyOnContinue: OriginDefault}}
	for _, src := range []struct {
		s    StopHookSettings
		from Origin
	}{{global.StopHook, OriginGlobal}, {project, OriginProject}} {
		s := src.s
		if s.Enabled != nil {
			r.Enabled, r.From.Enabled = *s.Enabled, src.from
		}
		if s.RunIntervalMinutes != nil {
			r.RunIntervalMinutes, r.From.RunIntervalMinutes = *s.RunIntervalMinutes, src.from
		}
		if s.VerifyOnContinue != nil {
			r.VerifyOnContinue, r.From.VerifyOnContinue = *s.VerifyOnContinue, src.from
		}
	}
	if getenv == nil {
		return r
	}
	if b, ok := parseEnvBool(getenv(EnvStopHookEnabled)); ok {
		r.Enabled, r.From.Enabled = b, OriginEnv
	}
	if n, ok := parseEnvMinutes(getenv(EnvStopHookIntervalMinutes)); ok {
		r.RunIntervalMinutes, r.From.RunIntervalMinutes = n, OriginEnv
	}
	return r
}

// StopHookActive reports whether getenv sets EnvStopHookActive, read as
// a boolean: empty, "0", "false", "no" and "off" (trimmed, in any case)
// leave it unset; any other value sets it, as the gauntlet's own "1" does.
func StopHookActive(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv(EnvStopHookActive))) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// parseEnvBool reads true/1 and false/0, trimmed and case-insensitive.
func parseEnvBool(s string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// parseEnvMinutes reads a trimmed decimal integer from 0 to
// MaxRunIntervalMinutes.
func parseEnvMinutes(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > MaxRunIntervalMinutes {
		return 0, false
	}
	return n, true
}

// ResolveDebugLog starts from the defaults (disabled, 10 MB) and applies the
// global debug_log fields that are set, then the project's.
func ResolveDebugLog(project DebugLogSettings, global Global) DebugLog {
	r := DebugLog{MaxSizeMB: DefaultDebugLogMaxSizeMB}
	for _, s := range []DebugLogSettings{global.DebugLog, project} {
		if s.Enabled != nil {
			r.Enabled = *s.Enabled
		}
		if s.MaxSizeMB != nil {
			r.MaxSizeMB = *s.MaxSizeMB
		}
	}
	return r
}
