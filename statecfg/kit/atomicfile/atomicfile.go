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
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// Write replaces path with data, atomically, with permission perm.
func Write(path string, data []byte, perm os.FileMode) error { return write(path, data, perm, true) }

// WriteUnsynced is Write without syncing the data first: as atomic for
// readers, cheaper by a disk flush, and after a system crash the file may
// be found empty. For records whose loss is harmless.
func WriteUnsynced(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

// write is Write, syncing the data before the rename when sync is set.
func write(path string, data []byte, perm os.FileMode, sync bool) error {
	// Below a directory the gauntlet holds open (owned.Hold), the file is
	// made and renamed in that directory, whatever is at its name now.
	at := owned.Via(path)
	tmp, err := os.CreateTemp(filepath.Dir(at), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, owned.Unvia(err))
	}
	name := tmp.Name()
	fail := func(err error) error {
		_ = tmp.Close()
		_ = os.Remove(name)
		return fmt.Errorf("write %s: %w", path, owned.Unvia(err))
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(name, at); err != nil {
		_ = os.Remove(name)
		return fserr.Wrap("write", path, owned.Unvia(err))
	}
	return nil
}

// WriteJSON replaces path with v as JSON indented by two spaces (HTML
// characters not escaped, trailing newline), atomically.
func WriteJSON(path string, v any, perm os.FileMode) error {
	data, err := encodeJSON(path, v)
	if err != nil {
		return err
	}
	return Write(path, data, perm)
}

// WriteJSONUnsynced is WriteJSON through WriteUnsynced.
func WriteJSONUnsynced(path string, v any, perm os.FileMode) error {
	data, err := encodeJSON(path, v)
	if err != nil {
		return err
	}
	return WriteUnsynced(path, data, perm)
}

// encodeJSON is v as WriteJSON writes it.
func encodeJSON(path string, v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s: %w", path, err)
	}
	return b.Bytes(), nil
}
