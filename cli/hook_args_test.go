package cli

import (
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/alecthomas/kong"
)

// kongHook is Kong's parse of a hook command line with the grammar Main
// uses: the command's struct.
func kongHook(t *testing.T, args []string) (any, error) {
	t.Helper()
	g := grammar(args)
	p, err := kong.New(g, kongVars("x"), kong.Writers(io.Discard, io.Discard),
		kong.Exit(func(int) { t.Fatalf("kong exited on %q", args) }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse(args); err != nil {
		return nil, err
	}
	return reflect.ValueOf(g).Elem().Field(0).Interface(), nil
}

// hookFlags are the long names and env variables of a hook command's
// flags, as Kong reads them from its grammar.
func hookFlags(t *testing.T, command string) (names, envs []string) {
	t.Helper()
	p, err := kong.New(grammar([]string{command}), kongVars("x"))
	if err != nil {
		t.Fatal(err)
	}
	node := p.Model.Children[0]
	if node.Name != command {
		t.Fatalf("Kong names the command %q, hookFields %q", node.Name, command)
	}
	for _, f := range node.Flags {
		names = append(names, f.Name)
		envs = append(envs, f.Envs...)
	}
	if n := node.Target.NumField(); len(names) != n {
		t.Fatalf("Kong sees flags %q, the command has %d fields", names, n)
	}
	return names, envs
}

// Each hook's own parse of its command line agrees with Kong's on every
// line it accepts, for every flag in both forms, with and without its env
// variable; it accepts the lines installers write; everything else is left
// to Kong.
func TestParseHookArgsAgreesWithKong(t *testing.T) {
	installed := map[string][]string{}
	for _, h := range []install.Hook{install.StopHook, install.StartHook} {
		for _, a := range hookproto.Agents {
			line := strings.Fields(install.CommandFor(h, a, 600))[1:]
			installed[line[0]] = append(installed[line[0]], strings.Join(line, " "))
		}
	}
	for command := range hookFields {
		t.Run(command, func(t *testing.T) {
			names, envs := hookFlags(t, command)
			if len(installed[command]) == 0 {
				t.Fatalf("install writes no %s command", command)
			}
			lines := [][]string{{command}}
			for _, l := range installed[command] {
				lines = append(lines, strings.Fields(l))
			}
			for _, n := range names {
				lines = append(lines,
					[]string{command, "--" + n, "v1"}, []string{command, "--" + n + "=v2"},
					[]string{command, "--" + n + "=a=b"}, []string{command, "--" + n, ""},
					[]string{command, "--" + n, "x", "--" + n, "y"})
			}
			check := func(t *testing.T, line []string) {
				t.Helper()
				cmd, ok := parseHookArgs(line)
				if !ok {
					t.Errorf("parseHookArgs(%q) left the line to Kong", line)
					return
				}
				got := reflect.ValueOf(cmd).Elem().Interface()
				want, err := kongHook(t, line)
				if err != nil {
					t.Errorf("Kong rejects %q (%v), parseHookArgs accepts it", line, err)
				} else if got != want {
					t.Errorf("parseHookArgs(%q) = %+v, Kong %+v", line, got, want)
				}
			}
			for _, line := range lines {
				check(t, line)
			}
			for _, env := range envs {
				t.Run(env, func(t *testing.T) {
					t.Setenv(env, "from-env")
					for _, line := range lines {
						check(t, line)
					}
				})
			}
			for _, tail := range [][]string{
				{"--help"}, {"-h"}, {"--bogus", "x"}, {"--agent"}, {"--agent", "--bogus", "5"},
				{"extra"}, {"--"}, {"-V"}, {"--agent", "claude", "x"}, {"--agent", "-x"},
			} {
				line := append([]string{command}, tail...)
				if cmd, ok := parseHookArgs(line); ok {
					t.Errorf("parseHookArgs(%q) = %+v, want it left to Kong", line, cmd)
				}
			}
		})
	}
	for _, line := range [][]string{nil, {"run"}, {"status", "--json"}, {"--version"}} {
		if cmd, ok := parseHookArgs(line); ok {
			t.Errorf("parseHookArgs(%q) = %+v for a command that is no hook", line, cmd)
		}
	}
	if got, want := slices.Sorted(maps.Keys(installed)), slices.Sorted(maps.Keys(hookFields)); !slices.Equal(got, want) {
		t.Errorf("install writes hooks %q, hookFields has %q", got, want)
	}
}
