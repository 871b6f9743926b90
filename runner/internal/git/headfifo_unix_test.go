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

// Every read of one of git's own files in the process (the user's index,
// packed-refs, commondir, a loose symbolic ref) answers at once when the
// file is a FIFO: as when it cannot be read.
func TestGitFileReadersRefuseAFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	fifotest.Create(t, p)
	if _, ok := indexIdentity(p); ok {
		t.Error("indexIdentity of a FIFO answered")
	}
	if hashedIndex(p) {
		t.Error("hashedIndex of a FIFO answered true")
	}
	if _, ok := symref(p); ok {
		t.Error("symref of a FIFO answered")
	}
	gitDir := filepath.Join(dir, "gitdir")
	if err := os.MkdirAll(gitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifotest.Create(t, filepath.Join(gitDir, "commondir"))
	if got := commonDirOf(gitDir); got != gitDir {
		t.Errorf("commonDirOf with a FIFO at commondir = %q, want %q", got, gitDir)
	}
	if err := copyFile(p, filepath.Join(dir, "copy")); err == nil {
		t.Error("copyFile of a FIFO succeeded")
	}
}
