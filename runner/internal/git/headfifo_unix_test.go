//go:build unix

package git

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// A HEAD that is no regular file (a FIFO, which a plain read would wait
// on forever) is an error of headBranch at once, and locatePlain leaves
// the repository to git, which runs under a deadline.
func TestHeadBranchRefusesAFIFO(t *testing.T) {
	root := t.TempDir()
	gitDir := filepath.Join(root, ".git")
	if err := os.MkdirAll(gitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifotest.Create(t, filepath.Join(gitDir, "HEAD"))
	if b, err := headBranch(gitDir); err == nil {
		t.Fatalf("headBranch over a FIFO = %q, want an error", b)
	}
	if _, ok := locatePlain(root); ok {
		t.Fatal("locatePlain answered for a repository whose HEAD is a FIFO")
	}
}
