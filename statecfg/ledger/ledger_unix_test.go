//go:build unix

package ledger

import (
	"os"
	"syscall"
	"testing"
)

// A FIFO or a directory in place of a record is a miss, without blocking.
func TestIrregularRecordsAreMisses(t *testing.T) {
	l := Open(t.TempDir(), ".", 0)
	if err := syscall.Mkfifo(l.path("fifo"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if err := os.Mkdir(l.path("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"fifo", "dir"} {
		var v value
		if _, ok, why := l.Get(k, &v); ok || why == nil {
			t.Fatalf("%s: ok=%v why=%v", k, ok, why)
		}
	}
	if _, err := l.Sweep(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Clear(); err != nil {
		t.Fatal(err)
	}
}
