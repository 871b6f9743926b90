// Package monorepo makes, for tests, repositories with trusted projects
// and the ways an agent may plant, move or weaken a configuration in front
// of them: the layouts the stop hook and the hand commands (status, clean)
// must judge alike.
package monorepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// Layouts are where the trusted projects are, relative to the top level,
// by name: the first one is the one the attacks act on.
var Layouts = map[string][]string{"root": {"."}, "sub": {"app"}, "two": {"app", "lib"}}

// LayoutNames are the keys of Layouts in a fixed order.
var LayoutNames = []string{"root", "sub", "two"}

// Sessions are where a session (or a person) stands: the top level, the
// first project's directory as it is after the attack, a directory beside
// every project.
var Sessions = []string{"top level", "project", "elsewhere"}

// Untrusted is a configuration the agent plants: it gates nothing that
// fails.
const Untrusted = "base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: docs\n    checks: []\n"

// Attack is one thing the agent does to the repository after the trusted
// projects failed a check.
type Attack struct {
	// Name names the attack.
	Name string
	// Do acts on the repository at top, whose first trusted project is
	// first; it returns that project's directory now ("" when gone).
	Do func(t testing.TB, top, first string) string
	// Gone says that the first project can no longer run where it was.
	Gone bool
	// Before says that the agent acts before any stop: nothing is pending
	// in the trusted projects, so only the answer's words can name them.
	Before bool
	// TopLevelToo says that the attack applies to a project at the top
	// level (which cannot move, and whose own configuration edited is a
	// changed one, not a planted one).
	TopLevelToo bool
}

// Attacks are the things the agent does, every one a member of the class
// "a configuration nobody trusted stands between the session and a trusted
// project, or the trusted project moved away".
var Attacks = []Attack{
	{Name: "none", TopLevelToo: true, Do: func(_ testing.TB, top, first string) string { return filepath.Join(top, first) }},
	{Name: "planted at the top level", Do: plant(".")},
	{Name: "planted in a sibling", TopLevelToo: true, Do: plant("docs")},
	{Name: "planted in the parent of the session", TopLevelToo: true, Do: plant("work")},
	{Name: "log_dir moved in the work tree", TopLevelToo: true, Do: func(t testing.TB, top, first string) string {
		Write(t, filepath.Join(top, first, ".gauntlet", "config.yml"), projectConfig("elsewhere_logs"))
		return filepath.Join(top, first)
	}},
	{Name: "committed at the top level", Do: commit(".")},
	{Name: "committed at the top level before any stop", Before: true, Do: commit(".")},
	{Name: "committed in a sibling", TopLevelToo: true, Do: commit("docs")},
	{Name: "renamed before any stop", Gone: true, Before: true, Do: func(t testing.TB, top, first string) string {
		move(t, top, first)
		return filepath.Join(top, first+"2")
	}},
	{Name: "renamed and gutted", Gone: true, Do: func(t testing.TB, top, first string) string {
		move(t, top, first)
		return filepath.Join(top, first+"2")
	}},
	{Name: "deleted", Gone: true, Do: func(t testing.TB, top, first string) string {
		if err := os.RemoveAll(filepath.Join(top, first)); err != nil {
			t.Fatal(err)
		}
		return ""
	}},
	{Name: "replaced by a link", Gone: true, Do: func(t testing.TB, top, first string) string {
		move(t, top, first)
		if err := os.Symlink(first+"2", filepath.Join(top, first)); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(top, first+"2")
	}},
}

// Retrusts are the things the agent does with a trust record of its own
// (agent-gauntlet trust --yes run on a terminal it made): a configuration
// that gates nothing, trusted at the top level, in a sibling, in the
// parent of the session's directory, inside the first project, or the
// first project renamed, gutted and trusted under its new name. Each one
// may change the project a session's stop judges: the class "the projects
// a session judges change without the person told".
var Retrusts = []Attack{
	{Name: "trusted at the top level", Do: trustAt(".")},
	{Name: "trusted in a sibling", TopLevelToo: true, Do: trustAt("aaa")},
	{Name: "trusted in the parent of the session", TopLevelToo: true, Do: trustAt("work")},
	{Name: "trusted inside the project", TopLevelToo: true, Do: func(t testing.TB, top, first string) string {
		trustAt(filepath.Join(first, "src"))(t, top, first)
		return filepath.Join(top, first)
	}},
	{Name: "renamed, gutted and trusted", Gone: true, Do: func(t testing.TB, top, first string) string {
		move(t, top, first)
		Trust(t, filepath.Join(top, first+"2"), time.Now())
		return filepath.Join(top, first+"2")
	}},
}

// Applies reports whether a applies to the layout projects.
func (a Attack) Applies(projects []string) bool { return projects[0] != "." || a.TopLevelToo }

// plant writes Untrusted as the configuration of dir (relative to top).
func plant(dir string) func(t testing.TB, top, first string) string {
	return func(t testing.TB, top, first string) string {
		Write(t, filepath.Join(top, dir, ".gauntlet", "config.yml"), Untrusted)
		return filepath.Join(top, first)
	}
}

// commit writes Untrusted as the configuration of dir (relative to top)
// and commits it: a commit is the agent's to make, so it trusts nothing.
func commit(dir string) func(t testing.TB, top, first string) string {
	return func(t testing.TB, top, first string) string {
		plant(dir)(t, top, first)
		Git(t, top, "add", "--", filepath.Join(dir, ".gauntlet"))
		Git(t, top, "commit", "-qm", "the agent's configuration")
		return filepath.Join(top, first)
	}
}

// trustAt writes Untrusted as the configuration of dir (relative to top)
// and records it as trusted, as the agent's own trust --yes would.
func trustAt(dir string) func(t testing.TB, top, first string) string {
	return func(t testing.TB, top, first string) string {
		plant(dir)(t, top, first)
		Trust(t, filepath.Join(top, dir), time.Now())
		return filepath.Join(top, first)
	}
}

// move renames the project first to first+"2" and guts its check.
func move(t testing.TB, top, first string) {
	if err := os.Rename(filepath.Join(top, first), filepath.Join(top, first+"2")); err != nil {
		t.Fatal(err)
	}
	Write(t, filepath.Join(top, first+"2", ".gauntlet", "checks", "nobad.yml"), "command: \"true\"\n")
}

// projectConfig is a trusted project's config.yml, its logs in logDir.
func projectConfig(logDir string) string {
	return "base_branch: main\nlog_dir: " + logDir + "\ncli:\n  default_preference: [claude]\n" +
		"stop_hook:\n  run_interval_minutes: 0\nentry_points:\n  - path: src\n    checks: [nobad]\n"
}

// Make makes a repository whose trusted projects are at projects
// (relative to its top level), each with the check nobad failing on a BAD
// file in its src, committed and trusted, on the branch work; it returns
// the top level.
func Make(t testing.TB, projects []string) string {
	t.Helper()
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	MakeAt(t, top, projects)
	return top
}

// MakeAt is Make with the repository's top level at top, an absolute
// directory (made when missing).
func MakeAt(t testing.TB, top string, projects []string) {
	t.Helper()
	Git(t, top, "init", "-q", "-b", "main")
	Write(t, filepath.Join(top, ".gitignore"), "gauntlet_logs/\nelsewhere_logs/\n")
	Write(t, filepath.Join(top, "docs", "readme.txt"), "docs\n")
	Write(t, filepath.Join(top, "work", "inner", "notes.txt"), "notes\n")
	for _, p := range projects {
		root := filepath.Join(top, p)
		Write(t, filepath.Join(root, ".gauntlet", "config.yml"), projectConfig("gauntlet_logs"))
		Write(t, filepath.Join(root, ".gauntlet", "checks", "nobad.yml"), "command: \"! grep -r BAD .\"\n")
		Write(t, filepath.Join(root, "src", "ok.txt"), "ok\n")
	}
	Git(t, top, "add", "-A")
	Git(t, top, "commit", "-qm", "base")
	for _, p := range projects {
		Trust(t, filepath.Join(top, p), time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	}
	Git(t, top, "checkout", "-qb", "work")
	for _, p := range projects {
		Write(t, filepath.Join(top, p, "src", "bad.txt"), "BAD\n")
	}
}

// Trust records the work tree's configuration of the project at root as
// trusted by a person at when.
func Trust(t testing.TB, root string, when time.Time) {
	t.Helper()
	p, err := place.Locate(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	files, err := config.ReadFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.WriteRecord(p, trust.Record{TrustedAt: when, How: trust.HowYes, Files: files}); err != nil {
		t.Fatal(err)
	}
}

// Write writes content to path, making its directory.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Git runs git with args in dir.
func Git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// Untrust removes every trust record of the repository at top: a
// repository an older version gated, whose configurations are committed
// and recorded nowhere (an upgrade).
func Untrust(t testing.TB, top string) {
	t.Helper()
	p, err := place.Locate(context.Background(), top)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Dir(trust.RecordPath(p))); err != nil {
		t.Fatal(err)
	}
}
