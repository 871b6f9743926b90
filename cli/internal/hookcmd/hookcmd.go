// Package hookcmd reads a hook entry's command line the way the client's
// shell runs it (clients hand the command to `sh -c`), to find whether it
// starts one of the gauntlet's hooks, with which program and arguments.
//
// A command that only names the hook (a comment, an argument of echo, a
// quoted word of another program) does not start it: only the program word
// of a simple command counts, after variable assignments, `exec`,
// `command`, `env`, a `cd dir &&` before it, a package runner (npx, bunx,
// pnpm dlx, npm exec) or a nested `sh -c`.
package hookcmd

import (
	"path"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
)

// Programs are the names the gauntlet's binary is installed under: the
// release's and the npm package's second command.
var Programs = []string{"agent-gauntlet", "agent-gauntlet-go"}

// Invocation is one start of a gauntlet hook found in a command line.
type Invocation struct {
	// Program is the program word as the shell sees it (quotes removed).
	Program string
	// Runner is the package runner that starts it ("npx", "bunx", "pnpm",
	// "npm", "yarn"), "" when the program is run directly.
	Runner string
	// Hook is the hook's subcommand ("stop-hook", "start-hook").
	Hook string
	// Args are the words after the subcommand, to the end of its simple
	// command (redirections left out).
	Args []string
	// Env are the variable assignments before the program, NAME=value.
	Env []string
}

// Find returns the first start of hook (a subcommand name such as
// "stop-hook") in the shell command line s.
func Find(s, hook string) (Invocation, bool) {
	for _, words := range simpleCommands(s) {
		if inv, ok := invocation(words, hook, 0); ok {
			return inv, true
		}
	}
	return Invocation{}, false
}

// Mentions reports whether s holds a gauntlet program name followed by
// hook as two of its words, run or not: an entry meant to be the
// gauntlet's hook.
func Mentions(s, hook string) bool {
	fields := strings.Fields(s)
	for i := 0; i+1 < len(fields); i++ {
		name := path.Base(strings.Trim(fields[i], `"'#`))
		if isProgram(name) && strings.Trim(fields[i+1], `"'`) == hook {
			return true
		}
	}
	return false
}

// isProgram reports whether a program word's base names the gauntlet,
// with or without an npm version (agent-gauntlet-go@1.2.3).
func isProgram(base string) bool {
	if at := strings.LastIndex(base, "@"); at > 0 {
		base = base[:at]
	}
	return slices.Contains(Programs, base)
}

// runners are the package runners that start a package's command, with the
// subcommand that does (none for npx and bunx).
var runners = map[string][]string{"npx": nil, "bunx": nil, "pnpx": nil, "pnpm": {"dlx", "exec"}, "npm": {"exec", "x"},
	"yarn": {"dlx", "exec"}, "bun": {"x"}}

// invocation reads one simple command's words.
func invocation(words []string, hook string, depth int) (Invocation, bool) {
	var inv Invocation
	i := 0
	for i < len(words) && isAssignment(words[i]) {
		inv.Env = append(inv.Env, words[i])
		i++
	}
	for i < len(words) {
		switch words[i] {
		case "exec", "command", "nohup", "time", "if", "then", "else", "elif", "do", "while", "until", "!", "{":
			i++
			continue
		case "env":
			i++
			for i < len(words) && (isAssignment(words[i]) || strings.HasPrefix(words[i], "-")) {
				if isAssignment(words[i]) {
					inv.Env = append(inv.Env, words[i])
				}
				i++
			}
			continue
		}
		break
	}
	if i >= len(words) {
		return inv, false
	}
	prog := words[i]
	base := path.Base(prog)
	if (base == "sh" || base == "bash" || base == "zsh" || base == "dash") && i+2 < len(words) && words[i+1] == "-c" && depth < 3 {
		for _, inner := range simpleCommands(words[i+2]) {
			if got, ok := invocation(inner, hook, depth+1); ok {
				got.Env = append(inv.Env, got.Env...)
				return got, true
			}
		}
		return inv, false
	}
	if subs, ok := runners[base]; ok {
		inv.Runner = base
		i++
		if len(subs) > 0 {
			if i >= len(words) || !slices.Contains(subs, words[i]) {
				return inv, false
			}
			i++
		}
		for i < len(words) && strings.HasPrefix(words[i], "-") {
			if words[i] == "--" {
				i++
				break
			}
			if words[i] == "-p" || words[i] == "--package" {
				i++
			}
			i++
		}
		if i >= len(words) {
			return inv, false
		}
		prog = words[i]
		base = path.Base(prog)
	}
	if !isProgram(base) || i+1 >= len(words) || words[i+1] != hook {
		return inv, false
	}
	inv.Program, inv.Hook, inv.Args = prog, hook, slices.Clone(words[i+2:])
	return inv, true
}

// isAssignment reports whether w is a shell variable assignment NAME=value.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// StopArgs is what the stop hook makes of the arguments of its command
// line (see cli's readStopArgs, the parse the stop hook itself runs).
type StopArgs struct {
	// Agent is the agent of --agent, "" to detect it from the input.
	Agent hookproto.Agent
	// Timeout is the client's hook timeout the line tells (--timeout),
	// 0 when it tells none or a value the hook ignores.
	Timeout time.Duration
	// Err is set when the hook cannot parse the line: it then answers an
	// error at every stop and runs no gate.
	Err error
	// Warnings are the hook's warnings about values it ignores.
	Warnings []string
}
