package verdicts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// Projects lists, sorted, the projects of the work tree worktree
// (place.Place.Worktree) that have a book in the repository whose git
// common directory is commonDir: each book file of the store, by the
// project and work tree written in it, kept only when it is the file of
// that key (a book copied under another name is no project's). A project
// whose record and configuration are gone still has its book: the
// gauntlet's own account of what failed there. The books of skip are not
// read (the caller knows their projects).
func Projects(commonDir, worktree string, skip ...Key) []string {
	var out []string
	// The books are <store>/verdicts/<project>/<worktree>.json.
	top := filepath.Dir(filepath.Dir(Key{CommonDir: commonDir, Project: ".", Worktree: worktree}.Path()))
	dirs, err := os.ReadDir(top)
	if err != nil {
		return nil
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(top, d.Name()))
		if err != nil {
			continue
		}
		for _, f := range files {
			path := filepath.Join(top, d.Name(), f.Name())
			if !f.Type().IsRegular() || filepath.Ext(f.Name()) != ".json" ||
				slices.ContainsFunc(skip, func(k Key) bool { return k.Path() == path }) {
				continue
			}
			k, ok := bookKey(path, commonDir)
			if ok && k.Worktree == worktree && k.Path() == path && !slices.Contains(out, k.Project) {
				out = append(out, k.Project)
			}
		}
	}
	slices.Sort(out)
	return out
}

// bookKey is the key a book file names in it, in the repository of
// commonDir.
func bookKey(path, commonDir string) (Key, bool) {
	data, err := fsread.File(path, MaxBookBytes)
	if err != nil {
		return Key{}, false
	}
	var head struct {
		Project  string `json:"project"`
		Worktree string `json:"worktree"`
	}
	if json.Unmarshal(data, &head) != nil || head.Project == "" || head.Worktree == "" {
		return Key{}, false
	}
	return Key{CommonDir: commonDir, Project: head.Project, Worktree: head.Worktree}, true
}
