package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// A check command may name a path outside the work tree (`../../shared/
// rules.txt`, `/etc/tool.yml`, `~/.config/x`): no snapshot holds it, so
// its key holds what is there, read the way a link out of the work tree
// is (git.TreeSnapshot's Reach): the bytes and mode of a file, that
// nothing is there, or the name of a device whose content no change sets
// (/dev/null). What no key can hold (a directory, a FIFO or socket, a file
// over maxOutsideBytes, one that cannot be read) leaves the gate uncached,
// saying why.

// Bounds of what one run reads of the files outside the work tree that
// commands name: one file, and all of them.
const (
	maxOutsideBytes = 16 << 20
	maxOutsideTotal = 64 << 20
)

// CheckEnv is the environment a check's command starts with, as a key
// holds it: the gauntlet's own (getenv: os.LookupEnv) with BASE_BRANCH
// set to base. A variable left out of the key's environment identity
// (EnvIdentity: a shell's bookkeeping, the gauntlet's own GAUNTLET_*
// variables) is not known, but for the changed files the gauntlet gives a
// check itself (their list is in its key: Gate.ChangedSum), which name
// paths of the project only.
func CheckEnv(getenv func(string) (string, bool), base string) Lookup {
	return func(name string) (string, bool, bool) {
		switch {
		case name == "BASE_BRANCH":
			return base, true, true
		case name == "CHANGED_FILES" || name == "GAUNTLET_CHANGED_FILES_FILE":
			return "", false, true
		case volatileEnv[name] || strings.HasPrefix(name, "GAUNTLET_") || strings.HasPrefix(name, "AGENT_GAUNTLET_"):
			return "", false, false
		}
		v, ok := getenv(name)
		return v, ok, true
	}
}

// outsideReader reads the identities of paths outside the work tree for
// one run, each once, within maxOutsideTotal bytes.
type outsideReader struct {
	ids    map[string]outsideID
	budget int64
}

// outsideID is the identity of a path outside the work tree, or why it
// cannot be held.
type outsideID struct{ id, why string }

// newOutsideReader starts reading for one run.
func newOutsideReader() *outsideReader {
	return &outsideReader{ids: map[string]outsideID{}, budget: maxOutsideTotal}
}

// id is the identity of what is at the absolute path p: "missing", a
// device's name, or the mode and SHA-256 of a regular file's bytes; why
// says why no key can hold it.
func (r *outsideReader) id(p string) (string, string) {
	if o, ok := r.ids[p]; ok {
		return o.id, o.why
	}
	id, why := r.read(p)
	r.ids[p] = outsideID{id, why}
	return id, why
}

// held is what r read, by path: each identity, "" where no key can hold
// it.
func (r *outsideReader) held() map[string]string {
	if len(r.ids) == 0 {
		return nil
	}
	out := make(map[string]string, len(r.ids))
	for p, o := range r.ids {
		out[p] = o.id
	}
	return out
}

// read reads the identity of p (see id). It never blocks on a FIFO: it
// opens without waiting and checks what it opened.
func (r *outsideReader) read(p string) (string, string) {
	if devices[p] || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/") {
		return "device " + p, ""
	}
	f, err := os.OpenFile(filepath.FromSlash(p), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return "missing", ""
	case errors.Is(err, syscall.ELOOP):
		return "loop", ""
	case err != nil:
		return "", fmt.Sprintf("names %s, which cannot be read: %v", p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return "", fmt.Sprintf("names %s, which cannot be read: %v", p, err)
	case fi.IsDir():
		return "", fmt.Sprintf("names %s, a directory outside the work tree", p)
	case !fi.Mode().IsRegular():
		return "", fmt.Sprintf("names %s, which is not a regular file", p)
	case fi.Size() > maxOutsideBytes || fi.Size() > r.budget:
		return "", fmt.Sprintf("names %s, a file outside the work tree too large to hold", p)
	}
	h := sha256.New()
	limit := min(maxOutsideBytes, r.budget)
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return "", fmt.Sprintf("names %s, which cannot be read: %v", p, err)
	}
	if n > limit {
		return "", fmt.Sprintf("names %s, a file outside the work tree too large to hold", p)
	}
	r.budget -= n
	return fmt.Sprintf("file %o %s", fi.Mode().Perm(), hex.EncodeToString(h.Sum(nil))), ""
}

// placed is where a path a gate reads lies (see Results.place).
type placed struct {
	// inTree is true when it is in the work tree: tree is then its path
	// relative to the top level ("" for the top level itself); else abs
	// is its absolute path.
	inTree bool
	tree   string
	abs    string
}

// place says where p (from Paths: relative to the project root, maybe
// leading out of it, or absolute) lies.
func (c *Results) place(p string) placed {
	top := filepath.ToSlash(c.topDir())
	if path.IsAbs(p) {
		p = path.Clean(p)
		if p == top {
			return placed{inTree: true}
		}
		if rest, ok := strings.CutPrefix(p, strings.TrimSuffix(top, "/")+"/"); ok {
			return placed{inTree: true, tree: rest}
		}
		return placed{abs: p}
	}
	q := path.Join(strings.TrimSuffix(c.prefix, "/"), p)
	if q == ".." || strings.HasPrefix(q, "../") {
		return placed{abs: path.Join(top, q)}
	}
	if q == "." {
		q = ""
	}
	return placed{inTree: true, tree: q}
}

// topDir is the top level of the work tree: the project root without its
// prefix.
func (c *Results) topDir() string {
	top := c.root
	for range strings.Count(c.prefix, "/") {
		top = filepath.Dir(top)
	}
	return top
}
