package entry

import (
	"os"
	"path"
	"path/filepath"
)

// minListed is how many changed files a directory must hold for FileExists
// to read its listing rather than look at each file: one read of its
// entries, not one lstat each.
const minListed = 16

// listBudget bounds the entries read from one directory's listing per
// changed file it holds: a large directory with a few changes is not read
// whole; what the budget leaves unread is looked at one file at a time.
const listBudget = 16

// FileExists returns whether a path of the project at root exists as a
// file (not as a directory: a symbolic link counts), each asked once.
// The changed files of one directory (as files lists them) are looked up
// in one listing of it when it holds at least minListed of them; a name
// the listing does not show as it is spelled (deleted, or another case or
// normalisation on file systems that fold them) is asked of lstat, so the
// answer is always lstat's.
func FileExists(root string, files []string) func(string) bool {
	e := existence{root: root, known: map[string]bool{}, listed: map[string]bool{}}
	return e.exists(files)
}

// existence is the state of one FileExists.
type existence struct {
	root  string
	known map[string]bool
	// byDir are the changed files by directory, listed marks the
	// directories already looked up.
	byDir  map[string][]string
	listed map[string]bool
}

// exists is the function FileExists returns.
func (e *existence) exists(files []string) func(string) bool {
	return func(f string) bool {
		if ok, seen := e.known[f]; seen {
			return ok
		}
		if e.byDir == nil {
			e.byDir = map[string][]string{}
			for _, name := range files {
				dir := path.Dir(name)
				e.byDir[dir] = append(e.byDir[dir], name)
			}
		}
		if dir := path.Dir(f); !e.listed[dir] {
			e.listed[dir] = true
			if names := e.byDir[dir]; len(names) >= minListed {
				e.list(dir, names)
			}
			if ok, seen := e.known[f]; seen {
				return ok
			}
		}
		st, err := os.Lstat(filepath.Join(e.root, filepath.FromSlash(f)))
		ok := err == nil && !st.IsDir()
		e.known[f] = ok
		return ok
	}
}

// list notes which of names (files of dir) its listing shows, and whether
// each is a directory, reading at most listBudget entries per name.
func (e *existence) list(dir string, names []string) {
	want := make(map[string]string, len(names))
	for _, n := range names {
		want[path.Base(n)] = n
	}
	d, err := os.Open(filepath.Join(e.root, filepath.FromSlash(dir)))
	if err != nil {
		return
	}
	defer d.Close()
	for budget := listBudget * len(names); budget > 0 && len(want) > 0; {
		entries, err := d.ReadDir(256)
		for _, ent := range entries {
			if n, ok := want[ent.Name()]; ok {
				e.known[n] = !ent.IsDir()
				delete(want, ent.Name())
			}
		}
		budget -= len(entries)
		if err != nil || len(entries) == 0 {
			return
		}
	}
}
