package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// check finds what keeps one client from running its installed stop hook
// (st).
type check func(e env, d hookproto.Dialect, st install.Status) []Problem

// clientChecks are the checks each client needs beyond the common ones:
// trust, settings that turn hooks off, other files it reads hooks from.
// Each fact was checked with the real client (the headers of
// testdata/script/hooks_*.txtar and testdata/e2e/*.txtar say with which).
var clientChecks = map[hookproto.Agent][]check{
	hookproto.Claude: {
		lastSwitch(
			userFile(".claude/settings.json"), projectFile(".claude/settings.json"), projectFile(".claude/settings.local.json"),
		)(true, "disableAllHooks"),
	},
	hookproto.Codex: {codexTrust},
	hookproto.Gemini: {
		switches(userFile(".gemini/settings.json"), projectFile(".gemini/settings.json"))(false, "hooksConfig", "enabled"),
		geminiDisabledByName, geminiTrust,
	},
	hookproto.Copilot: {copilotTrust, copilotDisabled},
	hookproto.Qwen: {
		switches(userFile(".qwen/settings.json"), projectFile(".qwen/settings.json"))(true, "disableAllHooks"),
	},
	hookproto.Droid: {
		switches(userFile(".factory/settings.json"))(true, "hooks", "hooksDisabled"),
	},
}

// place is a settings file of the user (under HOME) or of the project, or
// one at an absolute path.
type place struct {
	rel       string
	user, abs bool
}

func userFile(rel string) place    { return place{rel: rel, user: true} }
func projectFile(rel string) place { return place{rel: rel} }

// path is the file's path, "" for a user file without HOME.
func (p place) path(e env) string {
	if p.abs {
		return p.rel
	}
	if !p.user {
		return filepath.Join(e.root, filepath.FromSlash(p.rel))
	}
	if e.home == "" {
		return ""
	}
	return filepath.Join(e.home, filepath.FromSlash(p.rel))
}

// shown is how the file is named in a message.
func (p place) shown() string {
	if p.user && !p.abs {
		return "~/" + p.rel
	}
	return p.rel
}

// maxUserFile bounds what is read of a client's settings file.
const maxUserFile = 16 << 20

// readJSON reads a JSON object file as a client reading syntax does, nil
// when it is missing or not readable so (the client would not read it
// either).
func readJSON(path string, syntax hookproto.Syntax) map[string]any {
	if path == "" {
		return nil
	}
	data, err := fsread.File(path, maxUserFile)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(install.Readable(data, syntax), &m) != nil {
		return nil
	}
	return m
}

// at is the value at the keys' path in m, nil when absent.
func at(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

// switches checks that no file of places sets the boolean at keys to off:
// a setting that turns every hook of the client off.
func switches(places ...place) func(off bool, keys ...string) check {
	return func(off bool, keys ...string) check {
		setting := strings.Join(keys, ".")
		return func(e env, d hookproto.Dialect, _ install.Status) []Problem {
			var out []Problem
			for _, p := range places {
				if v, ok := at(readJSON(p.path(e), d.Settings.Syntax), keys...).(bool); ok && v == off {
					out = append(out, Problem{Kind: KindHooksDisabled, Blocking: true,
						Message: fmt.Sprintf("%q: %t in %s turns every %s hook off", setting, off, p.shown(), d.Display),
						Fix:     fmt.Sprintf("remove %q from %s", setting, p.shown())})
				}
			}
			return out
		}
	}
}

// lastSwitch is switches for a client whose settings files are layers,
// later ones overriding earlier ones: the last file of places that sets
// the boolean decides (Claude Code: user, project, local; checked with
// Claude Code 2.1.328).
func lastSwitch(places ...place) func(off bool, keys ...string) check {
	return func(off bool, keys ...string) check {
		setting := strings.Join(keys, ".")
		return func(e env, d hookproto.Dialect, _ install.Status) []Problem {
			var last *place
			var value bool
			for i, p := range places {
				if v, ok := at(readJSON(p.path(e), d.Settings.Syntax), keys...).(bool); ok {
					last, value = &places[i], v
				}
			}
			if last == nil || value != off {
				return nil
			}
			return []Problem{{Kind: KindHooksDisabled, Blocking: true,
				Message: fmt.Sprintf("%q: %t in %s turns every %s hook off", setting, off, last.shown(), d.Display),
				Fix:     fmt.Sprintf("remove %q from %s", setting, last.shown())}}
		}
	}
}

// geminiDisabledByName: Gemini CLI skips the hooks whose name (the
// gauntlet's is install.Program) is listed in hooksConfig.disabled of its
// user or project settings.
func geminiDisabledByName(e env, d hookproto.Dialect, _ install.Status) []Problem {
	var out []Problem
	for _, p := range []place{userFile(".gemini/settings.json"), projectFile(".gemini/settings.json")} {
		names, _ := at(readJSON(p.path(e), d.Settings.Syntax), "hooksConfig", "disabled").([]any)
		if slices.Contains(names, any(install.Program)) {
			out = append(out, Problem{Kind: KindHookDisabled, Blocking: true,
				Message: fmt.Sprintf("%s lists %q in hooksConfig.disabled: %s skips the hook", p.shown(), install.Program, d.Display),
				Fix:     fmt.Sprintf("remove %q from hooksConfig.disabled in %s", install.Program, p.shown())})
		}
	}
	return out
}

// geminiHome is Gemini CLI's user directory: GEMINI_CLI_HOME/.gemini,
// else ~/.gemini.
func (e env) geminiHome() string {
	home := e.getenv("GEMINI_CLI_HOME")
	if home == "" {
		home = e.home
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".gemini")
}

// geminiTrust: Gemini CLI runs a project's hooks only in a trusted
// workspace, folder trust being on unless the user's settings set
// security.folderTrust.enabled to false (checked with Gemini CLI 0.61).
// GEMINI_CLI_TRUST_WORKSPACE=true trusts it, =false (or
// GEMINI_RESTRICTED_MODE=true) distrusts it; else the rule of
// trustedFolders.json (GEMINI_CLI_TRUSTED_FOLDERS_PATH, else in Gemini's
// user directory) with the longest path over the project decides:
// TRUST_FOLDER trusts the folder and below, TRUST_PARENT the folder's
// parent and below, DO_NOT_TRUST distrusts; no rule, not trusted.
func geminiTrust(e env, d hookproto.Dialect, st install.Status) []Problem {
	if !within(st.Path, filepath.Join(e.root, ".gemini")) {
		return nil // the user's own hooks run anywhere
	}
	switch {
	case e.getenv("GEMINI_RESTRICTED_MODE") == "true" || e.getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false":
	case e.getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true":
		return nil
	default:
		home := e.geminiHome()
		settings := readJSON(filepath.Join(home, "settings.json"), d.Settings.Syntax)
		if on, ok := at(settings, "security", "folderTrust", "enabled").(bool); ok && !on {
			return nil
		}
		path := e.getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
		if path == "" && home != "" {
			path = filepath.Join(home, "trustedFolders.json")
		}
		if geminiTrusted(readJSON(path, hookproto.JSONC), e.root) {
			return nil
		}
	}
	return []Problem{{Kind: KindUntrustedFolder, Blocking: true,
		Message: "Gemini CLI runs no project hook in a workspace it does not trust, and says nothing",
		Fix: fmt.Sprintf("accept Gemini's trust prompt here (or /permissions), add %q: \"TRUST_FOLDER\" to ~/.gemini/trustedFolders.json, or set GEMINI_CLI_TRUST_WORKSPACE=true",
			e.root)}}
}

// geminiTrusted applies the rules of trustedFolders.json to dir.
func geminiTrusted(rules map[string]any, dir string) bool {
	longest, level := -1, ""
	for rule, v := range rules {
		lv, _ := v.(string)
		effective := rule
		if lv == "TRUST_PARENT" {
			effective = filepath.Dir(rule)
		}
		if within(dir, effective) && len(rule) > longest {
			longest, level = len(rule), lv
		}
	}
	return level == "TRUST_FOLDER" || level == "TRUST_PARENT"
}

// plugin is the gauntlet's Claude Code plugin, enabled in a settings file.
type plugin struct{ name, where string }

// claudePlugins lists where the gauntlet's Claude Code plugin is enabled:
// an "agent-gauntlet@<marketplace>": true of enabledPlugins in the user's
// or the project's settings.
func claudePlugins(e env) []plugin {
	var out []plugin
	places := []place{userFile(".claude/settings.json"), projectFile(".claude/settings.json"), projectFile(".claude/settings.local.json")}
	for _, p := range places {
		plugins, _ := at(readJSON(p.path(e), hookproto.JSONWithBOM), "enabledPlugins").(map[string]any)
		for _, name := range sortedKeys(plugins) {
			if on, _ := plugins[name].(bool); on && strings.HasPrefix(name, install.Program+"@") && claudePluginInstalled(e, name) {
				out = append(out, plugin{name: name, where: p.shown()})
			}
		}
	}
	return out
}

// claudePluginInstalled reports whether Claude Code has the plugin name
// installed: enabling a plugin in settings (synced from another machine,
// say) runs nothing until it is installed, which Claude Code records in
// plugins/installed_plugins.json of its home (seen with Claude Code
// 2.1.328: {"version": 2, "plugins": {name: [{scope, installPath, ...}]}}).
func claudePluginInstalled(e env, name string) bool {
	p := userFile(".claude/plugins/installed_plugins.json")
	plugins, _ := at(readJSON(p.path(e), hookproto.JSONWithBOM), "plugins").(map[string]any)
	switch v := plugins[name].(type) {
	case []any:
		return len(v) > 0
	case map[string]any:
		return true
	}
	return false
}

// codexConfig is what the doctor reads of Codex's config.toml.
type codexConfig struct {
	Features map[string]any `toml:"features"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
	Hooks struct {
		State map[string]struct {
			Enabled     *bool  `toml:"enabled"`
			TrustedHash string `toml:"trusted_hash"`
		} `toml:"state"`
		// Stop are the user's own stop hooks ([[hooks.Stop]]).
		Stop []struct {
			Hooks []struct {
				Command string  `toml:"command"`
				Timeout float64 `toml:"timeout"`
			} `toml:"hooks"`
		} `toml:"Stop"`
	} `toml:"hooks"`
}

// codexHome is Codex's home: CODEX_HOME, else ~/.codex.
func (e env) codexHome() string {
	if h := e.getenv("CODEX_HOME"); h != "" {
		return h
	}
	if e.home == "" {
		return ""
	}
	return filepath.Join(e.home, ".codex")
}

// codexTrust checks the trust Codex needs to run the stop hook st
// (codexHookProblems).
func codexTrust(e env, d hookproto.Dialect, st install.Status) []Problem {
	return codexHookProblems(e, d, st)
}

// codexHookProblems: Codex loads a project's .codex/ only in a trusted
// project (the project, or the root of its git repository, which is what
// Codex's trust prompt records), and runs a hook only once the user
// trusted that hook in its /hooks screen (its state in config.toml
// carries a trusted_hash), unless it is run with
// --dangerously-bypass-hook-trust; a hook whose state says enabled = false
// never runs. The state key is the hooks file's absolute path, the event,
// the group's and the handler's indexes. Checked with Codex 0.169's
// app-server hooks/list.
func codexHookProblems(e env, d hookproto.Dialect, st install.Status) []Problem {
	path := filepath.Join(e.codexHome(), "config.toml")
	cfg, err := readCodexConfig(path)
	if err != nil {
		return []Problem{{Kind: KindUnreadable, Blocking: true,
			Message: fmt.Sprintf("%s cannot be read: %v", path, err), Fix: "fix the file (Codex cannot read it either)"}}
	}
	var out []Problem
	if on, ok := cfg.Features["hooks"].(bool); ok && !on {
		out = append(out, Problem{Kind: KindHooksDisabled, Blocking: true,
			Message: fmt.Sprintf("hooks = false under [features] in %s turns every Codex hook off", path),
			Fix:     fmt.Sprintf("remove hooks = false from [features] in %s", path)})
	}
	if within(st.Path, filepath.Join(e.root, ".codex")) && !codexTrusts(cfg, e.root) {
		out = append(out, Problem{Kind: KindUntrustedProject, Blocking: true,
			Message: "Codex ignores .codex/hooks.json in a project it does not trust",
			Fix: fmt.Sprintf("run `codex exec --trust` once here, accept Codex's trust prompt, or add [projects.%q] trust_level = \"trusted\" to %s",
				gitRoot(e.root), path)})
	}
	for _, key := range codexKeys(st, d) {
		state := cfg.Hooks.State[key]
		switch {
		case state.Enabled != nil && !*state.Enabled:
			out = append(out, Problem{Kind: KindHookDisabled, Blocking: true,
				Message: fmt.Sprintf("Codex has the hook %s turned off (enabled = false in %s)", key, path),
				Fix:     fmt.Sprintf("turn it on in Codex's /hooks screen, or remove enabled = false from [hooks.state.%q] in %s", key, path)})
		case state.TrustedHash == "":
			out = append(out, Problem{Kind: KindUntrustedHook, Blocking: true,
				Message: "Codex skips a hook nobody has trusted yet, silently",
				Fix:     "open Codex in this project and trust the hook in its /hooks screen (or run codex with --dangerously-bypass-hook-trust)"})
		}
	}
	return out
}

// readCodexConfig reads Codex's config.toml; a missing file is empty.
func readCodexConfig(path string) (codexConfig, error) {
	var cfg codexConfig
	if _, err := toml.DecodeFile(path, &cfg); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return cfg, err
	}
	return cfg, nil
}

// codexTrusts reports whether Codex trusts the project at root: root
// itself, or the root of the git repository it lies in, is trusted.
func codexTrusts(cfg codexConfig, root string) bool {
	for _, dir := range []string{root, gitRoot(root)} {
		if cfg.Projects[dir].TrustLevel == "trusted" {
			return true
		}
	}
	return false
}

// gitRoot is the top directory of the git repository dir lies in (the
// nearest one holding .git), dir itself when none does.
func gitRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// codexTOMLHooks is the gauntlet stop hook of [[hooks.Stop]] in Codex's
// user config.toml, which Codex runs beside the hooks files' (checked
// with Codex 0.169); its entries' timeouts are seconds, 600 by default.
func (e env) codexTOMLHooks() (install.Status, bool) {
	if e.codexHome() == "" {
		return install.Status{}, false
	}
	path := filepath.Join(e.codexHome(), "config.toml")
	cfg, err := readCodexConfig(path)
	if err != nil {
		return install.Status{}, false
	}
	st := install.Status{Agent: hookproto.Codex, Path: path}
	for _, group := range cfg.Hooks.Stop {
		for _, h := range group.Hooks {
			if !install.IsStopHook(h.Command) {
				continue
			}
			if st.Count == 0 {
				st.Command, st.Timeout = h.Command, codexDefaultTimeout
				if h.Timeout > 0 {
					st.Timeout = time.Duration(h.Timeout * float64(time.Second))
				}
			}
			st.Count++
			st.Commands = append(st.Commands, h.Command)
		}
	}
	st.Installed = st.Count > 0
	return st, st.Installed
}

// codexDefaultTimeout is Codex's hook timeout for an entry naming none.
var codexDefaultTimeout = func() time.Duration {
	d, _ := hookproto.Lookup(hookproto.Codex)
	return d.HookTimeout
}()

// codexKeys are the state keys of the gauntlet's stop hooks in st's file:
// a hooks.json, or config.toml's [[hooks.Stop]].
func codexKeys(st install.Status, d hookproto.Dialect) []string {
	type group struct {
		Hooks []struct {
			Command string `json:"command" toml:"command"`
		} `json:"hooks" toml:"hooks"`
	}
	var groups []group
	if filepath.Ext(st.Path) == ".toml" {
		var file struct {
			Hooks struct {
				Stop []group `toml:"Stop"`
			} `toml:"hooks"`
		}
		if _, err := toml.DecodeFile(st.Path, &file); err != nil {
			return nil
		}
		groups = file.Hooks.Stop
	} else {
		var file struct {
			Hooks map[string][]group `json:"hooks"`
		}
		data, err := fsread.File(st.Path, maxUserFile)
		if err != nil || json.Unmarshal(data, &file) != nil {
			return nil
		}
		groups = file.Hooks[d.Settings.Stop]
	}
	var keys []string
	for g, group := range groups {
		for h, handler := range group.Hooks {
			if install.IsStopHook(handler.Command) {
				keys = append(keys, fmt.Sprintf("%s:stop:%d:%d", st.Path, g, h))
			}
		}
	}
	return keys
}

// copilotConfig is Copilot CLI's config.json: in COPILOT_HOME, else
// ~/.copilot.
func (e env) copilotConfig() place {
	if h := e.getenv("COPILOT_HOME"); h != "" {
		return place{rel: filepath.Join(h, "config.json"), abs: true}
	}
	return userFile(".copilot/config.json")
}

// copilotTrust: Copilot CLI runs a repository's hooks only in a folder the
// user trusts: the folder or one above it in the trusted folders of its
// config.json, or COPILOT_ALLOW_ALL=true (or --trust-folder for one run,
// which the doctor cannot see). Copilot rewrites config.json with a //
// header and the key trustedFolders (checked with Copilot CLI 1.0.102);
// trusted_folders, the key it once wrote, is still read.
func copilotTrust(e env, d hookproto.Dialect, _ install.Status) []Problem {
	if e.getenv("COPILOT_ALLOW_ALL") == "true" {
		return nil
	}
	cfg := e.copilotConfig()
	m := readJSON(cfg.path(e), hookproto.JSONC)
	for _, key := range []string{"trustedFolders", "trusted_folders"} {
		folders, _ := at(m, key).([]any)
		for _, f := range folders {
			if s, ok := f.(string); ok && within(e.root, s) {
				return nil
			}
		}
	}
	return []Problem{{Kind: KindUntrustedFolder, Blocking: true,
		Message: "Copilot CLI runs no repository hook in a folder you have not trusted, and says nothing",
		Fix: fmt.Sprintf("accept Copilot's trust prompt here, add %q to trustedFolders in %s, or run copilot with --trust-folder",
			e.root, cfg.shown())}}
}

// within reports whether dir is folder or lies below it.
func within(dir, folder string) bool {
	r, err := filepath.Rel(filepath.Clean(folder), dir)
	return err == nil && (r == "." || filepath.IsLocal(r))
}

// copilotDisabled: "disableAllHooks": true in a file of .github/hooks
// turns that file's hooks off, not the other files' (checked with Copilot
// CLI 1.0.102).
func copilotDisabled(e env, d hookproto.Dialect, st install.Status) []Problem {
	if on, _ := at(readJSON(st.Path, d.Settings.Syntax), "disableAllHooks").(bool); !on || st.Agent != d.Agent ||
		filepath.Ext(st.Path) != ".json" {
		return nil
	}
	return []Problem{{Kind: KindHooksDisabled, Blocking: true,
		Message: fmt.Sprintf("\"disableAllHooks\": true in %s turns the hooks of that file off", e.rel(st.Path)),
		Fix:     "remove \"disableAllHooks\" from " + e.rel(st.Path)}}
}

// sortedKeys returns m's keys in order (for stable messages).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// found is one gauntlet stop hook a client will run, and where it is.
type found struct{ where, command string }

// source is a settings file a client reads stop hooks from, read as the
// settings of shape's row.
type source struct {
	shape hookproto.Agent
	at    place
	// foreign: another client's file, which this client runs too: its
	// hooks count as run twice, never as this client's hook installed
	// (the project may not use this client at all).
	foreign bool
}

// otherSources are the places besides its project file (the row's
// Settings.Path) that each client reads stop hooks from, checked with the
// real clients where marked: Claude Code's local and user settings
// (checked); Copilot CLI's other files of .github/hooks and
// .claude/settings.json (checked); Qwen Code's and Gemini CLI's user
// settings; Factory Droid's "hooks" of .factory/settings.json (checked);
// Codex's and Cursor's user hooks files. Claude Code's plugins and Codex's
// config.toml are read apart (claudePlugins, codexTOMLHooks).
var otherSources = map[hookproto.Agent]func(e env) []source{
	hookproto.Claude: func(e env) []source {
		return []source{{shape: hookproto.Claude, at: projectFile(".claude/settings.local.json")}, {shape: hookproto.Claude, at: userFile(".claude/settings.json")}}
	},
	hookproto.Copilot: func(e env) []source {
		var out []source
		entries, _ := os.ReadDir(filepath.Join(e.root, ".github", "hooks"))
		for _, ent := range entries {
			if !ent.IsDir() && filepath.Ext(ent.Name()) == ".json" {
				out = append(out, source{shape: hookproto.Copilot, at: projectFile(".github/hooks/" + ent.Name())})
			}
		}
		return append(out, source{shape: hookproto.Claude, at: projectFile(".claude/settings.json"), foreign: true})
	},
	hookproto.Qwen: func(e env) []source {
		return []source{{shape: hookproto.Qwen, at: userFile(".qwen/settings.json")}}
	},
	hookproto.Gemini: func(e env) []source {
		return []source{{shape: hookproto.Gemini, at: userFile(".gemini/settings.json")}}
	},
	hookproto.Cursor: func(e env) []source {
		return []source{{shape: hookproto.Cursor, at: userFile(".cursor/hooks.json")}}
	},
	// .factory/settings.json holds its hooks under "hooks", as Claude
	// Code's settings do.
	hookproto.Droid: func(e env) []source {
		return []source{{shape: hookproto.Claude, at: projectFile(".factory/settings.json")}}
	},
	hookproto.Codex: func(e env) []source {
		home := e.codexHome()
		if home == "" {
			return nil
		}
		return []source{{shape: hookproto.Codex, at: place{rel: filepath.Join(home, "hooks.json"), abs: true}}}
	},
}

// sourcesOf lists d's other sources, nil for a client without any.
func (e env) sourcesOf(d hookproto.Agent) []source {
	if f := otherSources[d]; f != nil {
		return f(e)
	}
	return nil
}

// elsewhere is the first stop hook d's client runs from a file other than
// its project file: the hook the doctor checks when the project file has
// none (a user-level hook, another file of .github/hooks).
func (e env) elsewhere(d hookproto.Dialect, skip string) (install.Status, bool) {
	for _, src := range e.sourcesOf(d.Agent) {
		path := src.at.path(e)
		if path == "" || path == skip || src.foreign {
			continue
		}
		st := install.CheckHook(e.root, src.shape, path, install.StopHook)
		if st.Installed && e.runs(d, st) {
			st.Agent = d.Agent
			return st, true
		}
	}
	if d.Agent == hookproto.Codex {
		if st, ok := e.codexTOMLHooks(); ok && e.runs(d, st) {
			return st, true
		}
	}
	return install.Status{}, false
}

// runs reports whether d's client runs the hooks of st's file at all (a
// Codex hook nobody trusted is skipped).
func (e env) runs(d hookproto.Dialect, st install.Status) bool {
	if d.Agent != hookproto.Codex {
		return true
	}
	for _, p := range codexHookProblems(e, d, st) {
		if p.Blocking {
			return false
		}
	}
	return true
}

// pluginCommand is what the gauntlet's Claude Code plugin runs at a stop
// (plugins/agent-gauntlet/hooks/hooks.json): a command of its own, never
// the same text as an installed hook's.
const pluginCommand = `"${CLAUDE_PLUGIN_ROOT}/scripts/agent-gauntlet-hook" stop-hook --agent claude --timeout 600`

// foundIn lists the gauntlet stop hooks d's client runs from its other
// sources, skipping the file at skip (the one already counted).
func (e env) foundIn(d hookproto.Dialect, skip string) []found {
	var out []found
	for _, src := range e.sourcesOf(d.Agent) {
		path := src.at.path(e)
		if path == "" || path == skip {
			continue
		}
		st := install.CheckHook(e.root, src.shape, path, install.StopHook)
		if !e.runs(d, st) {
			continue
		}
		for _, c := range st.Commands {
			out = append(out, found{where: src.at.shown(), command: c})
		}
	}
	if d.Agent == hookproto.Claude {
		for _, pl := range claudePlugins(e) {
			out = append(out, found{where: "the " + pl.name + " plugin (enabled in " + pl.where + ")", command: pluginCommand})
		}
	}
	if d.Agent == hookproto.Codex {
		if st, ok := e.codexTOMLHooks(); ok && st.Path != skip && e.runs(d, st) {
			for _, c := range st.Commands {
				out = append(out, found{where: st.Path, command: c})
			}
		}
	}
	return out
}

// installedTwice: the gates run more than once at a stop when the client
// runs more than one gauntlet stop hook: every entry it reads, or, for a
// client that runs a command once however many entries name it
// (hookproto.Dialect.Dedup), every distinct command.
func installedTwice(e env, d hookproto.Dialect, st install.Status) []Problem {
	var all []found
	for _, c := range st.Commands {
		all = append(all, found{where: e.rel(st.Path), command: c})
	}
	all = append(all, e.foundIn(d, st.Path)...)
	runs, seen := []found{}, map[string]bool{}
	for _, f := range all {
		if d.Dedup && seen[f.command] {
			continue
		}
		seen[f.command] = true
		runs = append(runs, f)
	}
	if len(runs) < 2 {
		return nil
	}
	var where []string
	for _, f := range runs {
		if !slices.Contains(where, f.where) {
			where = append(where, f.where)
		}
	}
	what := fmt.Sprintf("%s runs %d gauntlet stop hooks (%s)", d.Display, len(runs), strings.Join(where, ", "))
	if len(where) == 1 {
		what = fmt.Sprintf("%s holds %d gauntlet stop hooks", where[0], len(runs))
	}
	fix := "remove the gauntlet's stop hook from all but one of " + strings.Join(where, ", ")
	if len(where) == 1 {
		fix = "remove all but one of them from " + where[0]
	}
	for _, pl := range claudePlugins(e) {
		if d.Agent == hookproto.Claude {
			fix += fmt.Sprintf(" (`claude plugin uninstall %s` removes the plugin's)", pl.name)
		}
	}
	return []Problem{twice(d, what, fix)}
}
