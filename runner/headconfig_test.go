package runner

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// TestBrokenByChange: a work tree's configuration that does not load is
// the change's to fix (the stop blocks with its problems) exactly when
// the change is what made it so: HEAD holds a configuration that loads
// and differs from the work tree's, or HEAD names no commit at all, where
// every file of the work tree, .gauntlet/ included, is the change. It is
// not the change's (the stop is allowed, saying why) when HEAD's
// configuration does not load either, when the work tree holds exactly
// HEAD's, when commits exist but none of them holds a configuration, or
// when git cannot tell (no repository). The table covers each state HEAD
// can be in, for a configuration broken in each way the loader refuses.
func TestBrokenByChange(t *testing.T) {
	testenv.Setenv(t)
	const good = "command: lint\n"
	breaks := map[string]string{
		"duplicate key": "command: lint\ntimeout: 1\ntimeout: 2\n",
		"wrong type":    "command: lint\ntimeout: {a: 1}\n",
		"no command":    "timeout: 1\n",
		"not YAML":      "command: [lint\n",
	}
	states := []struct {
		name string
		// head prepares the repository before the work tree's
		// configuration is broken (broken: the check file as broken).
		head func(t *testing.T, root, broken string)
		want bool
	}{
		{"no commit yet", func(t *testing.T, root, _ string) {
			gitIn(t, root, "init", "-q", "-b", "main")
		}, true},
		{"no commit yet, the configuration staged", func(t *testing.T, root, _ string) {
			gitIn(t, root, "init", "-q", "-b", "main")
			gitIn(t, root, "add", "-A")
		}, true},
		{"HEAD's configuration loads", func(t *testing.T, root, _ string) {
			gitIn(t, root, "init", "-q", "-b", "main")
			gitIn(t, root, "add", "-A")
			gitIn(t, root, "commit", "-qm", "base")
		}, true},
		{"HEAD's configuration broken otherwise", func(t *testing.T, root, _ string) {
			write(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), "command: lint\ncommand: twice\n")
			gitIn(t, root, "init", "-q", "-b", "main")
			gitIn(t, root, "add", "-A")
			gitIn(t, root, "commit", "-qm", "base")
		}, false},
		{"HEAD's configuration broken the same way", func(t *testing.T, root, broken string) {
			write(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), broken)
			gitIn(t, root, "init", "-q", "-b", "main")
			gitIn(t, root, "add", "-A")
			gitIn(t, root, "commit", "-qm", "base")
		}, false},
		{"commits without a configuration", func(t *testing.T, root, _ string) {
			gitIn(t, root, "init", "-q", "-b", "main")
			gitIn(t, root, "add", "src")
			gitIn(t, root, "commit", "-qm", "base")
		}, false},
		{"no repository", func(*testing.T, string, string) {}, false},
	}
	for _, st := range states {
		for how, broken := range breaks {
			t.Run(st.name+"/"+how, func(t *testing.T) {
				root := t.TempDir()
				write(t, filepath.Join(root, ".gauntlet", "config.yml"), "base_branch: main\ncli:\n  default_preference: [claude]\nentry_points:\n  - path: src\n    checks: [lint]\n")
				write(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), good)
				write(t, filepath.Join(root, "src", "a.txt"), "a\n")
				st.head(t, root, broken)
				write(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"), broken)
				if _, err := config.LoadProject(context.Background(), root, config.ReadAll); err == nil {
					t.Fatal("the broken configuration loads")
				}
				if got := BrokenByChange(context.Background(), root); got != st.want {
					t.Errorf("BrokenByChange = %v, want %v", got, st.want)
				}
			})
		}
	}
}
