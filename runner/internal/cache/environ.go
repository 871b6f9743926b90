package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// perConnectionEnv are the variables that name the connection, terminal,
// pane or window a shell runs in (a reconnect, a new tmux pane or a new
// editor window changes them) and that no gate or reviewer reads to decide
// anything: an agent forwarding, a terminal's or a multiplexer's handle.
// They are left out of EnvIdentity, so that a stop from a new connection
// takes what an unchanged environment proved. Variables a gate can act on
// differently stay in (DISPLAY, WAYLAND_DISPLAY and XAUTHORITY choose the
// display a browser or GUI test opens; TERM, COLUMNS and LINES change
// what programs print).
var perConnectionEnv = []string{
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY", "GPG_TTY",
	"WINDOWID", "TMUX", "TMUX_PANE", "STY", "WINDOW", "ZELLIJ_PANE_ID",
	"TERM_SESSION_ID", "ITERM_SESSION_ID", "SECURITYSESSIONID", "XDG_SESSION_ID",
	"WEZTERM_PANE", "KITTY_WINDOW_ID", "KITTY_PID", "ALACRITTY_WINDOW_ID", "GNOME_TERMINAL_SCREEN",
	"KONSOLE_DBUS_WINDOW", "KONSOLE_DBUS_SESSION", "WT_SESSION",
	"VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE",
}

// PerConnectionEnv are perConnectionEnv's names (a copy), for tests and
// documentation.
func PerConnectionEnv() []string { return slices.Clone(perConnectionEnv) }

// watched is a path in a user's home or the system whose identity is part
// of EnvIdentity: a file or directory that a reviewer CLI or a common tool
// runtime reads besides the project. A file present when a run takes the
// identity is told by its own identity, and its absence by "absent"; one
// created and removed while a run is under way (after it took the
// identity) is not told: the directories that would tell it (the home
// directory, the CLIs' own) change on their own as the CLIs run.
type watched struct {
	// path is the file or directory.
	path string
	// list also identifies each entry of a directory (one level down): a
	// file edited in place in it leaves the directory's own times alone.
	list bool
}

// userFiles are the files and directories of environment env (a variable
// lookup) that the review CLIs (adapter.Specs) and common tool runtimes
// read from a user's home or the system: instructions, settings, user
// site-packages, configuration files of package managers and toolchains.
// Files a program rewrites on every run (Claude Code's ~/.claude.json,
// session logs, histories) are not among them, or no stop would ever take
// a result again.
func userFiles(env func(string) string) []watched {
	home := env("HOME")
	if home == "" {
		return nil
	}
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		return def
	}
	xdg := or(env("XDG_CONFIG_HOME"), filepath.Join(home, ".config"))
	claude := or(env("CLAUDE_CONFIG_DIR"), filepath.Join(home, ".claude"))
	codex := or(env("CODEX_HOME"), filepath.Join(home, ".codex"))
	gemini := filepath.Join(home, ".gemini")
	copilot := filepath.Join(home, ".copilot")
	cargo := or(env("CARGO_HOME"), filepath.Join(home, ".cargo"))
	pyBase := or(env("PYTHONUSERBASE"), filepath.Join(home, ".local"))
	npmrc := or(or(env("NPM_CONFIG_USERCONFIG"), env("npm_config_userconfig")), filepath.Join(home, ".npmrc"))
	goenv := or(env("GOENV"), filepath.Join(xdg, "go", "env"))

	var w []watched
	in := func(dir string, list bool, names ...string) {
		for _, n := range names {
			w = append(w, watched{path: filepath.Join(dir, n), list: list})
		}
	}
	// reviewers
	in(claude, false, "CLAUDE.md", "settings.json", "settings.local.json")
	in(claude, true, "agents", "commands", "skills", "output-styles", "rules")
	in("/etc/claude-code", false, "managed-settings.json", "CLAUDE.md")
	in(codex, false, "config.toml", "AGENTS.md", "AGENTS.override.md")
	in(codex, true, "prompts", "skills", "rules")
	in(gemini, false, "settings.json", "GEMINI.md", ".env")
	in(gemini, true, "commands", "extensions")
	in(home, false, ".env")
	in("/etc/gemini-cli", false, "settings.json", "system-defaults.json")
	in(copilot, false, "config.json", "settings.json", "mcp-config.json", "copilot-instructions.md")
	in(copilot, true, "agents")
	in(filepath.Join(home, ".cursor"), false, "mcp.json")
	// runtimes and toolchains
	w = append(w, pythonUserSites(pyBase, home)...)
	w = append(w, watched{path: npmrc}, watched{path: goenv})
	in(home, true, ".node_modules", ".node_libraries")
	in(home, false, ".yarnrc", ".yarnrc.yml", ".bunfig.toml", ".gitconfig", ".gemrc",
		".pylintrc", ".mypy.ini", ".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json")
	in(filepath.Join(home, ".bundle"), false, "config")
	in(xdg, false, "pnpm/rc", "git/config", "git/attributes", "ruff/ruff.toml", "ruff/.ruff.toml",
		"ruff/pyproject.toml", "mypy/config", "pylintrc")
	in(cargo, false, "config.toml", "config")
	return w
}

// pythonUserSites are the user site-packages directories of base (a
// PYTHONUSERBASE, ~/.local on Linux) and of macOS's ~/Library/Python,
// for every Python 3 found there: Python imports usercustomize and runs
// the .pth files in them at every start, so a file there can make every
// Python check pass. Each is listed (see sitePackagesEntry).
func pythonUserSites(base, home string) []watched {
	lib := filepath.Join(base, "lib")
	var w []watched
	sites := func(dir, pattern, under string) {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, m := range matches {
			w = append(w, watched{path: filepath.Join(m, under), list: true})
		}
	}
	sites(lib, "python3*", "site-packages")
	sites(filepath.Join(home, "Library", "Python"), "3*", filepath.Join("lib", "python", "site-packages"))
	return w
}

// sitePackagesEntry reports whether name, an entry of a site-packages
// directory, is one Python runs at start (a .pth file, usercustomize or
// sitecustomize, as a module or a package): only those are identified,
// not every installed package.
func sitePackagesEntry(name string) bool {
	return strings.HasSuffix(name, ".pth") || strings.HasPrefix(name, "usercustomize") || strings.HasPrefix(name, "sitecustomize")
}

// maxListed bounds the entries of one watched directory that are
// identified one by one; the rest are counted.
const maxListed = 256

// writeWatched writes the identity of each of ws to h: the identity of
// the file or directory (through a symbolic link, that of the link and of
// what it leads to), or "absent"; for a listed directory, each entry's as
// well (for a site-packages directory, only those Python runs at start,
// and usercustomize's or sitecustomize's __init__.py).
func writeWatched(h io.Writer, ws []watched) {
	for _, w := range ws {
		id, there := pathIdentity(w.path)
		fmt.Fprintf(h, "\x00%s=%s", w.path, id)
		if !there || !w.list {
			continue
		}
		entries, err := os.ReadDir(w.path)
		if err != nil {
			fmt.Fprintf(h, " unreadable")
			continue
		}
		site := filepath.Base(w.path) == "site-packages"
		n := 0
		for _, e := range entries {
			if site && !sitePackagesEntry(e.Name()) {
				continue
			}
			if n++; n > maxListed {
				continue
			}
			p := filepath.Join(w.path, e.Name())
			fmt.Fprintf(h, "\x00 %s=%s", e.Name(), identity(p))
			if site && e.IsDir() {
				fmt.Fprintf(h, " %s", identity(filepath.Join(p, "__init__.py")))
			}
		}
		fmt.Fprintf(h, " %d entries", n)
	}
}

// writePathDirs writes the identity of each directory on path (a PATH
// value) to h, or "absent": a program added to one and removed again, even
// while a run is under way, or a directory swapped, changes it (the
// directory's change time cannot be set back).
func writePathDirs(h io.Writer, path string) {
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if !seen[dir] {
			seen[dir] = true
			fmt.Fprintf(h, "\x00\x00path %s=%s", dir, identity(dir))
		}
	}
}

// pathIdentity is the identity of p without following a final symbolic
// link, and through it the identity of what it leads to ("dangling" when
// nothing); "absent" when there is nothing at p. there reports whether p
// leads to something.
func pathIdentity(p string) (id string, there bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "absent", false
	}
	id = fileIdentity(fi)
	if fi.Mode()&os.ModeSymlink == 0 {
		return id, true
	}
	target, _ := os.Readlink(p)
	id += " -> " + target
	to, err := os.Stat(p)
	if err != nil {
		return id + " dangling", false
	}
	return id + " " + fileIdentity(to), true
}

// identity is pathIdentity's identity alone.
func identity(p string) string {
	id, _ := pathIdentity(p)
	return id
}

// maxProgramWords bounds the words of the commands ProgramsIdentity
// resolves (a stat per PATH directory each).
const maxProgramWords = 64

// ProgramWords are the words of the shell commands that can name a
// program they run: the shell that runs them (check.Shell's "sh") and
// every word of letters, digits and "._+-" that does not start with "-"
// or "." (at most maxProgramWords), sorted. Words that name no program
// are among them: they cost a stat per PATH directory each and change
// nothing unless a program of that name appears.
func ProgramWords(commands []string) []string {
	words := map[string]bool{"sh": true}
	for _, c := range commands {
		for _, w := range strings.FieldsFunc(c, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+-", r))
		}) {
			if len(words) < maxProgramWords && w[0] != '-' && w[0] != '.' {
				words[w] = true
			}
		}
	}
	list := make([]string, 0, len(words))
	for w := range words {
		list = append(list, w)
	}
	slices.Sort(list)
	return list
}

// ProgramsIdentity identifies the programs words (ProgramWords) name, as
// found on path (a PATH value): each word with its ProgramIdentity. A
// program rewritten in place and put back, which leaves its directory's
// times alone (EnvIdentity holds those), changes it: its change time
// moves.
func ProgramsIdentity(words []string, path string) string {
	return programsIdentity(words, path, map[string]string{})
}

// programsIdentity is ProgramsIdentity with the identities of words found
// before on path in memo (added to it): the checks of a run share their
// words, and each costs a stat per PATH directory.
func programsIdentity(words []string, path string, memo map[string]string) string {
	h := sha256.New()
	for _, w := range words {
		id, ok := memo[w]
		if !ok {
			id = ProgramIdentity(w, path)
			memo[w] = id
		}
		fmt.Fprintf(h, "%s=%s\x00", w, id)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
