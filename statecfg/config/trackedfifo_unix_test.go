//go:build unix

package config

import (
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// An index that is a FIFO is one that cannot be read, at once: a plain
// read would wait on it forever.
func TestTrackedInFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "index")
	fifotest.Create(t, p)
	if _, ok := trackedInFile(p, ""); ok {
		t.Error("trackedInFile of a FIFO answered")
	}
}
