package git

import (
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/glob"
)

// dirScope is the scope of a file or directory: everything in it.
type dirScope string

func (d dirScope) Dir() string { return string(d) }
func (d dirScope) Whole() bool { return true }
func (d dirScope) Selects(p string) bool {
	return d == "." || p == string(d) || strings.HasPrefix(p, string(d)+"/")
}

// globScope is the scope of a glob.
type globScope string

func (g globScope) Dir() string           { return glob.FixedDir(string(g)) }
func (g globScope) Whole() bool           { return false }
func (g globScope) Selects(p string) bool { return glob.Match(string(g), p) }

// setScope selects the paths of a set.
type setScope map[string]bool

func (s setScope) Dir() string           { return "." }
func (s setScope) Whole() bool           { return false }
func (s setScope) Selects(p string) bool { return s[p] }
