//go:build unix

package lifecycle

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"
)

// editable are the files an edit may touch, each with the lines it may
// write ("plain" first: a shrunk draw is a harmless line).
var editable = []struct {
	path  string
	lines []string
}{
	{"src/a.txt", []string{"plain", markLint, "REVIEWME-1", "REVIEWME-2", "REVIEWME-1" + nulToken}},
	{"src/b.txt", []string{"plain", markLint, "REVIEWME-2", "REVIEWME-3", "plain" + nulToken}},
	{"src/sub/c.txt", []string{"plain", markLint, "REVIEWME-3"}},
	{"src/vendor/v.txt", []string{"plain", markLint, "REVIEWME-2"}},
	{"lib/x/t.txt", []string{"plain", markTest}},
	{"lib/y/t.txt", []string{"plain", markTest}},
	{"docs/guide.md", []string{"plain", markDocs}},
	{"docs/notes.md", []string{"plain", markDocs}},
	{"pkg/a/p.txt", []string{"plain", markLint}},
	{"pkg/b/p.txt", []string{"plain", markLint}},
	{"pkg_a/p.txt", []string{"plain", markLint}},
	{"top.txt", []string{"plain", markLint, "REVIEWME-1"}},
	{"web/a.ts", []string{"plain", markLint, "REVIEWME-4"}},
	{"web/sub/b.tsx", []string{"plain", markLint, "REVIEWME-5"}},
	{"web/gen/g.ts", []string{"plain", markLint, "REVIEWME-4"}},
	{"web/notes.md", []string{"plain", "REVIEWME-5"}},
	{longFile, []string{"plain", markLint}},
	{"vet/a.go", []string{"plain", markVet + "1", markVet + "2"}},
	{"vet/b.go", []string{"plain", markVet + "1"}},
	{"ut/a_test.go", []string{"plain", markUnit + "1", markUnit + "2"}},
	{"ut/b_test.go", []string{"plain", markUnit + "3"}},
	{"jt/a.txt", []string{"plain", markJUnit + "1", markJUnit + "2"}},
	{"jt/b.txt", []string{"plain", markJUnit + "3"}},
}

// removable directories.
var removable = []string{"src/sub", "lib/x", "lib/y", "docs", "pkg/a", "pkg", "pkg_a", "src", "web/gen", "web", "vet", "ut", "jt", "long"}

// storeLinkNames are the places of the gauntlet's store (.git/agent-gauntlet)
// where a link to a person's directory is planted: the store itself and
// directories it makes (see cli/storelinks_test.go for every one).
var storeLinkNames = []string{".", "literal", "changes", "cache", "index", "answers", "verdicts", "literal/info"}

// logFileNames are the user's files put in the log directory.
var logFileNames = []string{"notes.txt", "previous/keep.txt", "mine/x.txt",
	// named as the gauntlet names its own files
	"console.9.log", "previous/console.1.log", "commit/console.1.log", "check_x.3.log", ".session_ref"}

// gateNames are the gates -g may name.
var gateNames = []string{"lint", "test", "docs", "quality"}

// commitRevs are the revisions -c may name.
var commitRevs = []string{"HEAD", "HEAD~1", "main"}

// lockKinds are the stray locks a step may leave.
var lockKinds = []lockKind{lockDead, lockReused, lockLive, lockForeign, lockEmpty, lockTS, lockOld, lockOldEmpty}

// drawConfig draws the project configuration of a sequence: most with no
// interval, a minority with a 10-minute one; half with baselines; a third
// verifying the stop that follows a block; most trusted at set-up (the
// others have no record yet); a few in a repository with no commit yet.
func drawConfig(t *rapid.T) projectConfig {
	cfg := projectConfig{MaxRetries: rapid.IntRange(0, 3).Draw(t, "max_retries")}
	if rapid.IntRange(0, 3).Draw(t, "interval") == 3 {
		cfg.Interval = 10
	}
	cfg.Baseline = rapid.Bool().Draw(t, "baseline")
	if rapid.IntRange(0, 2).Draw(t, "cache") == 2 {
		cfg.Cache = "entry_point"
	}
	cfg.VerifyOnContinue = rapid.IntRange(0, 2).Draw(t, "verify_on_continue") == 2
	cfg.Brace = rapid.Bool().Draw(t, "brace")
	cfg.Trusted = rapid.IntRange(0, 3).Draw(t, "trusted") > 0
	cfg.NoCommits = rapid.IntRange(0, 7).Draw(t, "no commits") == 7
	return cfg
}

// op is one kind of step and its weight in the model's current state.
type op struct {
	name   string
	weight func(m *model) int
	draw   func(t *rapid.T, m *model) string
}

func fixed(w int) func(*model) int { return func(*model) int { return w } }

// born weighs a step that needs a commit: w once there is one, else 0.
func born(w int) func(*model) int {
	return func(m *model) int {
		if m.unborn {
			return 0
		}
		return w
	}
}

// forgeries are the forge steps: what of the log directory, and how.
var forgeries = []string{
	"review flip", "review drop", "review reword", "review rm", "review add", "review dupskip", "review addskip", "review preskip",
	"state ts", "state date", "state branch", "state rm",
	"log rm-console", "log rm-check", "log edit-check", "log rm-all",
}

// ops are the kinds of steps: what users and agents do.
var ops = []op{
	{"edit", fixed(22), func(t *rapid.T, m *model) string {
		e := editable[rapid.IntRange(0, len(editable)-1).Draw(t, "file")]
		line := rapid.IntRange(1, 4).Draw(t, "line")
		return fmt.Sprintf("edit %s %d %s", e.path, line, e.lines[rapid.IntRange(0, len(e.lines)-1).Draw(t, "text")])
	}},
	{"hook", fixed(18), drawHook},
	{"run", fixed(10), func(t *rapid.T, m *model) string { return "run" + drawFlags(t, m, true) }},
	{"commit", fixed(6), func(*rapid.T, *model) string { return "commit" }},
	{"mark", fixed(6), func(t *rapid.T, m *model) string {
		// Mostly in the newest review file of a slot, as the block says;
		// sometimes in an older run's, which a hand edit may pick.
		return strings.TrimSpace(fmt.Sprintf("mark %s %d %s", rapid.SampledFrom([]string{"skipped", "fixed"}).Draw(t, "mark"),
			rapid.IntRange(1, 3).Draw(t, "nth"), rapid.SampledFrom([]string{"", "", "", "old"}).Draw(t, "file")))
	}},
	{"partial", fixed(5), func(t *rapid.T, m *model) string {
		return rapid.SampledFrom([]string{"check", "review"}).Draw(t, "cmd") + drawFlags(t, m, true)
	}},
	{"rm", fixed(3), func(t *rapid.T, m *model) string {
		return "rm " + editable[rapid.IntRange(0, len(editable)-1).Draw(t, "file")].path
	}},
	{"checkout", born(3), func(t *rapid.T, m *model) string {
		return "checkout " + rapid.SampledFrom(m.branches).Draw(t, "branch")
	}},
	{"insert", fixed(2), func(t *rapid.T, m *model) string {
		return "insert " + editable[rapid.IntRange(0, len(editable)-1).Draw(t, "file")].path
	}},
	{"rmdir", fixed(2), func(t *rapid.T, m *model) string {
		return "rmdir " + rapid.SampledFrom(removable).Draw(t, "dir")
	}},
	{"logfile", fixed(2), func(t *rapid.T, m *model) string {
		return "logfile " + rapid.SampledFrom(logFileNames).Draw(t, "name")
	}},
	{"storelink", fixed(1), func(t *rapid.T, m *model) string {
		return "storelink " + rapid.SampledFrom(storeLinkNames).Draw(t, "at")
	}},
	{"branch", born(2), func(t *rapid.T, m *model) string { return fmt.Sprintf("branch b%d", len(m.branches)-1) }},
	{"merge", born(2), func(*rapid.T, *model) string { return "merge" }},
	{"pull", born(2), func(*rapid.T, *model) string { return "pull" }},
	{"detect", fixed(2), func(t *rapid.T, m *model) string { return "detect" + drawFlags(t, m, false) }},
	{"clean", fixed(2), func(*rapid.T, *model) string { return "clean" }},
	{"cache", fixed(1), func(*rapid.T, *model) string { return "cache clear" }},
	{"signal", fixed(2), func(t *rapid.T, m *model) string {
		return fmt.Sprintf("signal %s %s", rapid.SampledFrom([]string{"TERM", "HUP", "QUIT", "INT", "KILL"}).Draw(t, "sig"),
			rapid.SampledFrom([]string{"run", "hook"}).Draw(t, "target"))
	}},
	{"config", fixed(1), func(t *rapid.T, m *model) string {
		if m.configBroken() {
			return "config fix"
		}
		return "config break"
	}},
	{"lock", func(m *model) int {
		if m.lock == lockNone {
			return 2
		}
		return 0
	}, func(t *rapid.T, m *model) string {
		return "lock " + string(rapid.SampledFrom(lockKinds).Draw(t, "kind"))
	}},
	{"forge", fixed(4), func(t *rapid.T, m *model) string {
		f := rapid.SampledFrom(forgeries).Draw(t, "forgery")
		return "forge " + f
	}},
	{"weaken", fixed(3), func(t *rapid.T, m *model) string {
		return "weaken " + rapid.SampledFrom(weakeningNames).Draw(t, "weakening")
	}},
	{"restore", func(m *model) int {
		if !sameGauntlet(gauntletOf(m.files), m.trusted) {
			return 3
		}
		return 0
	}, func(*rapid.T, *model) string { return "restore" }},
	{"trust", fixed(1), func(*rapid.T, *model) string { return "trust" }},
	{"global", fixed(1), func(t *rapid.T, m *model) string {
		if m.globalDisabled {
			return "global enable"
		}
		return "global disable"
	}},
	{"flag", fixed(1), func(t *rapid.T, m *model) string {
		return fmt.Sprintf("flag %s %s", rapid.SampledFrom([]string{"skip-worktree", "assume-unchanged"}).Draw(t, "flag"),
			editable[rapid.IntRange(0, len(editable)-1).Draw(t, "file")].path)
	}},
	{"ignore", fixed(1), func(t *rapid.T, m *model) string {
		return fmt.Sprintf("ignore %s %s", rapid.SampledFrom(ignoreHows).Draw(t, "how"),
			editable[rapid.IntRange(0, len(editable)-1).Draw(t, "file")].path)
	}},
	{"attr", fixed(1), func(t *rapid.T, m *model) string {
		return fmt.Sprintf("attr %s %s %s", rapid.SampledFrom([]string{"root", "info"}).Draw(t, "where"),
			rapid.SampledFrom([]string{"*", "*.txt", "src/**"}).Draw(t, "pattern"),
			rapid.SampledFrom([]string{"-diff", "binary", "text=auto", "filter", "textconv"}).Draw(t, "attribute"))
	}},
	{"crlf", fixed(1), func(t *rapid.T, m *model) string {
		return "crlf " + editable[rapid.IntRange(0, len(editable)-1).Draw(t, "file")].path
	}},
	{"refmove", func(m *model) int {
		if m.unborn || m.branch == "main" {
			return 0
		}
		return 1
	}, func(t *rapid.T, m *model) string {
		return "refmove " + rapid.SampledFrom([]string{"branch", "update-ref", "origin", "push", "merge"}).Draw(t, "how")
	}},
	{"nest", fixed(1), func(t *rapid.T, m *model) string {
		return fmt.Sprintf("nest %s %s", rapid.SampledFrom(nestDirs).Draw(t, "dir"), rapid.SampledFrom([]string{"commit", "empty"}).Draw(t, "nested commit"))
	}},
	{"reviewer", func(m *model) int {
		if m.fault != "" {
			return 8
		}
		return 1
	}, func(t *rapid.T, m *model) string {
		if m.fault != "" {
			return "reviewer ok"
		}
		return "reviewer " + rapid.SampledFrom(reviewerFaults).Draw(t, "fault")
	}},
	{"spelling", fixed(1), func(t *rapid.T, m *model) string {
		return "spelling " + rapid.SampledFrom([]string{"plain", "abs", "dot", "win"}).Draw(t, "spelling")
	}},
	{"unlock", func(m *model) int {
		if m.lock.respected() {
			return 20
		}
		if m.lock != lockNone {
			return 2
		}
		return 0
	}, func(*rapid.T, *model) string { return "unlock" }},
}

// drawStep draws the next step for the model's state.
func drawStep(t *rapid.T, m *model) string {
	total := 0
	for _, o := range ops {
		total += o.weight(m)
	}
	n := rapid.IntRange(0, total-1).Draw(t, "op")
	for _, o := range ops {
		if w := o.weight(m); n < w {
			return o.draw(t, m)
		}
		n -= o.weight(m)
	}
	panic("unreachable")
}

// drawHook draws a stop: mostly the current session, sometimes a new one;
// the loop flag (as a boolean or the string "true") only on the stop that
// follows a block, as Claude Code sends it.
func drawHook(t *rapid.T, m *model) string {
	n := m.sessions
	cur := 0
	for i := 1; i <= m.sessions; i++ {
		if sessionID(i) == m.session {
			cur = i
		}
	}
	if rapid.IntRange(0, 9).Draw(t, "new session") == 9 {
		n++
	} else {
		n = cur
	}
	active := "false"
	if m.credit[sessionID(n)] {
		active = rapid.SampledFrom([]string{"true", "str-true", "false"}).Draw(t, "loop flag")
	}
	if rapid.IntRange(0, 7).Draw(t, "elsewhere") == 7 {
		where := rapid.SampledFrom([]string{"sub", "sub-env", "out", "out-env"}).Draw(t, "where")
		return fmt.Sprintf("hook s%d %s %s", n, active, where)
	}
	return fmt.Sprintf("hook s%d %s", n, active)
}

// drawFlags draws the flags of run, check, review (gate true) or detect.
func drawFlags(t *rapid.T, m *model, gate bool) string {
	var b strings.Builder
	switch rapid.IntRange(0, 8).Draw(t, "flags") {
	case 4:
		if gate {
			b.WriteString(" -g " + rapid.SampledFrom(gateNames).Draw(t, "gate"))
		}
	case 5:
		b.WriteString(" -u")
	case 6:
		b.WriteString(" -b " + rapid.SampledFrom(m.branches).Draw(t, "base"))
	case 7:
		if !m.unborn {
			b.WriteString(" -c " + rapid.SampledFrom(commitRevs).Draw(t, "rev"))
		}
	case 8:
		if gate {
			b.WriteString(" --no-cache")
		}
	}
	return b.String()
}
