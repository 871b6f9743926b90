package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// What Fetched answers depends only on files git reads for it: the
// reflogs and ref files of the tracking ref and of its remote's HEAD
// (with every other name `git log --walk-reflogs` tries for them), the
// packed refs or the reftable stack, the configuration files, and the git
// variables of the environment. The fetched memo keeps the last answer
// with the identity of all of those (filestat); a stop that finds them all
// as they were takes the answer from it, with no git process. A fetch, a
// push, a change of the configuration moves one of them, and the next
// stop asks git again. Git's objects are not watched: the walk skips an
// entry whose commit is missing, and such a commit added later changes
// git's answer without moving a watched file (a reflog edited by hand to
// name a commit not made yet, no less deliberate than one worded as a
// fetch).

// fetchedMemoName is the fetched memo's file in the store's directory of
// the git common directory.
const fetchedMemoName = "fetched.json"

// fetchedTag opens every key of the fetched memo.
const fetchedTag = "agent-gauntlet fetched v2"

// maxFetchedEntries bounds the answers the memo keeps: one for each
// project root and base branch (worktrees share the common directory).
const maxFetchedEntries = 16

// fetchedMemo is what the memo keeps: for each project root and base
// (fetchedSlot), the key of the state an answer was taken in and
// Fetched's answer there.
type fetchedMemo struct {
	Entries map[string]fetchedEntry `json:"entries"`
}

// fetchedEntry is one answer of the memo.
type fetchedEntry struct {
	Key     string `json:"key"`
	Fetched bool   `json:"fetched"`
}

// fetchedSlot is the memo's entry of the project at root with base.
func fetchedSlot(root, base string) string {
	sum := sha256.Sum256([]byte(root + "\x00" + base))
	return hex.EncodeToString(sum[:8])
}

// FetchedKept is Fetched for the project at root located at loc, taken
// from the fetched memo when nothing Fetched reads changed since the memo
// was written, else from git (and then kept when the files it read are
// old enough for a later change to move their stats).
func FetchedKept(ctx context.Context, loc Location, root, base, commit string) (bool, error) {
	fetched, _, err := fetchedKept(ctx, loc, root, base, commit)
	return fetched, err
}

// fetchedKept is FetchedKept, also telling whether the memo answered.
func fetchedKept(ctx context.Context, loc Location, root, base, commit string) (fetched, hit bool, err error) {
	memo, slot := filepath.Join(loc.CommonDir, store.Dir, fetchedMemoName), fetchedSlot(root, base)
	var m fetchedMemo
	if data, err := fsread.File(memo, maxOwnFile); err != nil || json.Unmarshal(data, &m) != nil || m.Entries == nil {
		m.Entries = map[string]fetchedEntry{}
	}
	if key, ok := fetchedKey(loc, root, base, commit, time.Now().Add(time.Hour)); ok {
		if e, found := m.Entries[slot]; found && e.Key == key {
			return e.Fetched, true, nil
		}
	}
	before := time.Now().Add(-filestat.Margin)
	fetched, err = Fetched(ctx, root, base, commit)
	if err != nil {
		return false, false, err
	}
	if key, ok := fetchedKey(loc, root, base, commit, before); ok && owned.MkdirAll(loc.CommonDir, store.Dir, 0o755) == nil {
		if _, found := m.Entries[slot]; !found && len(m.Entries) >= maxFetchedEntries {
			m.Entries = map[string]fetchedEntry{}
		}
		m.Entries[slot] = fetchedEntry{Key: key, Fetched: fetched}
		_ = atomicfile.WriteJSONUnsynced(memo, m, 0o644)
	}
	return fetched, false, nil
}

// fetchedKey is the identity of everything Fetched reads for base and
// commit at root. ok is false when the state cannot be kept: a git
// variable moves the repository, a configuration includes other files, a
// symbolic ref names another symbolic ref, or a file changed too lately
// (its times not older than before) for a later change to be told from it.
func fetchedKey(loc Location, root, base, commit string, before time.Time) (string, bool) {
	gitDir, ok := plainGitDir(root, loc)
	if !ok || commit == "" || checkRef("base branch", base) != nil {
		return "", false
	}
	ref, remote := TrackingRef(base)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", fetchedTag, root, loc.CommonDir, base, commit)
	files, ok := fetchedFiles(loc.CommonDir, ref, "refs/remotes/"+remote+"/HEAD")
	if !ok {
		return "", false
	}
	configs := configFiles(loc.CommonDir, gitDir)
	for _, f := range append(files, configs...) {
		st, old := filestat.Of(f, before)
		if !old {
			return "", false
		}
		fmt.Fprintf(h, "%s\x00%s\x00", f, st)
	}
	if !plainConfigs(configs) {
		return "", false
	}
	writeGitEnv(h)
	return hex.EncodeToString(h.Sum(nil)), true
}

// plainGitDir is the git directory of the work tree holding root, when no
// git variable moves it: <top>/.git, or the directory a .git file names
// (a linked worktree's).
func plainGitDir(root string, loc Location) (string, bool) {
	top, ok := filepath.ToSlash(filepath.Clean(root)), true
	if loc.Prefix != "" {
		top, ok = strings.CutSuffix(top, "/"+strings.TrimSuffix(loc.Prefix, "/"))
	}
	if !plainEnv() || !ok || !filepath.IsAbs(root) {
		return "", false
	}
	dot := filepath.Join(filepath.FromSlash(top), ".git")
	st, err := os.Lstat(dot)
	switch {
	case err != nil:
		return "", false
	case st.IsDir():
		return dot, true
	}
	data, err := fsread.File(dot, maxGitFile)
	dir, found := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if err != nil || !found {
		return "", false
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(dot), dir)
	}
	return filepath.Clean(dir), true
}

// fetchedFiles are the files of the common directory the walk of the
// reflogs of ref and head reads: for each name git tries (the name, and
// the names it reads a missing reflog under), the loose ref and its
// reflog; the packed refs; the reftable stack. A symbolic ref adds its
// target's; false when the target is itself symbolic.
func fetchedFiles(common, ref, head string) ([]string, bool) {
	files := []string{filepath.Join(common, "packed-refs"), filepath.Join(common, "reftable", "tables.list"),
		filepath.Join(common, "reftable")}
	names := []string{ref, head}
	for _, n := range []string{ref, head} {
		target, symbolic := symref(filepath.Join(common, filepath.FromSlash(n)))
		if !symbolic {
			continue
		}
		if _, again := symref(filepath.Join(common, filepath.FromSlash(target))); again || checkRef("symbolic ref", target) != nil {
			return nil, false
		}
		names = append(names, target)
	}
	for _, n := range names {
		for _, alias := range []string{n, "refs/" + n, "refs/heads/" + n, "refs/tags/" + n, "refs/remotes/" + n, "refs/remotes/" + n + "/HEAD"} {
			p := filepath.FromSlash(alias)
			files = append(files, filepath.Join(common, p), filepath.Join(common, "logs", p))
		}
	}
	return files, true
}

// symref is the ref a loose ref file p names, when it is a symbolic one.
func symref(p string) (string, bool) {
	data, err := fsread.File(p, maxGitFile)
	if err != nil {
		return "", false
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref:")
	return strings.TrimSpace(target), ok
}

// configFiles are the configuration files git reads without being told of
// them, in this process's environment.
func configFiles(common, gitDir string) []string {
	files := []string{filepath.Join(common, "config"), filepath.Join(gitDir, "config.worktree")}
	switch {
	case os.Getenv("GIT_CONFIG_NOSYSTEM") != "":
	case os.Getenv("GIT_CONFIG_SYSTEM") != "":
		files = append(files, os.Getenv("GIT_CONFIG_SYSTEM"))
	default:
		files = append(files, "/etc/gitconfig", "/usr/local/etc/gitconfig")
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		return append(files, g)
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		files = append(files, filepath.Join(x, "git", "config"))
	}
	if home := os.Getenv("HOME"); home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
	}
	return files
}
