package config

import "os"

// IsCI reports CI mode: CI=true or GITHUB_ACTIONS=true.
func IsCI(getenv func(string) string) bool {
	return getenv(EnvCI) == "true" || getenv(EnvGitHubActions) == "true"
}

// Effective are the settings one command runs with: the project's
// configuration with the global configuration and the environment applied.
// A command resolves them once (Resolve) and hands them to every step that
// needs one of them.
type Effective struct {
	// CI is true in CI mode (IsCI).
	CI bool
	// BaseBranch is GITHUB_BASE_REF in CI mode when it is set, else the
	// project's base_branch; a -b flag wins over both (Base).
	BaseBranch string
	// Head is GITHUB_SHA, the commit a CI run checks ("" outside CI).
	Head string
	// StopHook are the stop hook's settings (ResolveStopHook).
	StopHook StopHook
	// DebugLog are the debug log's settings (ResolveDebugLog).
	DebugLog DebugLog
	// Warnings say why the global configuration was ignored, one line
	// each, for the command to print once.
	Warnings []string
}

// Resolve resolves the effective settings of the project cfg in the
// environment getenv (os.Getenv when nil), reading the global configuration
// at GlobalPath.
func Resolve(cfg *Config, getenv func(string) string) Effective {
	if getenv == nil {
		getenv = os.Getenv
	}
	e := Effective{CI: IsCI(getenv), BaseBranch: cfg.BaseBranch}
	if e.CI {
		e.Head = getenv(EnvGitHubSHA)
		if ref := getenv(EnvGitHubBaseRef); ref != "" {
			e.BaseBranch = ref
		}
	}
	global, err := LoadGlobal(GlobalPath(getenv))
	if err != nil {
		e.Warnings = append(e.Warnings, err.Error())
	}
	e.StopHook = ResolveStopHook(getenv, cfg.StopHook, global)
	e.DebugLog = ResolveDebugLog(cfg.DebugLog, global)
	return e
}

// Base is the effective base branch of a run: flag (-b) when given, else
// BaseBranch.
func (e Effective) Base(flag string) string {
	if flag != "" {
		return flag
	}
	return e.BaseBranch
}
