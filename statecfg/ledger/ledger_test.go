package ledger

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type value struct {
	Status string `json:"status"`
	Run    int    `json:"run"`
}

func TestPutGet(t *testing.T) {
	l := Open(t.TempDir(), "cache", 0)
	var v value
	if _, ok, why := l.Get("k1", &v); ok || why != nil {
		t.Fatalf("empty store: ok=%v why=%v", ok, why)
	}
	if err := l.Put("k1", value{"pass", 3}); err != nil {
		t.Fatal(err)
	}
	stored, ok, why := l.Get("k1", &v)
	if !ok || why != nil || v != (value{"pass", 3}) {
		t.Fatalf("got %+v ok=%v why=%v", v, ok, why)
	}
	if time.Since(stored) > time.Minute || stored.IsZero() {
		t.Fatalf("stored at %v", stored)
	}
	// Another key, even one that differs by a byte, is a miss.
	for _, k := range []string{"k2", "k1 ", "K1", ""} {
		if _, ok, _ := l.Get(k, &v); ok {
			t.Fatalf("key %q: hit", k)
		}
	}
	// Put replaces.
	if err := l.Put("k1", value{"pass", 4}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := l.Get("k1", &v); !ok || v.Run != 4 {
		t.Fatalf("after replace: %+v %v", v, ok)
	}
	if st, err := l.Stats(); err != nil || st.Records != 1 {
		t.Fatalf("stats %+v %v", st, err)
	}
}

// Every way a record file can be damaged is a miss with a reason, never an
// error and never someone else's value.
func TestCorruptRecordsAreMisses(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir, ".", 0)
	if err := l.Put("key", value{"pass", 1}); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(l.path("key"))
	if err != nil {
		t.Fatal(err)
	}
	other := Open(t.TempDir(), ".", 0)
	if err := other.Put("other key", value{"pass", 1}); err != nil {
		t.Fatal(err)
	}
	foreign, _ := os.ReadFile(other.path("other key"))
	edit := func(from, to string) []byte {
		if !strings.Contains(string(good), from) {
			t.Fatalf("record lacks %q: %s", from, good)
		}
		return []byte(strings.Replace(string(good), from, to, 1))
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"truncated", good[:len(good)/2]},
		{"not JSON", []byte("\x00\x01garbage")},
		{"JSON array", []byte("[1,2]")},
		{"another key's record", foreign},
		{"value edited", edit(`"run":1`, `"run":2`)},
		{"other format", edit(`"format":1`, `"format":2`)},
		{"no stored_at", edit(`"stored_at":"`, `"stored_atx":"`)},
		{"two records", append(append([]byte{}, good...), good...)},
		{"unknown field", edit(`"format":1`, `"format":1,"extra":true`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(l.path("key"), c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var v value
			_, ok, why := l.Get("key", &v)
			if ok {
				t.Fatalf("hit: %+v", v)
			}
			if why == nil {
				t.Fatal("no reason given")
			}
		})
	}
	// A value that does not decode into the caller's type is a miss too.
	if err := l.Put("key", map[string]any{"status": 7}); err != nil {
		t.Fatal(err)
	}
	var v value
	if _, ok, why := l.Get("key", &v); ok || why == nil {
		t.Fatalf("wrong type: ok=%v why=%v", ok, why)
	}
}

func TestSweepEvictsLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir, ".", 0)
	// Records of about 100 bytes; find the exact size first.
	if err := l.Put("probe", value{"pass", 0}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(l.path("probe"))
	if _, err := l.Clear(); err != nil {
		t.Fatal(err)
	}
	size := fi.Size()
	l.maxBytes = size * 10
	base := time.Now().Add(-time.Hour)
	for i := 0; i < 10; i++ {
		k := fmt.Sprintf("k%d", i)
		if err := l.Put(k, value{"pass", 0}); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(l.path(k), at, at); err != nil {
			t.Fatal(err)
		}
	}
	// At the bound: nothing goes.
	if n, err := l.Sweep(); n != 0 || err != nil {
		t.Fatalf("sweep at the bound removed %d, %v", n, err)
	}
	// k0 and k1 are used now: they become the most recent.
	l.now = func() time.Time { return base.Add(time.Hour) }
	var v value
	for _, k := range []string{"k0", "k1"} {
		if _, ok, _ := l.Get(k, &v); !ok {
			t.Fatalf("%s missing", k)
		}
	}
	if err := l.Put("k10", value{"pass", 0}); err != nil {
		t.Fatal(err)
	}
	n, err := l.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	// 11 records over a bound of 10: down to 7 (three quarters).
	if n != 4 {
		t.Fatalf("removed %d, want 4", n)
	}
	for _, k := range []string{"k2", "k3", "k4", "k5"} {
		if _, ok, _ := l.Get(k, &v); ok {
			t.Errorf("%s survived; it was the least recently used", k)
		}
	}
	for _, k := range []string{"k0", "k1", "k6", "k7", "k8", "k9", "k10"} {
		if _, ok, _ := l.Get(k, &v); !ok {
			t.Errorf("%s was evicted", k)
		}
	}
}

func TestSweepAndClearLeaveOtherFiles(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir, ".", 1)
	if err := l.Put("a", value{"pass", 1}); err != nil {
		t.Fatal(err)
	}
	mine := []string{"README", "notes.json", strings.Repeat("g", 64) + ".json"}
	for _, n := range mine {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oldTmp := filepath.Join(dir, "."+Name("b")+".123.tmp")
	newTmp := filepath.Join(dir, "."+Name("c")+".456.tmp")
	for _, p := range []string{oldTmp, newTmp} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * tmpGrace)
	_ = os.Chtimes(oldTmp, old, old)
	if _, err := l.Sweep(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(oldTmp); !os.IsNotExist(err) {
		t.Errorf("a writer's old leftover survived the sweep")
	}
	if _, err := os.Stat(newTmp); err != nil {
		t.Errorf("a writer's fresh temporary file was removed: %v", err)
	}
	n, err := l.Clear()
	if err != nil || n != 0 { // the sweep over a 1-byte bound took "a"
		t.Fatalf("clear: %d %v", n, err)
	}
	for _, name := range mine {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
	if _, err := os.Stat(newTmp); err != nil {
		t.Errorf("clear removed the temporary file of a writer at work: %v", err)
	}
	if n, err := Open(dir, "missing", 0).Clear(); n != 0 || err != nil {
		t.Fatalf("clear of no store: %d %v", n, err)
	}
}

// Writers, readers, sweepers and a clearer at once: a reader gets either a
// miss or a whole value written for its key.
func TestConcurrentUse(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			l := Open(dir, ".", 4<<10) // small: sweeps evict all the time
			for i := 0; i < 100; i++ {
				k := fmt.Sprintf("key%d", i%7)
				want := value{Status: k, Run: i % 7}
				switch (w + i) % 4 {
				case 0:
					if err := l.Put(k, want); err != nil {
						t.Error(err)
						return
					}
				case 1:
					var v value
					if _, ok, _ := l.Get(k, &v); ok && v != want {
						t.Errorf("key %s read %+v", k, v)
						return
					}
				case 2:
					if _, err := l.Sweep(); err != nil {
						t.Error(err)
						return
					}
				case 3:
					if w == 0 {
						if _, err := l.Clear(); err != nil {
							t.Error(err)
							return
						}
					}
				}
			}
		}(w)
	}
	wg.Wait()
}

func TestPutRefusesOversizedValues(t *testing.T) {
	l := Open(t.TempDir(), ".", 0)
	big := strings.Repeat("x", MaxRecordBytes)
	if err := l.Put("k", big); err == nil {
		t.Fatal("an oversized record was stored")
	}
	if err := l.Put("k", func() {}); err == nil {
		t.Fatal("an unencodable value was stored")
	}
}

func TestNames(t *testing.T) {
	n := Name("k")
	if !isRecordName(n) || len(n) != 64+len(ext) {
		t.Fatalf("Name = %q", n)
	}
	for _, bad := range []string{"x.json", strings.ToUpper(n[:64]) + ext, n[:64], "." + n + ".1.tmp"} {
		if isRecordName(bad) {
			t.Errorf("%q taken for a record", bad)
		}
	}
}

// FuzzDecode: no input panics decode, and whatever it accepts for a key was
// written for that key with a value matching its checksum.
func FuzzDecode(f *testing.F) {
	l := Open(f.TempDir(), ".", 0)
	if err := l.Put("key", value{"pass", 1}); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(l.path("key"))
	f.Add(good, "key")
	f.Add(good, "other")
	f.Add([]byte(`{"format":1,"key":"k","stored_at":"2026-01-01T00:00:00Z","sum":"","value":null}`), "k")
	f.Add([]byte("{}"), "")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		rec, err := decode(data, key)
		if err != nil {
			return
		}
		if rec.Key != key || rec.Sum != sum(rec.Value) || rec.Format != Format {
			t.Fatalf("accepted %q for key %q", data, key)
		}
		var v any
		if json.Unmarshal(rec.Value, &v) != nil {
			t.Fatalf("accepted a value that is not JSON: %q", rec.Value)
		}
	})
}
