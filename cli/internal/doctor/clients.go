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
		switches(
			userFile(".claude/settings.json"), projectFile(".claude/settings.json"), projectFile(".claude/settings.local.json"),
		)(true, "disableAllHooks"),
	},
	hookproto.Codex: {codexTrust},
	hookproto.Gemini: {
		switches(userFile(".gemini/settings.json"), projectFile(".gemini/settings.json"))(false, "hooksConfig", "enabled"),
		geminiDisabledByName,
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
			if on, _ := plugins[name].(bool); on && strings.HasPrefix(name, install.Program+"@") {
				out = append(out, plugin{name: name, where: p.shown()})
			}
		}
	}
	return out
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

// codexTrust: Codex loads a project's .codex/ only in a trusted project,
// and runs a hook of it only once the user trusted that hook in its /hooks
// screen (its state in config.toml carries a trusted_hash), unless it is
// run with --dangerously-bypass-hook-trust; a hook whose state says
// enabled = false never runs. The state key is the hooks file's absolute
// path, the event, the group's and the handler's indexes.
func codexTrust(e env, d hookproto.Dialect, st install.Status) []Problem {
	path := filepath.Join(e.codexHome(), "config.toml")
	var cfg codexConfig
	if _, err := toml.DecodeFile(path, &cfg); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return []Problem{{Kind: KindUnreadable, Blocking: true,
			Message: fmt.Sprintf("%s cannot be read: %v", path, err), Fix: "fix the file (Codex cannot read it either)"}}
	}
	var out []Problem
	if on, ok := cfg.Features["hooks"].(bool); ok && !on {
		out = append(out, Problem{Kind: KindHooksDisabled, Blocking: true,
			Message: fmt.Sprintf("hooks = false under [features] in %s turns every Codex hook off", path),
			Fix:     fmt.Sprintf("remove hooks = false from [features] in %s", path)})
	}
	if cfg.Projects[e.root].TrustLevel != "trusted" {
		out = append(out, Problem{Kind: KindUntrustedProject, Blocking: true,
			Message: "Codex ignores .codex/hooks.json in a project it does not trust",
			Fix: fmt.Sprintf("run `codex exec --trust` once here, accept Codex's trust prompt, or add [projects.%q] trust_level = \"trusted\" to %s",
				e.root, path)})
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

// codexKeys are the state keys of the gauntlet's stop hooks in st's file.
func codexKeys(st install.Status, d hookproto.Dialect) []string {
	var file struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data, err := fsread.File(st.Path, maxUserFile)
	if err != nil || json.Unmarshal(data, &file) != nil {
		return nil
	}
	var keys []string
	for g, group := range file.Hooks[d.Settings.Stop] {
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

// copilotDisabled: "disableAllHooks": true in any file of .github/hooks
// turns every repository hook off.
func copilotDisabled(e env, d hookproto.Dialect, st install.Status) []Problem {
	dir := filepath.Dir(st.Path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Problem
	for _, ent := range entries {
		if ent.IsDir() || filepath.Ext(ent.Name()) != ".json" {
			continue
		}
		p := filepath.Join(dir, ent.Name())
		if on, _ := at(readJSON(p, d.Settings.Syntax), "disableAllHooks").(bool); on {
			out = append(out, Problem{Kind: KindHooksDisabled, Blocking: true,
				Message: fmt.Sprintf("\"disableAllHooks\": true in %s turns every repository hook of %s off", e.rel(p), d.Display),
				Fix:     "remove \"disableAllHooks\" from " + e.rel(p)})
		}
	}
	return out
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

// otherSources are the places besides its project file (the row's
// Settings.Path) that each client reads stop hooks from, checked with the
// real clients where marked: Claude Code's local and user settings and its
// plugins; Copilot CLI's other files of .github/hooks and
// .claude/settings.json (checked); Qwen Code's and Gemini CLI's user
// settings; Factory Droid's "hooks" of .factory/settings.json (checked);
// Codex's and Cursor's user hooks files.
var otherSources = map[hookproto.Agent]func(e env, st install.Status) []found{
	hookproto.Claude: func(e env, st install.Status) []found {
		out := e.foundIn(hookproto.Claude, st.Path, projectFile(".claude/settings.local.json"), userFile(".claude/settings.json"))
		for _, pl := range claudePlugins(e) {
			out = append(out, found{where: "the " + pl.name + " plugin (enabled in " + pl.where + ")", command: pluginCommand})
		}
		return out
	},
	hookproto.Copilot: func(e env, st install.Status) []found {
		var places []place
		entries, _ := os.ReadDir(filepath.Dir(st.Path))
		for _, ent := range entries {
			if !ent.IsDir() && filepath.Ext(ent.Name()) == ".json" {
				places = append(places, projectFile(".github/hooks/"+ent.Name()))
			}
		}
		out := e.foundIn(hookproto.Copilot, st.Path, places...)
		return append(out, e.foundIn(hookproto.Claude, st.Path, projectFile(".claude/settings.json"))...)
	},
	hookproto.Qwen: func(e env, st install.Status) []found {
		return e.foundIn(hookproto.Qwen, st.Path, userFile(".qwen/settings.json"))
	},
	hookproto.Gemini: func(e env, st install.Status) []found {
		return e.foundIn(hookproto.Gemini, st.Path, userFile(".gemini/settings.json"))
	},
	hookproto.Cursor: func(e env, st install.Status) []found {
		return e.foundIn(hookproto.Cursor, st.Path, userFile(".cursor/hooks.json"))
	},
	// .factory/settings.json holds its hooks under "hooks", as Claude
	// Code's settings do.
	hookproto.Droid: func(e env, st install.Status) []found {
		return e.foundIn(hookproto.Claude, st.Path, projectFile(".factory/settings.json"))
	},
	hookproto.Codex: func(e env, st install.Status) []found {
		home := e.codexHome()
		if home == "" {
			return nil
		}
		return e.foundIn(hookproto.Codex, st.Path, place{rel: filepath.Join(home, "hooks.json"), abs: true})
	},
}

// pluginCommand is what the gauntlet's Claude Code plugin runs at a stop
// (plugins/agent-gauntlet/hooks/hooks.json): a command of its own, never
// the same text as an installed hook's.
const pluginCommand = `"${CLAUDE_PLUGIN_ROOT}/scripts/agent-gauntlet-hook" stop-hook --agent claude --timeout 600`

// foundIn lists the gauntlet stop hooks in places, read as shape's
// settings, skipping the file at skip (the project file, already counted).
func (e env) foundIn(shape hookproto.Agent, skip string, places ...place) []found {
	var out []found
	for _, p := range places {
		path := p.path(e)
		if path == "" || path == skip {
			continue
		}
		st := install.CheckHook(e.root, shape, path, install.StopHook)
		for _, c := range st.Commands {
			out = append(out, found{where: p.shown(), command: c})
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
	if more := otherSources[d.Agent]; more != nil {
		all = append(all, more(e, st)...)
	}
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
