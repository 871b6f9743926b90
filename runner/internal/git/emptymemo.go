package git

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// emptySuffix names, next to a kept index, the memo of the last walk of
// takeEmpty that met no entry named .git: the hash of what it depended
// on, its answer (ownEmpty, maybe ""), then what it looked at in order,
// each ended by a NUL: a directory it read ("d" and its top-level-
// relative path, "d" alone for the top level) or a rule file it stated
// ("f" and its absolute path).
const emptySuffix = ".empty"

// emptyTag opens what an empty-directory memo hashes.
const emptyTag = "empty-walk 2"

// dirWalk is one walk of takeEmpty: what it depends on hashed in h (the
// top level, what the snapshot leaves out, the index's directories, the
// tops of the repositories inside, then the identity of each directory
// it read, taken before its entries were, and of each rule file it
// stated), what it looked at in order (see emptySuffix), and whether it
// may be remembered: every directory read whole, each identity older
// than before, every rule file git reads known.
type dirWalk struct {
	before time.Time
	h      hash.Hash
	read   []string
	keep   bool
}

// newDirWalk starts a walk of s over the index directories indexDirs,
// with the repository tops repos.
func (s *TreeSnapshot) newDirWalk(indexDirs []string, repos map[string]bool) *dirWalk {
	w := &dirWalk{before: time.Now().Add(-filestat.Margin), h: sha256.New(), keep: s.kept != ""}
	fmt.Fprintf(w.h, "%s\x00%s\x00%d\x00", emptyTag, s.disk.top, len(s.left))
	for _, l := range s.left {
		fmt.Fprintf(w.h, "%s\x00", l)
	}
	fmt.Fprintf(w.h, "%d\x00", len(indexDirs))
	for _, d := range indexDirs {
		fmt.Fprintf(w.h, "%s\x00", d)
	}
	for _, r := range slices.Sorted(maps.Keys(repos)) {
		fmt.Fprintf(w.h, "r%s\x00", r)
	}
	return w
}

// see adds the identity of what is at abs to the walk under the name
// rec ("d" and a directory's top-level-relative path, "f" and a file's
// absolute path); an identity too recent to tell a later change makes the
// walk one not to remember.
func (w *dirWalk) see(abs, rec string) {
	st, old := filestat.Exact(abs, w.before)
	w.keep = w.keep && old
	w.read = append(w.read, rec)
	fmt.Fprintf(w.h, "%s\x00%s\x00", rec, st)
}

// readDir reads the entries of the directory abs (rel from the top level)
// after its identity: a change between the two moves the identity the
// memo holds, never only the entries. A directory that is not there (its
// identity empty) reads as nothing; any other failure makes the walk one
// not to remember. A .gitignore among the entries is stated too: editing
// one moves no directory's identity.
func (w *dirWalk) readDir(abs, rel string) ([]os.DirEntry, error) {
	w.see(abs, "d"+rel)
	ents, err := os.ReadDir(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.keep = false
	}
	for _, e := range ents {
		if e.Name() == ".gitignore" {
			w.see(filepath.Join(abs, e.Name()), "f"+filepath.Join(abs, e.Name()))
		}
	}
	return ents, err
}

// seeRules adds to the walk the identity of the files outside the work
// tree that decide what git ignores in it (see ruleFiles), or makes it one
// not to remember when they cannot be told.
func (w *dirWalk) seeRules(d *diskRepo) {
	files, ok := d.ruleFiles()
	w.keep = w.keep && ok
	for _, f := range files {
		w.see(f, "f"+f)
	}
}

// ruleFiles are the files outside the work tree of d that decide what git
// ignores in it: the repository's info/exclude, the configuration files
// git reads (which may set core.excludesFile), the user's default global
// ignore file and each file a core.excludesFile line of those names; ok is
// false when that cannot be told without git (an include, configuration
// given in the environment).
func (d *diskRepo) ruleFiles() (files []string, ok bool) {
	ok = os.Getenv("GIT_CONFIG_PARAMETERS") == "" && os.Getenv("GIT_CONFIG_COUNT") == "" && os.Getenv("GIT_CONFIG") == ""
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	configs := append(d.configFiles(), "/etc/gitconfig")
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		configs = append(configs, g)
	} else if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	if s := os.Getenv("GIT_CONFIG_SYSTEM"); s != "" {
		configs = append(configs, s)
	}
	files = append([]string{filepath.Join(d.commonDir, "info", "exclude")}, configs...)
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "ignore"))
		configs = append(configs, filepath.Join(xdg, "git", "config"))
	}
	for _, c := range configs {
		data, err := fsread.File(c, maxOwnFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return files, false
		}
		for _, l := range strings.Split(string(data), "\n") {
			key, value, _ := strings.Cut(l, "=")
			key = strings.ToLower(strings.TrimSpace(key))
			switch {
			case strings.Contains(key, "include"):
				ok = false
			case key == "excludesfile":
				f := strings.Trim(strings.TrimSpace(value), `"`)
				if rest, tilde := strings.CutPrefix(f, "~/"); tilde {
					f = filepath.Join(home, rest)
				}
				if !filepath.IsAbs(f) {
					f = filepath.Join(d.top, f)
				}
				files = append(files, f)
			case strings.Contains(key, "excludesfile"):
				ok = false // on the section's line, or spelled in a way not read here
			}
		}
	}
	return files, ok
}

// sum is the walk's hash.
func (w *dirWalk) sum() string { return hex.EncodeToString(w.h.Sum(nil)) }

// walkKnown reports whether the memo beside the kept index stands for a
// walk over indexDirs now, and its answer: every directory it read and
// every rule file it stated has the identity it had then, so the walk
// would read the same entries, and git would name the same of them
// ignored, again. A directory's entries change only with its times (a
// name made, removed or renamed in it).
func (s *TreeSnapshot) walkKnown(indexDirs []string) (string, bool) {
	if s.kept == "" {
		return "", false
	}
	data, err := fsread.File(s.kept+emptySuffix, maxOwnFile)
	if err != nil {
		return "", false
	}
	want, rest, ok := strings.Cut(string(data), "\n")
	answer, list, ok2 := strings.Cut(rest, "\n")
	if !ok || !ok2 || !strings.HasSuffix(list, "\x00") {
		return "", false
	}
	w := s.newDirWalk(indexDirs, s.repoDirs())
	for _, rec := range strings.Split(strings.TrimSuffix(list, "\x00"), "\x00") {
		switch {
		case strings.HasPrefix(rec, "d"):
			w.see(filepath.Join(s.disk.top, filepath.FromSlash(rec[1:])), rec)
		case strings.HasPrefix(rec, "f"):
			w.see(rec[1:], rec)
		default:
			return "", false
		}
	}
	if w.sum() != want {
		return "", false
	}
	walksSkipped.Add(1)
	return answer, true
}

// walksSkipped counts the walks a memo stood for (its tests read it).
var walksSkipped atomic.Int64

// noteWalk remembers the walk w and its answer when it may be.
func (s *TreeSnapshot) noteWalk(w *dirWalk, answer string) {
	if !w.keep {
		s.forgetWalk()
		return
	}
	var b strings.Builder
	b.WriteString(w.sum() + "\n" + answer + "\n")
	for _, rec := range w.read {
		b.WriteString(rec + "\x00")
	}
	_ = writeIfDiffers(s.kept+emptySuffix, []byte(b.String()))
}

// forgetWalk removes the memo of the last walk, if any.
func (s *TreeSnapshot) forgetWalk() {
	if s.kept != "" {
		_ = os.Remove(s.kept + emptySuffix)
	}
}
