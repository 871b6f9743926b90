package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type rec struct {
	Items []string `json:"items"`
}

func TestReadWriteUpdate(t *testing.T) {
	s := Open(t.TempDir(), "decisions")
	var r rec
	if ok, err := s.Read(&r, "proj", "feature/x"); ok || err != nil {
		t.Fatalf("missing record: %v %v", ok, err)
	}
	if err := s.Update(&r, func() (bool, error) { r.Items = append(r.Items, "a"); return true, nil }, "proj", "feature/x"); err != nil {
		t.Fatal(err)
	}
	var got rec
	if ok, err := s.Read(&got, "proj", "feature/x"); !ok || err != nil || strings.Join(got.Items, ",") != "a" {
		t.Fatalf("read back %+v %v %v", got, ok, err)
	}
	if base := filepath.Base(s.Path("proj", "feature/x")); base != "feature%2Fx.json" {
		t.Errorf("file name %q", base)
	}
	// No write when change says so.
	var again rec
	if err := s.Update(&again, func() (bool, error) { again.Items = nil; return false, nil }, "proj", "feature/x"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Read(&got, "proj", "feature/x"); !ok || len(got.Items) != 1 {
		t.Errorf("record changed without a write: %+v", got)
	}
}

// TestCorruptRecord pins that a record that does not parse reads as absent
// (with ErrCorrupt) and is replaced by the next update.
func TestCorruptRecord(t *testing.T) {
	s := Open(t.TempDir(), "decisions")
	p := s.Path("proj", "main")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	var r rec
	ok, err := s.Read(&r, "proj", "main")
	if ok || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt record: %v %v", ok, err)
	}
	if err := s.Update(&r, func() (bool, error) { r.Items = []string{"fresh"}; return true, nil }, "proj", "main"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Read(&r, "proj", "main"); !ok || err != nil || r.Items[0] != "fresh" {
		t.Errorf("after update: %+v %v %v", r, ok, err)
	}
}

// TestConcurrentUpdates pins that updates of one record from many
// goroutines (each with its own file descriptors, as separate processes
// would have) lose nothing.
func TestConcurrentUpdates(t *testing.T) {
	s := Open(t.TempDir(), "decisions")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r rec
			if err := s.Update(&r, func() (bool, error) {
				r.Items = append(r.Items, string(rune('a'+i)))
				return true, nil
			}, "p", "b"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var r rec
	if _, err := s.Read(&r, "p", "b"); err != nil || len(r.Items) != 20 {
		t.Errorf("%d items, %v", len(r.Items), err)
	}
}

func TestEscape(t *testing.T) {
	seen := map[string]string{}
	for _, s := range []string{"", ".", "..", "main", "feature/x", "feature%2Fx", "a b", "ß", ".hidden"} {
		e := escape(s)
		if prev, dup := seen[e]; dup {
			t.Errorf("%q and %q both escape to %q", prev, s, e)
		}
		seen[e] = s
		if strings.ContainsAny(e, "/. ") || e == "" {
			t.Errorf("escape(%q) = %q", s, e)
		}
	}
}
