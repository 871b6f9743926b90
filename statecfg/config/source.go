package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// Files is a project's configuration as a set of files: each file the
// loader reads under .gauntlet/, keyed by its slash-separated path relative
// to the project root (".gauntlet/config.yml", ".gauntlet/checks/lint.yml").
// Directories are implied by the paths. It is what a trusted configuration
// records, and what LoadFiles loads without the disk.
type Files map[string][]byte

// source is where the loader reads the files of .gauntlet/ from: the disk
// under the project root, or a Files. rel is an OS path relative to the
// project root.
type source interface {
	// file returns the content of the regular file rel, with fsread.File's
	// errors (fs.ErrNotExist, *fsread.NotRegularError, *fsread.TooLargeError)
	// wrapped in an *fs.PathError.
	file(rel string) ([]byte, error)
	// dir returns the names in the directory rel, sorted, with fsread.Dir's
	// errors.
	dir(rel string) ([]string, error)
	// entry returns rel as a copy of the configuration holds another file
	// of .gauntlet/: its entry (fileEntry, linkEntry), a symbolic link not
	// followed; errors as file's (a directory is a *fsread.NotRegularError).
	entry(rel string) ([]byte, error)
	// onDisk reports whether the files are on disk, where symbolic links
	// resolve and the path rules of the project apply to them.
	onDisk() bool
}

// diskSource reads the files under root.
type diskSource struct{ root string }

func (s diskSource) file(rel string) ([]byte, error) {
	return fsread.File(filepath.Join(s.root, rel), maxFileSize)
}

func (s diskSource) dir(rel string) ([]string, error) {
	entries, err := fsread.Dir(filepath.Join(s.root, rel))
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

func (s diskSource) entry(rel string) ([]byte, error) {
	p := filepath.Join(s.root, rel)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		if err != nil {
			return nil, err
		}
		return linkEntry(filepath.ToSlash(target)), nil
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: &fsread.NotRegularError{Mode: fi.Mode(), Want: "a regular file"}}
	}
	data, err := fsread.File(p, maxFileSize)
	if err != nil {
		return nil, err
	}
	return fileEntry(data, fi.Mode()&0o100 != 0), nil
}

func (diskSource) onDisk() bool { return true }

// recorder is a source that keeps a copy of every file read through it,
// and the problems of those that exist but could not be read.
type recorder struct {
	source
	files    Files
	problems []Problem
}

func (r *recorder) file(rel string) ([]byte, error) {
	data, err := r.source.file(rel)
	switch {
	case err == nil:
		r.files[filepath.ToSlash(rel)] = data
	case !errors.Is(err, fs.ErrNotExist):
		r.problems = append(r.problems, Problem{File: rel, Message: readProblem(err)})
	}
	return data, err
}

func (r *recorder) dir(rel string) ([]string, error) {
	names, err := r.source.dir(rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.problems = append(r.problems, Problem{File: rel, Message: readProblem(err)})
	}
	return names, err
}

// filesSource reads the files of a Files.
type filesSource struct{ files Files }

func (s filesSource) file(rel string) ([]byte, error) {
	key, ok := s.files.real(filepath.ToSlash(rel))
	if !ok {
		// a link leading out of .gauntlet/, or too many
		return nil, &fs.PathError{Op: "read", Path: rel, Err: fs.ErrNotExist}
	}
	data, ok := s.files[key]
	if _, body := decodeEntry(data); ok {
		data = body
	}
	switch {
	case ok && int64(len(data)) > maxFileSize:
		return nil, &fs.PathError{Op: "read", Path: rel, Err: &fsread.TooLargeError{Limit: maxFileSize}}
	case ok:
		return data, nil
	case s.isDir(key):
		return nil, &fs.PathError{Op: "read", Path: rel, Err: &fsread.NotRegularError{Mode: fs.ModeDir, Want: "a regular file"}}
	}
	return nil, &fs.PathError{Op: "read", Path: rel, Err: fs.ErrNotExist}
}

func (s filesSource) dir(rel string) ([]string, error) {
	key, ok := s.files.real(filepath.ToSlash(rel))
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: fs.ErrNotExist}
	}
	if _, ok := s.files[key]; ok {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: &fsread.NotRegularError{Mode: 0, Want: "a directory"}}
	}
	var names []string
	for p := range s.files {
		rest, ok := strings.CutPrefix(p, key+"/")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, "/")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if names == nil {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: fs.ErrNotExist}
	}
	slices.Sort(names)
	return names, nil
}

// isDir reports whether key is a directory of the set: some file lies
// below it.
func (s filesSource) isDir(key string) bool {
	for p := range s.files {
		if strings.HasPrefix(p, key+"/") {
			return true
		}
	}
	return false
}

func (s filesSource) entry(rel string) ([]byte, error) {
	key := filepath.ToSlash(rel)
	if data, ok := s.files[key]; ok {
		if _, body := decodeEntry(data); int64(len(body)) > maxFileSize {
			return nil, &fs.PathError{Op: "read", Path: rel, Err: &fsread.TooLargeError{Limit: maxFileSize}}
		}
		return data, nil
	}
	if s.isDir(key) {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: &fsread.NotRegularError{Mode: fs.ModeDir, Want: "a regular file"}}
	}
	return nil, &fs.PathError{Op: "read", Path: rel, Err: fs.ErrNotExist}
}

func (filesSource) onDisk() bool { return false }

// Check reports the paths of f that LoadFiles cannot take: every path must
// be a clean, slash-separated, relative path under .gauntlet/.
func (f Files) Check() error {
	var bad []string
	for p := range f {
		if !path.IsAbs(p) && path.Clean(p) == p && strings.HasPrefix(p, Dir+"/") {
			continue
		}
		bad = append(bad, fmt.Sprintf("%q", p))
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return fmt.Errorf("configuration files must be clean relative paths under %s/, not %s", Dir, strings.Join(bad, ", "))
	}
	return nil
}
