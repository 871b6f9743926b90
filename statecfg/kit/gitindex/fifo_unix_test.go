//go:build unix

package gitindex

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// An index that is a FIFO (a plain read would wait on it forever) is an
// error of Read and of Smudge at once.
func TestFIFOIndexIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "index")
	fifotest.Create(t, p)
	if _, err := Read(p); err == nil {
		t.Error("Read of a FIFO succeeded")
	}
	if _, err := Smudge(p, time.Now()); err == nil {
		t.Error("Smudge of a FIFO succeeded")
	}
}
