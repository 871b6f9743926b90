//go:build windows

package lock

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filelock"
)

// probeFlags are Inspect's extra open flags: none on Windows, where opening a
// file never blocks and symbolic links need privileges to create.
const probeFlags = 0

// errInvalidParameter is ERROR_INVALID_PARAMETER, what OpenProcess answers
// for a process id that names no process.
const errInvalidParameter = syscall.Errno(87)

// stillActive is the exit code GetExitCodeProcess reports for a running
// process (STILL_ACTIVE).
const stillActive = 259

// processGone reports whether no process pid is running. A process this
// user may not query exists.
func processGone(pid int) bool {
	h, err := syscall.OpenProcess(syscall.PROCESS_QUERY_INFORMATION, false, uint32(pid))
	if err != nil {
		return err == errInvalidParameter
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	return code != stillActive
}

// lockDir takes an exclusive lock that serializes the takers of a stale
// lock file in dir. Windows cannot lock a directory, so the lock is a
// byte-range lock of a file in the temporary directory named after dir
// (nothing is written into the log directory); Windows releases it when
// the handle is closed or the process ends.
func lockDir(dir string) (unlock func(), err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("lock log directory %s: %w", dir, err)
	}
	sum := sha256.Sum256([]byte(abs))
	name := filepath.Join(os.TempDir(), "agent-gauntlet-"+hex.EncodeToString(sum[:8])+".lock")
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock log directory %s: %w", dir, err)
	}
	if err := filelock.Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock log directory %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}
