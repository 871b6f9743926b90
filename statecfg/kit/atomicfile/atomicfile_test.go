package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := Write(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil || string(data) != "two" {
		t.Fatalf("content %q, %v", data, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", st.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), nil, 0o644); err == nil || !strings.Contains(err.Error(), "missing/f") {
		t.Fatalf("err = %v, want one naming the path", err)
	}
}

func TestWriteJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v.json")
	if err := WriteJSON(p, map[string]any{"a": "<b>", "n": 1}, 0o644); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if got, want := string(data), "{\n  \"a\": \"<b>\",\n  \"n\": 1\n}\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if err := WriteJSON(p, func() {}, 0o644); err == nil {
		t.Fatal("encoding a func must fail")
	}
}

// Concurrent writers and a reader: the reader only ever sees a whole file.
func TestConcurrentWritersNeverTear(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state")
	contents := []string{strings.Repeat("a", 64<<10), strings.Repeat("b", 64<<10)}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := Write(p, []byte(contents[(w+i)%2]), 0o644); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		select {
		case <-done:
			return
		default:
		}
		data, err := os.ReadFile(p)
		if err == nil && string(data) != contents[0] && string(data) != contents[1] {
			t.Fatalf("torn read of %d bytes", len(data))
		}
	}
}
