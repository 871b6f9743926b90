package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// A check's own temporary files (the changed-files list, a chain's
// marks) are made, read and removed through the run's scratch directory
// held open (owned.Hold, as the run holds it), never through what is at
// its name: the table swaps the scratch directory for a link to a
// directory outside before a file is made or before it is removed, and
// nothing outside is made or removed; the name the command is given
// stays the scratch directory's.
func TestScratchFilesThroughHeldDirectory(t *testing.T) {
	makers := []struct {
		name string
		make func(ctx context.Context, dir string) (string, func(), error)
	}{
		{"changed-files list", func(ctx context.Context, dir string) (string, func(), error) {
			f, name, cleanup, err := Exec{Files: []string{"a"}}.listFile(ctx)
			if err == nil {
				f.Close()
			}
			return name, cleanup, err
		}},
		{"chain marks", func(ctx context.Context, dir string) (string, func(), error) {
			f, name, err := scratchFile(procgroup.Scratch(ctx), "chain-")
			if err != nil {
				return "", nil, err
			}
			f.Close()
			return name, func() { os.Remove(owned.Via(name)) }, nil
		}},
	}
	for _, m := range makers {
		for _, when := range []string{"before making", "before removing"} {
			t.Run(m.name+"/"+when, func(t *testing.T) {
				base := t.TempDir()
				scratch := filepath.Join(base, "logs", procgroup.ScratchDir)
				outside := filepath.Join(base, "outside")
				for _, d := range []string{scratch, outside} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				release, err := owned.Hold(base, scratch)
				if err != nil {
					t.Fatal(err)
				}
				defer release()
				ctx := procgroup.WithRegistry(context.Background(), scratch)
				swap := func(keep string) {
					if keep != "" {
						// A person's file of the same name outside.
						if err := os.WriteFile(filepath.Join(outside, keep), []byte("keep"), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					if err := os.Rename(scratch, scratch+".moved"); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(outside, scratch); err != nil {
						t.Fatal(err)
					}
				}
				if when == "before making" {
					swap("")
				}
				name, cleanup, err := m.make(ctx, scratch)
				if err == nil {
					if !strings.HasPrefix(name, scratch+string(filepath.Separator)) {
						t.Errorf("the command is given %s, want a name in %s", name, scratch)
					}
					if entries, _ := os.ReadDir(outside); when == "before making" && len(entries) != 0 {
						t.Errorf("the file was made outside")
					}
					if when == "before removing" {
						swap(filepath.Base(name))
					}
					cleanup()
				}
				entries, _ := os.ReadDir(outside)
				want := 0
				if when == "before removing" {
					want = 1
				}
				if len(entries) != want {
					t.Errorf("outside holds %d entries, want %d", len(entries), want)
				}
			})
		}
	}
}
