package verdicts

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// workspaceKind is the store's kind of the workspace records
// (SeeWorkspace), kept in the per-user state directory (StateHome).
const workspaceKind = "workspace"

// MaxWorkspace bounds the projects a workspace record keeps: the most
// recently judged ones.
const MaxWorkspace = 8

// workspace is what the stops whose session is in one directory judged
// in repositories other than the directory's own: the directory is a
// workspace above them, and the record of each repository (SeeJudged)
// stays in it.
type workspace struct {
	// Dir is the session's directory, the record's key: a record found
	// under another key (a name shortened by a hash) is no record.
	Dir string `json:"dir"`
	// Projects are the project roots judged, the most recent first.
	Projects []JudgedSeen `json:"projects"`
}

// StateHome is the per-user directory for the records that belong to no
// repository: $XDG_STATE_HOME, else $HOME/.local/state, read through
// getenv; "" when neither is set to an absolute path.
func StateHome(getenv func(string) string) string {
	if x := getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return x
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state")
	}
	return ""
}

// SeeWorkspace records root, a trusted project outside the repository of
// the session's directory dir (below dir, in a repository of its own), as
// judged at now by a stop whose session is in dir: a later stop from dir
// whose input's directory leaves root's repository still names what is
// pending there (WorkspaceProjects). The record keeps the MaxWorkspace
// most recent projects; it is written only when root is not already the
// most recent one. stateHome "" records nothing.
func SeeWorkspace(stateHome, dir, root string, now time.Time) error {
	if stateHome == "" {
		return nil
	}
	var w workspace
	return store.Open(stateHome, workspaceKind).Update(&w, func() (bool, error) {
		if w.Dir != dir {
			w = workspace{Dir: dir}
		}
		if len(w.Projects) > 0 && w.Projects[0].Project == root {
			return false, nil
		}
		w.Projects = slices.DeleteFunc(w.Projects, func(j JudgedSeen) bool { return j.Project == root })
		w.Projects = append([]JudgedSeen{{Project: root, At: now}}, w.Projects...)
		w.Projects = w.Projects[:min(len(w.Projects), MaxWorkspace)]
		return true, nil
	}, dir)
}

// WorkspaceProjects are the project roots recorded as judged from the
// session's directory dir (SeeWorkspace), the most recent first; none
// for no record, one that cannot be read, or one made for another
// directory.
func WorkspaceProjects(stateHome, dir string) []JudgedSeen {
	if stateHome == "" {
		return nil
	}
	var w workspace
	if ok, err := store.Open(stateHome, workspaceKind).Read(&w, dir); !ok || err != nil || w.Dir != dir {
		return nil
	}
	return w.Projects[:min(len(w.Projects), MaxWorkspace)]
}
