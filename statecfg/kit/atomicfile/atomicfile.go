// Package atomicfile writes files so that a reader sees either the old
// content or the new, never a torn file: the data goes to a temporary file in
// the same directory, is synced, and is renamed over the target.
package atomicfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
)

// Write replaces path with data, atomically, with permission perm.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		_ = tmp.Close()
		_ = os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(name, path); err != nil {
		_ = os.Remove(name)
		return fserr.Wrap("write", path, err)
	}
	return nil
}

// WriteJSON replaces path with v as JSON indented by two spaces (HTML
// characters not escaped, trailing newline), atomically.
func WriteJSON(path string, v any, perm os.FileMode) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return Write(path, b.Bytes(), perm)
}
