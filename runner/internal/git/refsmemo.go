package git

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// What `git cat-file --batch` answers for the revisions ResolveRefs asks
// (HEAD, the base branch and its remote-tracking copy, each as
// "<name>^{commit}", and the last snapshot, an object id) depends on files
// git reads for them and on objects. The files: HEAD, the loose ref of
// every name git tries for each name (refs/<n>, refs/tags/<n>,
// refs/heads/<n>, refs/remotes/<n>, refs/remotes/<n>/HEAD, in the git
// directory and in the common one) and the target of each one that is
// symbolic, the packed refs, the reftable stack, the replace refs, the
// configuration files and the git variables of the environment. The
// objects: a commit never changes once made, and one a ref names is not
// pruned while the ref names it; the snapshot, which no ref may name, is
// watched through the directories a prune or a repack changes (its loose
// object's directory, the packs' directory).
//
// The refs memo keeps the last answer with the identity (filestat) of all
// of those; a stop that finds them all as they were takes the objects from
// it, with no git process. Nothing is kept where the answer could move
// without a watched file moving: a name git could read as an abbreviated
// object id or as anything but a ref name, a name that names nothing while
// a ref file or packed ref could hold it (it may name an object not there
// yet), alternate object directories, a git variable that moves the
// repository or the replace refs.

// refsMemoName is the refs memo's file in the store's directory of the git
// common directory.
const refsMemoName = "refs.json"

// refsTag opens every key of the refs memo.
const refsTag = "agent-gauntlet refs v1"

// maxRefsEntries bounds the answers the memo keeps: one for each project
// root and set of revisions (worktrees share the common directory).
const maxRefsEntries = 16

// refsMemo is what the memo keeps: for each project root and revisions
// (refsSlot), the key of the state the objects were read in and the
// objects.
type refsMemo struct {
	Entries map[string]refsEntry `json:"entries"`
}

// refsEntry is one answer of the memo.
type refsEntry struct {
	Key     string   `json:"key"`
	Objects []Object `json:"objects"`
}

// refsSlot is the memo's entry of the project at root asking revs.
func refsSlot(root string, revs []string) string {
	sum := sha256.Sum256([]byte(root + "\x00" + strings.Join(revs, "\x00")))
	return hex.EncodeToString(sum[:8])
}

// objectsKept is Objects(ctx, root, revs...) for the project at root
// located at loc, taken from the refs memo when nothing git reads for
// revs changed since the memo was written (hit), else from git (and then
// kept when everything it read is old enough for a later change to move
// its stat).
func objectsKept(ctx context.Context, loc Location, root string, revs []string) (objs []Object, hit bool, err error) {
	memo, slot := filepath.Join(loc.CommonDir, store.Dir, refsMemoName), refsSlot(root, revs)
	var m refsMemo
	if data, err := fsread.File(memo, maxOwnFile); err != nil || json.Unmarshal(data, &m) != nil || m.Entries == nil {
		m.Entries = map[string]refsEntry{}
	}
	if key, ok := refsKey(loc, root, revs, time.Now().Add(time.Hour)); ok {
		if e, found := m.Entries[slot]; found && e.Key == key && len(e.Objects) == len(revs) {
			return e.Objects, true, nil
		}
	}
	before := time.Now().Add(-filestat.Margin)
	objs, err = Objects(ctx, root, revs...)
	if err != nil {
		return nil, false, err
	}
	if !keepable(loc, root, revs, objs) {
		return objs, false, nil
	}
	if key, ok := refsKey(loc, root, revs, before); ok && owned.MkdirAll(loc.CommonDir, store.Dir, 0o755) == nil {
		if _, found := m.Entries[slot]; !found && len(m.Entries) >= maxRefsEntries {
			m.Entries = map[string]refsEntry{}
		}
		m.Entries[slot] = refsEntry{Key: key, Objects: objs}
		_ = atomicfile.WriteJSONUnsynced(memo, m, 0o644)
	}
	return objs, false, nil
}

// keepable reports whether objs, read for revs, may be kept: every name
// that named nothing has no loose ref file git would try, and the packed
// refs do not hold it (a ref naming an object not there yet names
// nothing now, and names it once the object comes, with no ref file
// moving).
func keepable(loc Location, root string, revs []string, objs []Object) bool {
	gitDir, ok := plainGitDir(root, loc)
	if !ok {
		return false
	}
	packed, err := fsread.File(filepath.Join(loc.CommonDir, "packed-refs"), maxGitFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	for i, rev := range revs {
		name, ok := strings.CutSuffix(rev, "^{commit}")
		if rev == "" || objs[i].SHA != "" || (ok && isSHA(name)) {
			continue
		}
		if bytes.Contains(packed, []byte(name)) {
			return false
		}
		for _, f := range refFiles(loc.CommonDir, gitDir, name) {
			if _, err := os.Lstat(f); err == nil {
				return false
			}
		}
	}
	return true
}

// refsKey is the identity of everything git reads to answer revs at root
// (see the top of this file). ok is false when the state cannot be kept:
// a revision that is not "<name>^{commit}" with name a plain ref name or
// an object id, a git variable that moves the repository or the replace
// refs, alternate object directories, a configuration that includes other
// files, a symbolic ref naming another symbolic ref, or a file changed too
// lately (its times not older than before) for a later change to be told
// from it.
func refsKey(loc Location, root string, revs []string, before time.Time) (string, bool) {
	gitDir, ok := plainGitDir(root, loc)
	if !ok || os.Getenv("GIT_REPLACE_REF_BASE") != "" {
		return "", false
	}
	common := loc.CommonDir
	objects := filepath.Join(common, "objects")
	files := []string{filepath.Join(common, "packed-refs"), filepath.Join(common, "reftable"), filepath.Join(common, "reftable", "tables.list"),
		filepath.Join(common, "refs", "replace"), filepath.Join(objects, "pack"), filepath.Join(objects, "info", "alternates")}
	for _, rev := range revs {
		if rev == "" {
			continue
		}
		name, ok := strings.CutSuffix(rev, "^{commit}")
		switch {
		case !ok:
			return "", false
		case isSHA(name):
			files = append(files, filepath.Join(objects, name[:2]), filepath.Join(objects, name[:2], name[2:]))
			continue
		case !plainRefName(name):
			return "", false
		}
		names := refFiles(common, gitDir, name)
		for _, f := range names {
			if fi, err := os.Lstat(f); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return "", false // git follows it to a file not watched
			}
			target, symbolic := symref(f)
			if !symbolic {
				continue
			}
			if !plainRefName(target) || !strings.HasPrefix(target, "refs/") {
				return "", false
			}
			for _, t := range []string{filepath.Join(gitDir, filepath.FromSlash(target)), filepath.Join(common, filepath.FromSlash(target))} {
				if _, again := symref(t); again {
					return "", false
				}
				files = append(files, t)
			}
		}
		files = append(files, names...)
	}
	if _, err := os.Lstat(filepath.Join(objects, "info", "alternates")); err == nil || os.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES") != "" {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", refsTag, root, common, gitDir, strings.Join(revs, "\x00"))
	configs := configFiles(common, gitDir)
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

// refFiles are the loose ref files git tries for name, in the git
// directory gitDir and in the common directory common.
func refFiles(common, gitDir, name string) []string {
	var files []string
	for _, dir := range []string{gitDir, common} {
		for _, alias := range []string{name, "refs/" + name, "refs/tags/" + name, "refs/heads/" + name, "refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"} {
			files = append(files, filepath.Join(dir, filepath.FromSlash(alias)))
		}
	}
	return files
}

// plainRefName reports whether name can only be read by git as a ref name:
// letters, digits, '-', '_', '.' and '/' between non-empty components that
// start with no '.' and end with no ".lock"; not "@", nor a run of four or
// more hexadecimal digits (an abbreviated object id where no ref has the
// name).
func plainRefName(name string) bool {
	if name == "" || name == "@" || len(name) > 1024 {
		return false
	}
	hexOnly := len(name) >= 4
	for _, c := range name {
		switch {
		case 'a' <= c && c <= 'f', 'A' <= c && c <= 'F', '0' <= c && c <= '9':
		case 'g' <= c && c <= 'z', 'G' <= c && c <= 'Z', c == '-', c == '_', c == '.', c == '/':
			hexOnly = false
		default:
			return false
		}
	}
	if hexOnly {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") || strings.HasSuffix(part, ".") {
			return false
		}
	}
	return true
}

// plainConfigs reports whether the configuration files configs can be
// read and include no other file.
func plainConfigs(configs []string) bool {
	for _, f := range configs {
		if data, err := fsread.File(f, maxGitFile); err == nil && bytes.Contains(bytes.ToLower(data), []byte("include")) {
			return false // the answer may come from a file not watched
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	return true
}

// writeGitEnv writes to h the variables of this process's environment git
// reads (GIT_*, HOME, XDG_CONFIG_HOME, PATH), sorted.
func writeGitEnv(h hash.Hash) {
	env := os.Environ()
	slices.Sort(env)
	for _, kv := range env {
		if strings.HasPrefix(kv, "GIT_") || slices.ContainsFunc([]string{"HOME=", "XDG_CONFIG_HOME=", "PATH="}, func(k string) bool { return strings.HasPrefix(kv, k) }) {
			fmt.Fprintf(h, "%s\x00", kv)
		}
	}
}
