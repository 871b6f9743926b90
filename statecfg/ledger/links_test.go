package ledger

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// TestPlantedLinks is the fault table of a store reached through a link.
// Invariant: no operation of the ledger (Put, PutRaw, Get, GetRaw, Sweep,
// Clear, Stats) writes, creates, removes or touches anything through a
// symbolic link planted at the store's directory or at a directory
// between it and the root it was opened below: Put and PutRaw refuse
// with a *owned.RefusedError, the readers miss, Sweep, Clear and Stats
// fail, and the directory the link points to (holding a file named as a
// record) keeps every file, byte and modification time. A link at a
// record itself is replaced by a write, never written through.
func TestPlantedLinks(t *testing.T) {
	const key = "k"
	ops := []struct {
		name   string
		run    func(l *Ledger) error
		refuse bool
	}{
		{"Put", func(l *Ledger) error { return l.Put(key, "v") }, true},
		{"PutRaw", func(l *Ledger) error { return l.PutRaw(key, []byte("v")) }, true},
		{"Get", func(l *Ledger) error {
			var v string
			if _, ok, _ := l.Get(key, &v); ok {
				return errors.New("a hit through the link")
			}
			return nil
		}, false},
		{"GetRaw", func(l *Ledger) error {
			if _, _, ok, _ := l.GetRaw(key); ok {
				return errors.New("a hit through the link")
			}
			return nil
		}, false},
		{"Sweep", func(l *Ledger) error { _, err := l.Sweep(); return err }, true},
		{"Clear", func(l *Ledger) error { _, err := l.Clear(); return err }, true},
		{"Stats", func(l *Ledger) error { _, err := l.Stats(); return err }, true},
	}
	for _, at := range []string{"agent-gauntlet", "agent-gauntlet/cache"} {
		for _, op := range ops {
			t.Run(op.name+"/"+at, func(t *testing.T) {
				base := t.TempDir()
				root, outside := filepath.Join(base, "git"), filepath.Join(base, "outside")
				must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(at)), 0o755))
				// The person's directory holds a record of key, as the
				// store would, under the store's layout.
				rec := filepath.Join(outside, Name(key))
				if at == "agent-gauntlet" {
					rec = filepath.Join(outside, "cache", Name(key))
				}
				must(t, os.MkdirAll(filepath.Dir(rec), 0o755))
				person := Open(filepath.Dir(filepath.Dir(rec)), filepath.Base(filepath.Dir(rec)), 1)
				must(t, person.Put(key, "person's"))
				old := time.Unix(1_700_000_000, 0)
				must(t, os.Chtimes(rec, old, old))
				before, err := os.ReadFile(rec)
				must(t, err)
				must(t, os.Symlink(outside, filepath.Join(root, at)))

				err = op.run(Open(root, filepath.Join("agent-gauntlet", "cache"), 1))
				var refused *owned.RefusedError
				if op.refuse && !errors.As(err, &refused) {
					t.Errorf("%s: %v, want a refusal", op.name, err)
				}
				if !op.refuse && err != nil {
					t.Error(err)
				}
				after, err := os.ReadFile(rec)
				if err != nil || string(after) != string(before) {
					t.Errorf("the person's file changed: %q, %v", after, err)
				}
				if fi, err := os.Stat(rec); err != nil || !fi.ModTime().Equal(old) {
					t.Errorf("the person's file was touched: %v", err)
				}
				n := 0
				_ = filepath.WalkDir(outside, func(_ string, d fs.DirEntry, _ error) error {
					if d != nil && !d.IsDir() {
						n++
					}
					return nil
				})
				if n != 1 {
					t.Errorf("the person's directory holds %d files, want 1", n)
				}
			})
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
