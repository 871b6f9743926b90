package cache

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// What a full pass records of a file outside the work tree (Named) and
// what the interval reads again (NamedChanged) agree: NamedChanged names
// a path exactly when what is there now is not what was held, for every
// way a file can change (its bytes, its mode, made, removed, replaced by
// a directory or a link to other bytes) and none when nothing changed
// (a file, one missing, a device, a link to the same bytes); a path that
// no key could hold then (recorded "") is never unchanged.
func TestNamedChangedAgreesWithTheKey(t *testing.T) {
	type state func(t *testing.T, p string)
	file := func(data string, mode os.FileMode) state {
		return func(t *testing.T, p string) {
			_ = os.RemoveAll(p)
			if err := os.WriteFile(p, []byte(data), mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	none := func(t *testing.T, p string) { _ = os.RemoveAll(p) }
	dir := func(t *testing.T, p string) {
		_ = os.RemoveAll(p)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(data string) state {
		return func(t *testing.T, p string) {
			_ = os.RemoveAll(p)
			target := p + ".target"
			if err := os.WriteFile(target, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	states := map[string]state{
		"file ok":      file("ok\n", 0o644),
		"file BAD":     file("BAD\n", 0o644),
		"file ok exec": file("ok\n", 0o755),
		"missing":      none,
		"directory":    dir,
		"link to ok":   link("ok\n"),
		"link to BAD":  link("BAD\n"),
	}
	// same is what a command reads through each state: following a link,
	// a file's bytes and mode ("" for a directory, which no key holds).
	same := map[string]string{"file ok": "ok", "link to ok": "ok", "file BAD": "BAD", "link to BAD": "BAD",
		"file ok exec": "ok exec", "missing": "missing", "directory": ""}
	for before, set := range states {
		for after, reset := range states {
			t.Run(before+" then "+after, func(t *testing.T) {
				p := filepath.Join(t.TempDir(), "outside.txt")
				set(t, p)
				r := newOutsideReader()
				id, _ := r.id(p)
				named := r.held()
				reset(t, p)
				again, _ := newOutsideReader().id(p)
				want := same[before] == "" || same[before] != same[after]
				if again != id && !want || again == id && same[before] != same[after] {
					t.Fatalf("the reader's identity %q then %q disagrees with the states", id, again)
				}
				if got := slices.Contains(NamedChanged(named), p); got != want {
					t.Errorf("NamedChanged names %s: %v, want %v (held %q, now %q)", p, got, want, id, again)
				}
			})
		}
	}
	if got := NamedChanged(nil); got != nil {
		t.Errorf("NamedChanged(nil) = %v, want none", got)
	}
	if got := NamedChanged(map[string]string{"/dev/null": "device /dev/null"}); got != nil {
		t.Errorf("a device changes by name only: got %v", got)
	}
}
