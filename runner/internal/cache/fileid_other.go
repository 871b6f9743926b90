//go:build !linux

package cache

import (
	"fmt"
	"io/fs"
)

// fileIdentity is what tells one file from another at the same path, and
// one version of it from the next, where the change time is not read:
// size, mode and modification time.
func fileIdentity(fi fs.FileInfo) string {
	return fmt.Sprintf("%d %v %d", fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
}
