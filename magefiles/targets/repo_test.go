package targets

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestModulesFollowGoWork(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	mods, err := Modules(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cli", "hookproto", "magefiles", "runner", "statecfg"} {
		if !slices.Contains(mods, want) {
			t.Errorf("Modules() = %v, missing %s", mods, want)
		}
	}
	for _, m := range mods {
		if _, err := os.Stat(filepath.Join(root, m, "go.mod")); err != nil {
			t.Errorf("module %s: %v", m, err)
		}
	}
}

func TestVersionOutsideGit(t *testing.T) {
	if got := Version(context.Background(), t.TempDir()); got != "dev" {
		t.Fatalf("Version outside git = %q, want dev", got)
	}
}
