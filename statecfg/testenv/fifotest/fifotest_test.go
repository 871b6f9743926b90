package fifotest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Make puts a FIFO at the path (or, on Windows, says it cannot), and
// fails naming the path when something is already there.
func TestMake(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if runtime.GOOS == "windows" {
		Create(t, p) // skips
		t.Fatal("Create did not skip on Windows")
	}
	Create(t, p)
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode().Type() != fs.ModeNamedPipe {
		t.Fatalf("after Create: %v, %v; want a FIFO", fi, err)
	}
	var pe *fs.PathError
	if err := Make(p); !errors.As(err, &pe) || pe.Path != p {
		t.Errorf("Make over an existing FIFO = %v, want an error naming %s", err, p)
	}
}
