package procgroup

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// A run's scratch directory is held open while its gates run (run.go
// holds it, owned.Hold): a group's record is made and removed through the
// directory held, never through what is at its name. The table swaps the
// scratch directory for a link to a directory outside before the record
// is made (nothing is made outside), and between making and removing it
// (a person's file of the record's name there stays).
func TestRegisterThroughHeldScratch(t *testing.T) {
	for _, when := range []string{"before register", "before unregister"} {
		t.Run(when, func(t *testing.T) {
			base := t.TempDir()
			logDir := filepath.Join(base, "logs")
			outside := filepath.Join(base, "outside")
			if err := os.MkdirAll(logDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			scratch, err := OpenScratch(logDir)
			if err != nil {
				t.Fatal(err)
			}
			release, err := owned.Hold(base, scratch)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			ctx := WithRegistry(context.Background(), scratch)
			const pid = 424242
			swap := func() {
				if when == "before unregister" {
					// What the record would be outside is there already, a
					// person's file a removal through the link would take.
					if err := os.WriteFile(filepath.Join(outside, "424242"), []byte("keep"), 0o644); err != nil {
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
			if when == "before register" {
				swap()
			}
			unregister := Register(ctx, pid)
			if entries, _ := os.ReadDir(outside); when == "before register" && len(entries) != 0 {
				t.Errorf("the record was made outside: %v", entries)
			}
			if when == "before unregister" {
				swap()
			}
			unregister()
			entries, err := os.ReadDir(outside)
			if err != nil {
				t.Fatal(err)
			}
			if when == "before register" {
				if len(entries) != 0 {
					t.Errorf("outside holds %v, want nothing", entries)
				}
				return
			}
			if len(entries) != 1 || entries[0].Name() != "424242" {
				t.Errorf("outside holds %v, want only the person's file", entries)
			}
			if data, err := os.ReadFile(filepath.Join(outside, "424242")); err != nil || string(data) != "keep" {
				t.Errorf("the person's file outside = %q, %v", data, err)
			}
		})
	}
}
