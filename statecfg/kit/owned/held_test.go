//go:build linux

package owned_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// TestHeldSwapped is the fault table of a held directory (owned.Hold)
// replaced while it is held. Invariant: once a directory is held, no
// write below its path reaches anything but the directory held, whatever
// replaced it (moved aside for a link to a directory outside, to one
// beside it, removed, moved away for a directory of the same name), and
// once it is gone from its name no write lands anywhere, the directory
// moved away included; Replaced names it.
func TestHeldSwapped(t *testing.T) {
	swaps := []struct {
		name string
		swap func(t *testing.T, dir, outside, aside string)
	}{
		{"link-outside", func(t *testing.T, dir, outside, aside string) {
			must(t, os.Rename(dir, aside))
			must(t, os.Symlink(outside, dir))
		}},
		{"link-beside", func(t *testing.T, dir, outside, aside string) {
			must(t, os.Rename(dir, aside))
			must(t, os.Symlink(filepath.Base(aside), dir))
		}},
		{"link-to-moved-outside", func(t *testing.T, dir, outside, aside string) {
			moved := filepath.Join(outside, "moved")
			must(t, os.Rename(dir, moved))
			must(t, os.Symlink(moved, dir))
		}},
		{"removed", func(t *testing.T, dir, outside, aside string) {
			must(t, os.RemoveAll(dir))
		}},
		{"new-dir", func(t *testing.T, dir, outside, aside string) {
			must(t, os.Rename(dir, aside))
			must(t, os.Mkdir(dir, 0o755))
		}},
	}
	writes := []struct {
		name  string
		write func(dir string) error
	}{
		{"atomic", func(dir string) error { return atomicfile.Write(filepath.Join(dir, "rec.json"), []byte("{}"), 0o644) }},
		{"mkdir", func(dir string) error {
			return owned.MkdirAll(filepath.Dir(dir), filepath.Join(filepath.Base(dir), "sub", "deeper"), 0o755)
		}},
		{"fileparent", func(dir string) error { return owned.FileParent(filepath.Dir(dir), filepath.Join(dir, "sub", "f")) }},
	}
	for _, sw := range swaps {
		for _, w := range writes {
			t.Run(sw.name+"/"+w.name, func(t *testing.T) {
				base := t.TempDir()
				outside := t.TempDir()
				must(t, os.WriteFile(filepath.Join(outside, "sentinel"), []byte("precious"), 0o644))
				dir := filepath.Join(base, "own")
				must(t, os.Mkdir(dir, 0o755))
				release, err := owned.Hold(base, dir)
				must(t, err)
				defer release()
				must(t, w.write(dir)) // held, in place: written
				sw.swap(t, dir, outside, filepath.Join(base, "aside"))
				before := listing(t, outside) // the directory moved there included
				if err := w.write(dir); err == nil {
					t.Errorf("a write below %s after it was replaced succeeded", dir)
				}
				if after := listing(t, outside); !slices.Equal(before, after) {
					t.Errorf("outside changed:\nbefore %q\nafter  %q", before, after)
				}
				if got := owned.Replaced(); !slices.Contains(got, dir) {
					t.Errorf("Replaced() = %q, want it to name %s", got, dir)
				}
				if note := owned.ReplacedNote(); note == "" {
					t.Error("ReplacedNote() is empty")
				}
			})
		}
	}
}

// TestHoldRefusesLink checks that a held directory is reached through no
// link: a link at it or at a directory between is refused, and nothing
// is held.
func TestHoldRefusesLink(t *testing.T) {
	for _, at := range []string{"a", "a/b"} {
		t.Run(at, func(t *testing.T) {
			base := t.TempDir()
			outside := t.TempDir()
			must(t, os.MkdirAll(filepath.Join(outside, "b"), 0o755))
			p := filepath.Join(base, at)
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, os.Symlink(outside, p))
			_, err := owned.Hold(base, filepath.Join(base, "a", "b"))
			var refused *owned.RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("Hold through a link at %s: %v, want a *RefusedError", at, err)
			}
			if got := owned.Via(filepath.Join(base, "a", "b", "x")); got != filepath.Join(base, "a", "b", "x") {
				t.Errorf("Via routes a path below a directory not held: %s", got)
			}
		})
	}
}

// TestViaHeld checks that a path below a held directory, in place, is
// the same file through Via.
func TestViaHeld(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "own")
	must(t, os.Mkdir(dir, 0o755))
	release, err := owned.Hold(base, dir)
	must(t, err)
	defer release()
	must(t, atomicfile.Write(filepath.Join(dir, "x"), []byte("y"), 0o644))
	data, err := os.ReadFile(filepath.Join(dir, "x"))
	if err != nil || string(data) != "y" {
		t.Fatalf("read back %q, %v", data, err)
	}
	if fi, err := os.Lstat(owned.Via(dir)); err != nil || !fi.IsDir() {
		t.Errorf("Lstat(Via(dir)) = %v, %v: want the directory", fi, err)
	}
	if len(owned.Replaced()) != 0 {
		t.Errorf("Replaced() = %q for a directory in place", owned.Replaced())
	}
}

// listing is every file below dir with its content.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		data, _ := os.ReadFile(p)
		out = append(out, p+"="+string(data))
		return nil
	})
	must(t, err)
	return out
}

// TestHeldRemade is the fault table of a directory held with
// owned.HoldRemade (the log directory) taken from its name while held.
// Invariant: removed, with nothing at its name (its parents removed too),
// it is made again there by the next write, which lands in it, and the
// note says it was removed and made again; anything else at its name (a
// link out or beside, another directory, a file) is never written
// through, as for Hold, and the note says it was replaced; either note
// is still said after the hold is released.
func TestHeldRemade(t *testing.T) {
	swaps := []struct {
		name   string
		remade bool
		swap   func(t *testing.T, dir, outside, aside string)
	}{
		{"removed", true, func(t *testing.T, dir, outside, aside string) { must(t, os.RemoveAll(dir)) }},
		{"parent-removed", true, func(t *testing.T, dir, outside, aside string) { must(t, os.RemoveAll(filepath.Dir(dir))) }},
		{"moved-away", true, func(t *testing.T, dir, outside, aside string) { must(t, os.Rename(dir, aside)) }},
		{"link-outside", false, func(t *testing.T, dir, outside, aside string) {
			must(t, os.Rename(dir, aside))
			must(t, os.Symlink(outside, dir))
		}},
		{"link-beside", false, func(t *testing.T, dir, outside, aside string) {
			must(t, os.Rename(dir, aside))
			must(t, os.Symlink(aside, dir))
		}},
		{"new-dir", false, func(t *testing.T, dir, outside, aside string) {
			must(t, os.Rename(dir, aside))
			must(t, os.Mkdir(dir, 0o755))
		}},
		{"file", false, func(t *testing.T, dir, outside, aside string) {
			must(t, os.RemoveAll(dir))
			must(t, os.WriteFile(dir, []byte("mine"), 0o644))
		}},
		{"parent-link", false, func(t *testing.T, dir, outside, aside string) {
			must(t, os.RemoveAll(filepath.Dir(dir)))
			must(t, os.Symlink(outside, filepath.Dir(dir)))
		}},
	}
	for _, sw := range swaps {
		t.Run(sw.name, func(t *testing.T) {
			base := t.TempDir()
			outside := t.TempDir()
			must(t, os.WriteFile(filepath.Join(outside, "sentinel"), []byte("precious"), 0o644))
			dir := filepath.Join(base, "p", "own")
			must(t, os.MkdirAll(dir, 0o755))
			release, err := owned.HoldRemade(base, dir)
			must(t, err)
			must(t, atomicfile.Write(filepath.Join(dir, "rec.json"), []byte("1"), 0o644))
			sw.swap(t, dir, outside, filepath.Join(base, "aside"))
			before := listing(t, outside)
			err = atomicfile.Write(filepath.Join(dir, "rec.json"), []byte("2"), 0o644)
			if after := listing(t, outside); !slices.Equal(before, after) {
				t.Errorf("outside changed:\nbefore %q\nafter  %q", before, after)
			}
			want, note := "was replaced while agent-gauntlet held it open", owned.ReplacedNote
			if sw.remade {
				note = owned.RemadeNote
				want = "was removed while agent-gauntlet held it open"
				if err != nil {
					t.Fatalf("write after removal: %v, want it made again", err)
				}
				if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
					t.Fatalf("%s not made again: %v", dir, err)
				}
				if data, err := os.ReadFile(filepath.Join(dir, "rec.json")); err != nil || string(data) != "2" {
					t.Errorf("read back %q, %v; want the write in the directory made again", data, err)
				}
				if got := owned.Replaced(); slices.Contains(got, dir) {
					t.Errorf("Replaced() = %q names the directory made again", got)
				}
			} else if err == nil {
				t.Errorf("a write below %s after it was replaced succeeded", dir)
			}
			release()
			if note := note(); !strings.Contains(note, dir+" "+want) {
				t.Errorf("note after release = %q, want %q", note, dir+" "+want)
			}
			// A hold with none held starts afresh.
			again, err := owned.Hold(base, base)
			must(t, err)
			defer again()
			if note := owned.ReplacedNote() + owned.RemadeNote(); note != "" {
				t.Errorf("notes of a new hold = %q, want none", note)
			}
		})
	}
}
