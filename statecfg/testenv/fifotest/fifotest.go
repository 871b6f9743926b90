// Package fifotest makes named pipes (FIFOs) for the tests of code that
// must refuse one, never hang on it. Windows keeps its named pipes outside
// the file system, so no FIFO can be put where a file is expected there:
// Make fails with errors.ErrUnsupported and Create skips the test.
package fifotest

import (
	"errors"
	"testing"
)

// Make creates a FIFO at path, with mode 0644 (before the umask).
func Make(path string) error { return mkfifo(path) }

// Create creates a FIFO at path for the test tb: it fails tb when that
// fails, and skips it where FIFOs are unsupported (Windows).
func Create(tb testing.TB, path string) {
	tb.Helper()
	err := Make(path)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		tb.Skip(err)
	case err != nil:
		tb.Fatal(err)
	}
}
