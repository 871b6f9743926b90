// Package testbin builds the agent-gauntlet binary for the tests that
// drive the real program: once per test process, without -race (they
// measure the program a user runs), static as `go tool mage install`
// builds it, in a world-readable directory (so that a process running as
// another user can run it).
package testbin

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// MainPackage is the agent-gauntlet command.
const MainPackage = "github.com/agent-gauntlet/agent-gauntlet/cli/cmd/agent-gauntlet"

var (
	once sync.Once
	dir  string
	path string
	err  error
)

// Path returns the binary, built on the first call of the process.
func Path() (string, error) {
	once.Do(func() {
		if dir, err = os.MkdirTemp("", "gauntlet-testbin-"); err != nil {
			return
		}
		if err = os.Chmod(dir, 0o755); err != nil {
			return
		}
		bin := filepath.Join(dir, "agent-gauntlet")
		cmd := exec.Command("go", "build", "-o", bin, MainPackage)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if e := cmd.Run(); e != nil {
			err = fmt.Errorf("go build %s: %w\n%s", MainPackage, e, out.Bytes())
			return
		}
		path = bin
	})
	return path, err
}

// Remove removes the binary and its directory: a TestMain's last step.
func Remove() {
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}
