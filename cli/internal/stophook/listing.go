package stophook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// Which .gitignore files git reads in a work tree changes only when a
// directory git walks gains or loses an entry (its change time moves), when
// the user's index changes what it tracks, or when a rule or git's
// configuration changes which directories git walks. The listing memo keeps
// the last listing with the state of all of those; a stop that finds them
// all as they were takes the listing from it, with no git process. The
// rule files' contents are read at every stop anyway (ignoreRules): they
// are part of what must be as it was.

// listingMemoName is the listing memo's file in the work tree's git
// directory.
const listingMemoName = "agent-gauntlet/ignore-listing.json"

// listingTag opens every listing memo.
const listingTag = "agent-gauntlet ignore listing v3"

// maxListedDirs bounds the directories a listing memo watches: a work tree
// with more is listed by git at every stop.
const maxListedDirs = 50000

// maxMemoFile bounds what is read of the listing memo, and maxConfigFile
// of each git configuration file its key reads: more is no memo of ours,
// and no configuration the memo may be trusted with.
const (
	maxMemoFile   = 64 << 20
	maxConfigFile = 4 << 20
)

// listingMemo is what the memo keeps: the state it was taken in and the
// listing.
type listingMemo struct {
	Tag string `json:"tag"`
	// Key is the state of what is not a directory git walks (listingKey).
	Key string `json:"key"`
	// Dirs are the directories git walks, top-level-relative, with their
	// stat.
	Dirs map[string]filestat.ID `json:"dirs"`
	// Rules are the fingerprints of the rule files when listed
	// (ignoreRules's map without the listing's own marks).
	Rules map[string]string `json:"rules"`
	Files []string          `json:"files"`
	// Index is the stat of the user's index file when listed, Staged what
	// it staged then (gitindex.File.Staged): an index git rewrote to
	// refresh its stats, staging what it did, is no change.
	Index  filestat.ID `json:"index"`
	Staged string      `json:"staged"`
	// Looks are the rule files (treeRuleNames, top-level-relative) of the
	// Dirs that a look at them must follow (see walkDirs): every other one
	// was absent or a regular file when its directory had the stat Dirs
	// keeps, and is still.
	Looks []string `json:"looks"`
	// refreshed is set when Index was found refreshed (sameIndex): the
	// memo is written again with it.
	refreshed bool
}

// configFiles are the git configuration files of p that git reads without
// being told of them, in getenv's environment.
func configFiles(p place.Place, getenv func(string) string) []string {
	files := []string{filepath.Join(p.CommonDir, "config"), filepath.Join(p.GitDir, "config.worktree")}
	switch {
	case getenv("GIT_CONFIG_NOSYSTEM") != "":
	case getenv("GIT_CONFIG_SYSTEM") != "":
		files = append(files, getenv("GIT_CONFIG_SYSTEM"))
	default:
		files = append(files, "/etc/gitconfig", "/usr/local/etc/gitconfig")
	}
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		return append(files, g)
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		files = append(files, filepath.Join(x, "git", "config"))
	}
	if home := getenv("HOME"); home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
	}
	return files
}

// userIndex is the user's index file of p in getenv's environment.
func userIndex(p place.Place, getenv func(string) string) string {
	if index := getenv("GIT_INDEX_FILE"); index != "" {
		return index
	}
	return filepath.Join(p.GitDir, "index")
}

// listingKey is the state of what decides the listing besides the
// directories, the rule files and the user's index: the configuration
// files, and the environment's git variables; ok is false when it cannot
// be kept (a configuration that names other files, or changed too lately
// to tell a later change from it).
func listingKey(p place.Place, getenv func(string) string, before time.Time) (string, bool) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", listingTag, p.TopLevel)
	for _, f := range configFiles(p, getenv) {
		st, old := filestat.Of(f, before)
		if !old {
			return "", false
		}
		if st != "" {
			data, err := fsread.File(f, maxConfigFile)
			low := bytes.ToLower(data)
			if err != nil || bytes.Contains(low, []byte("excludesfile")) || bytes.Contains(low, []byte("include")) {
				return "", false // the rules or settings may live elsewhere
			}
		}
		fmt.Fprintf(h, "%s\x00%s\x00", f, st)
	}
	env := os.Environ()
	slices.Sort(env)
	for _, kv := range env {
		if strings.HasPrefix(kv, "GIT_") {
			fmt.Fprintf(h, "%s\x00", kv)
		}
	}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME"} {
		fmt.Fprintf(h, "%s=%s\x00", k, getenv(k))
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// memoListing is the memo's listing of the .gitignore files of p when
// everything it was taken in is as it was (rules: the fingerprints of the
// rule files now, each listed file's included), else nil.
func memoListing(p place.Place, getenv func(string) string, rules func([]string) map[string]string) []string {
	m := validMemo(p, getenv, rules)
	if m == nil {
		return nil
	}
	if m.refreshed {
		writeListingMemo(p, *m)
	}
	return m.Files
}

// validMemo is the listing memo of p when everything it was taken in is
// as it was (see memoListing), else nil.
func validMemo(p place.Place, getenv func(string) string, rules func([]string) map[string]string) *listingMemo {
	// The memo is the gauntlet's, but the agent can put anything there:
	// a FIFO or a device is never read (fsread), nor more than a memo of
	// maxListedDirs directories can hold.
	data, err := fsread.File(filepath.Join(p.GitDir, filepath.FromSlash(listingMemoName)), maxMemoFile)
	if err != nil {
		return nil
	}
	var m listingMemo
	if json.Unmarshal(data, &m) != nil || m.Tag != listingTag || m.Dirs == nil || m.Looks == nil {
		return nil
	}
	now := time.Now().Add(time.Hour) // any time: only the stats are compared
	if key, ok := listingKey(p, getenv, now); !ok || key != m.Key {
		return nil
	}
	if !sameIndex(p, getenv, &m) {
		return nil
	}
	for rel, want := range m.Dirs {
		if st, _ := filestat.Of(filepath.Join(p.TopLevel, filepath.FromSlash(rel)), now); st != want {
			return nil
		}
	}
	if !maps.Equal(rules(m.Files), m.Rules) {
		return nil
	}
	return &m
}

// sameIndex reports whether the user's index stages what it did when m
// was taken: its stat is the same, or it stages the same entries (git
// rewrote it to refresh their stats). m is then marked refreshed, with
// the index's stat now, when that stat is old enough to keep.
func sameIndex(p place.Place, getenv func(string) string, m *listingMemo) bool {
	index := userIndex(p, getenv)
	st, old := filestat.Of(index, time.Now().Add(-filestat.Margin))
	if st == m.Index && (st != "" || old) { // "" and old: there is none
		return true
	}
	staged, ok := stagedBy(index)
	if !ok || staged != m.Staged {
		return false
	}
	if again, _ := filestat.Of(index, time.Now()); old && again == st {
		m.Index, m.refreshed = st, true
	}
	return true
}

// stagedBy is what the index file p stages (gitindex.File.Staged); false
// for one that cannot be read, or none.
func stagedBy(p string) (string, bool) {
	idx, err := gitindex.Read(p)
	if err != nil {
		return "", false
	}
	return idx.Staged(), true
}

// keepListing records the listing files of p, taken by git from before
// on, with the directories git walked (all but the ignored ones, skip, and
// the repositories inside, shallow) and the rule files' fingerprints then;
// nothing when any of it changed too lately to tell a later change.
func keepListing(p place.Place, getenv func(string) string, before time.Time, files []string, skip, shallow map[string]bool, rules map[string]string) {
	mark := before.Add(-filestat.Margin)
	key, ok := listingKey(p, getenv, mark)
	if !ok {
		return
	}
	index := userIndex(p, getenv)
	st, old := filestat.Of(index, mark)
	if !old {
		return
	}
	staged := "" // no index
	if st != "" {
		var ok bool
		staged, ok = stagedBy(index)
		if again, _ := filestat.Of(index, mark); !ok || again != st {
			return
		}
	}
	dirs := map[string]filestat.ID{}
	looks := []string{}
	if !walkDirs(p.TopLevel, ".", skip, shallow, mark, dirs, &looks) {
		return
	}
	writeListingMemo(p, listingMemo{Tag: listingTag, Key: key, Dirs: dirs, Rules: rules, Files: files, Index: st, Staged: staged, Looks: looks})
}

// writeListingMemo writes m as p's listing memo.
func writeListingMemo(p place.Place, m listingMemo) {
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	f := filepath.Join(p.GitDir, filepath.FromSlash(listingMemoName))
	if owned.MkdirAll(p.GitDir, filepath.Dir(filepath.FromSlash(listingMemoName)), 0o755) != nil {
		return
	}
	_ = atomicfile.WriteUnsynced(f, data, 0o644)
}

// walkDirs adds the directory rel of top and those below it that git
// walks to dirs, with their stats, and to looks the rule files among them
// that are there as anything but a regular file (a link, a FIFO...), and
// every rule file of a directory it does not read (shallow); false when
// one changed after mark or there are too many. A directory's entries are
// read after its stat is taken: while the directory keeps that stat, no
// entry of it was added, removed or renamed, so a rule file that was
// absent or a regular file (an inode never changes its type) still is.
func walkDirs(top, rel string, skip, shallow map[string]bool, mark time.Time, dirs map[string]filestat.ID, looks *[]string) bool {
	abs := filepath.Join(top, filepath.FromSlash(rel))
	st, old := filestat.Of(abs, mark)
	if !old || st == "" || len(dirs) >= maxListedDirs {
		return false
	}
	dirs[rel] = st
	if shallow[rel] {
		for _, name := range treeRuleNames {
			*looks = append(*looks, path.Join(rel, name))
		}
		return true
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if slices.Contains(treeRuleNames, e.Name()) && !e.Type().IsRegular() {
			*looks = append(*looks, path.Join(rel, e.Name()))
		}
		if !e.IsDir() || e.Name() == ".git" {
			continue
		}
		sub := path.Join(rel, e.Name())
		if skip[sub] {
			continue
		}
		if !walkDirs(top, sub, skip, shallow, mark, dirs, looks) {
			return false
		}
	}
	return true
}

// gitignoreListing lists, relative to the top level and sorted, the
// .gitignore files git reads in the work tree of p (see gitignoreFiles),
// from the listing memo when nothing it was taken in changed; rules
// fingerprints rule files by name (the files of the work tree's top-level
// relative).
// fromMemo says the listing was the memo's.
func gitignoreListing(ctx context.Context, p place.Place, getenv func(string) string, rules func([]string) map[string]string) (files []string, fromMemo bool, err error) {
	if files := memoListing(p, getenv, rules); files != nil {
		return files, true, nil
	}
	before := time.Now()
	files, skip, shallow, err := gitignoreFiles(ctx, p)
	if err != nil {
		return nil, false, err
	}
	keepListing(p, getenv, before, files, skip, shallow, rules(files))
	return files, false, nil
}

// gitignoreFiles lists, relative to the top level and sorted, the
// .gitignore files git reads in the work tree of p: those the index holds,
// and those on disk outside ignored directories, untracked or ignored (one
// that ignores itself, one an outer rule names). Git reads no ignore file
// inside an ignored directory, so none there can hide anything. Two git
// processes list them side by side: the index's (git ls-files, which
// keeps a large index out of this process's memory) and the disk's (git
// status, which walks the work tree once, not into ignored directories).
// skip are the ignored directories git did not walk into, shallow the
// repositories inside the work tree (top-level-relative).
func gitignoreFiles(ctx context.Context, p place.Place) (files []string, skip, shallow map[string]bool, err error) {
	type listing struct {
		names []string
		err   error
	}
	tracked := make(chan listing, 1)
	go func() {
		res, err := gitOut(ctx, p.TopLevel, "ls-files", "-z", "--cached", "--full-name", "--", gitignoreSpec)
		var names []string
		for rec := range bytes.SplitSeq(res, []byte{0}) {
			if n := string(rec); isGitignore(n) {
				names = append(names, n)
			}
		}
		tracked <- listing{names, err}
	}()
	out, err := gitOut(ctx, p.TopLevel, "status", "--porcelain=v2", "-z",
		"--ignored=matching", "--untracked-files=all", "--no-renames")
	t := <-tracked
	seen := map[string]bool{}
	for _, n := range t.names {
		seen[n] = true
	}
	skip, shallow = map[string]bool{}, map[string]bool{}
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		kind, rel, ok := strings.Cut(string(rec), " ")
		switch {
		case !ok || (kind != "?" && kind != "!"):
		case strings.HasSuffix(rel, "/") && kind == "!":
			skip[strings.TrimSuffix(rel, "/")] = true
		case strings.HasSuffix(rel, "/"):
			shallow[strings.TrimSuffix(rel, "/")] = true
		case isGitignore(rel):
			seen[rel] = true
		}
	}
	return slices.Sorted(maps.Keys(seen)), skip, shallow, errors.Join(t.err, err)
}

// gitOut runs git in dir with args and returns its output.
func gitOut(ctx context.Context, dir string, args ...string) ([]byte, error) {
	res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: dir, Args: args})
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("git %s: exit %d: %s", args[0], res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	return res.Stdout, nil
}
