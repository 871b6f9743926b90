package stophook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// The ignore rules are everything that can hide a file under an entry
// point from git's view, and so from change detection, without the file's
// own change showing: every .gitignore git reads in the work tree (tracked
// or not, one that ignores itself or that an outer rule ignores included),
// the repository's info/exclude, the user's global ignore file, the file
// core.excludesFile names (whichever config sets it), and the
// sparse-checkout patterns that take an entry point's files off the disk.
// Index flags (skip-worktree, assume-unchanged) hide nothing: snapshots
// read the disk whatever they say. The stop hook fingerprints the rules at
// every stop (ignoreRules) and tells a change between two stops, naming
// the rules that changed and the entry points they reach.

// maxExcludesFile bounds what is read of an ignore file to tell it from
// another.
const maxExcludesFile = 1 << 20

// maxRuleFiles bounds the ignore files fingerprinted one by one (and so
// named in a notice); those past it share one fingerprint.
const maxRuleFiles = 512

// gitignoreSpec is the pathspec of every .gitignore file at any depth.
const gitignoreSpec = ":(glob)**/.gitignore"

// seenRules are the ignore rules a stop saw (ignoreRules): inTree says
// whether it looked at those in the work tree.
type seenRules struct {
	files  map[string]string
	inTree bool
}

// rules fingerprints the ignore rules of the project of s (those in the
// work tree when inTree is set, warning with warn when git cannot list
// them); nil when the project is in no git work tree.
func (h *hook) rules(ctx context.Context, s *site, inTree bool, warn func(string, ...any)) *seenRules {
	if s.trust == nil {
		return nil // nothing is recorded (watchTrust)
	}
	p, err := place.Locate(ctx, s.root)
	if err != nil {
		return nil
	}
	files, listed := ignoreRules(ctx, p, h.o.Getenv, inTree, warn)
	return &seenRules{files: files, inTree: listed}
}

// ignoreRules fingerprints the ignore rules of the work tree of p, each
// rule file by its name (one in the work tree relative to the top level,
// the others by their absolute path) and its content; those in the work
// tree only when inTree is set; listed says they were. A listing git
// cannot make leaves the in-tree files out, with a warning, as if not
// asked: telling a change nobody made is not the answer to git failing.
func ignoreRules(ctx context.Context, p place.Place, getenv func(string) string, inTree bool, warn func(string, ...any)) (files map[string]string, listed bool) {
	files, rulesOf := outerRules(ctx, p, getenv)
	if !inTree {
		return files, false
	}
	list, _, err := gitignoreListing(ctx, p, getenv, rulesOf)
	if err != nil {
		warn("cannot list the work tree's ignore files: %v", err)
		return files, false
	}
	rest := sha256.New()
	for i, rel := range list {
		fp := fileFingerprint(filepath.Join(p.TopLevel, filepath.FromSlash(rel)))
		if i < maxRuleFiles {
			files[rel] = fp
			continue
		}
		fmt.Fprintf(rest, "%s\x00%s\x00", rel, fp)
	}
	if n := len(list) - maxRuleFiles; n > 0 {
		files[fmt.Sprintf("%d%s", n, moreGitignores)] = hex.EncodeToString(rest.Sum(nil))
	}
	files[listedMark] = "yes"
	return files, true
}

// moreGitignores ends the name of the fingerprint of the .gitignore files
// past maxRuleFiles.
const moreGitignores = " more .gitignore files"

// outerRules fingerprints the ignore rules of p outside the work tree
// (see ignoreRules), and gives rulesOf, which adds those of the listed
// .gitignore files to them (the rules a listing memo keeps).
func outerRules(ctx context.Context, p place.Place, getenv func(string) string) (files map[string]string, rulesOf func([]string) map[string]string) {
	files = map[string]string{}
	for _, f := range []string{filepath.Join(p.CommonDir, "info", "exclude"), globalExcludes(getenv),
		configuredExcludes(ctx, p, getenv), filepath.Join(p.GitDir, "info", "sparse-checkout")} {
		if f != "" {
			files[f] = fileFingerprint(f)
		}
	}
	return files, func(list []string) map[string]string {
		m := maps.Clone(files)
		for _, rel := range list {
			m[rel] = fileFingerprint(filepath.Join(p.TopLevel, filepath.FromSlash(rel)))
		}
		return m
	}
}

// listedMark is the part of a fingerprint that says the work tree's rules
// were listed: the first stop that lists them after stops that did not
// (the first stop ever, a book an older version wrote) adopts them without
// a notice.
const listedMark = "(the work tree's ignore files listed)"

// firstListing reports whether files, listed in the work tree, are the
// first such listing after last (see listedMark).
func firstListing(files map[string]string, last *verdicts.TrustSeen) bool {
	return files[listedMark] != "" && last != nil && last.Files[listedMark] == ""
}

// sealRules is the ignore rules files as the verdict book keeps them at
// now: a stop that did not look at the work tree's rules (inTree false)
// keeps those the last one saw (last), so that not looking is no change.
func sealRules(files map[string]string, last *verdicts.TrustSeen, inTree bool, now time.Time) verdicts.TrustSeen {
	all := maps.Clone(files)
	if !inTree && last != nil {
		for n, v := range last.Files {
			if !filepath.IsAbs(n) {
				all[n] = v
			}
		}
	}
	return verdicts.TrustSeen{Key: rulesKey(all), At: now, Files: all, Lines: outerLines(all),
		Desc: "the work tree's .gitignore files, info/exclude, the global ignore file, the sparse-checkout patterns"}
}

// rulesKey is the key (verdicts.TrustSeen.Key) of the ignore rules files.
func rulesKey(files map[string]string) string {
	h := sha256.New()
	for _, n := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s\x00%s\x00", n, files[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// movedRules is last, the ignore rules an earlier stop saw in the
// repository at p, with the rule files kept in the repository's own git
// directories (info/exclude, info/sparse-checkout) named where they are
// now. The verdict book is kept in those directories too, so the files it
// recorded under another path are these very files, recorded before the
// repository (or the worktree's git directory) moved: the move is no
// change of the rules. A name this stop still fingerprints (files), or
// one of several that could be the file, is left as it is. last itself is
// left as it was.
func movedRules(last *verdicts.TrustSeen, p place.Place, files map[string]string) *verdicts.TrustSeen {
	if last == nil {
		return nil
	}
	var moved *verdicts.TrustSeen
	for _, own := range []string{filepath.Join(p.CommonDir, "info", "exclude"), filepath.Join(p.GitDir, "info", "sparse-checkout")} {
		if _, ok := last.Files[own]; ok {
			continue
		}
		dir, rel := filepath.Dir(filepath.Dir(own)), filepath.Join(filepath.Base(filepath.Dir(own)), filepath.Base(own))
		was := slices.DeleteFunc(slices.Collect(maps.Keys(last.Files)), func(n string) bool {
			_, now := files[n]
			return now || !filepath.IsAbs(n) || filepath.Base(filepath.Dir(filepath.Dir(n))) != filepath.Base(dir) ||
				filepath.Join(filepath.Base(filepath.Dir(n)), filepath.Base(n)) != rel
		})
		if len(was) == 1 {
			n, v := was[0], last.Files[was[0]]
			if moved == nil {
				c := *last
				c.Files, c.Lines = maps.Clone(last.Files), maps.Clone(last.Lines)
				moved = &c
			}
			delete(moved.Files, n)
			moved.Files[own] = v
			if l, ok := moved.Lines[n]; ok {
				delete(moved.Lines, n)
				moved.Lines[own] = l
			}
		}
	}
	if moved == nil {
		return last
	}
	moved.Key = rulesKey(moved.Files)
	return moved
}

// globalExcludes is the user's global ignore file at git's default place
// ("" when neither XDG_CONFIG_HOME nor HOME is set); core.excludesFile
// set elsewhere is configuredExcludes.
func globalExcludes(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "ignore")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "git", "ignore")
	}
	return ""
}

// configuredExcludes is the ignore file core.excludesFile names as git
// reads it for the work tree of p (the repository's config, the user's,
// the system's), absolute; "" when it is not set or git cannot say. It is
// watched beside the default global ignore file: a repository's config
// pointing it at a file of the agent's hides files as info/exclude does.
func configuredExcludes(ctx context.Context, p place.Place, getenv func(string) string) string {
	if !mayNameExcludes(p, getenv) {
		return ""
	}
	res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: p.TopLevel, Args: []string{"config", "--path", "--get", "core.excludesFile"}})
	if err != nil || res.ExitCode != 0 {
		return ""
	}
	f := strings.TrimRight(string(res.Stdout), "\r\n")
	if f == "" {
		return ""
	}
	if !filepath.IsAbs(f) {
		f = filepath.Join(p.TopLevel, f)
	}
	return filepath.Clean(f)
}

// mayNameExcludes reports whether git could find core.excludesFile set
// for p: in the environment's configuration, or in a configuration file it
// reads (configFiles) that mentions it or includes another (one it cannot
// read counts as mentioning it). When none does, the steady stop asks git
// nothing.
func mayNameExcludes(p place.Place, getenv func(string) string) bool {
	if getenv("GIT_CONFIG_PARAMETERS") != "" || getenv("GIT_CONFIG_COUNT") != "" {
		return true
	}
	for _, f := range configFiles(p, getenv) {
		data, err := fsread.File(f, maxExcludesFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		low := bytes.ToLower(data)
		if err != nil || bytes.Contains(low, []byte("excludesfile")) || bytes.Contains(low, []byte("include")) {
			return true
		}
	}
	return false
}

// fileFingerprint tells the content of the rule file f from another's:
// absent, unreadable, or its hash.
func fileFingerprint(f string) string {
	data, err := fsread.File(f, maxExcludesFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "absent"
	case err != nil:
		return "unreadable"
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// isGitignore reports whether the top-level-relative path rel names a
// .gitignore file.
func isGitignore(rel string) bool {
	return path.Base(rel) == ".gitignore" && !strings.HasSuffix(rel, "/")
}

// rulesNotice is what every answer says of a change of the ignore rules
// seen by the stop hook: which rules changed, when, and that the agent may
// have hidden files; reach names the entry points those rules reach.
func rulesNotice(c *verdicts.TrustChange, reach []string) string {
	changed := c.Changed()
	what := "the ignore rules"
	if len(changed) > 0 {
		what = named(changed)
	}
	where := "the project"
	if len(reach) > 0 {
		where = "the entry points " + named(entryNames(reach))
	}
	before := ""
	switch {
	case c.From.Desc == trustSawRules:
		before = fmt.Sprintf(" (no stop before it: compared with %s, at %s)", trustSawRules, stamp(c.From.At))
	case strings.HasPrefix(c.From.Desc, headSawRules):
		before = headRulesBefore(c.From)
	}
	return fmt.Sprintf("The ignore rules changed since an earlier stop%s, seen first at %s: %s. "+
		"A file they newly hide from git, under %s, is no change to any gate. If no person did that, the agent hid files from the gates.",
		before, stamp(c.To.At), runner.SafeText(what), runner.SafeText(where))
}

// hiddenUnverified is what a rules change leaves unverified, for the
// answer's "Not verified:" sentence: the files it newly hides (f),
// named.
func hiddenUnverified(c *verdicts.TrustChange, reach []string, f hiddenFiles) string {
	where := "the project"
	if len(reach) > 0 {
		where = named(entryNames(reach))
	}
	what := "the ignore rules"
	if changed := c.Changed(); len(changed) > 0 {
		what = named(changed)
	}
	return hiddenSentence(runner.SafeText(what), runner.SafeText(where), f)
}

// entryNames are entry point paths for the person: "." is the project
// root.
func entryNames(paths []string) []string {
	out := slices.Clone(paths)
	for i, p := range out {
		if p == "." {
			out[i] = ". (the project root)"
		}
	}
	return out
}

// rulesReach names the entry points of cfg (paths relative to the project
// root at prefix, top-level-relative) that the changed rules reach: a
// .gitignore reaches the entry points in its directory, below it or
// above it; any other rule (info/exclude, the global ignore file, the
// sparse-checkout patterns) reaches every one.
func rulesReach(changed []string, cfg *config.Config, prefix string) []string {
	var reach []string
	for _, ep := range cfg.EntryPoints {
		dir := path.Clean(prefix + literalPrefix(ep.Path))
		for _, n := range changed {
			if ruleReaches(n, dir) {
				reach = append(reach, ep.Path)
				break
			}
		}
	}
	return reach
}

// ruleReaches reports whether the rule named n reaches the entry point
// directory dir (top-level-relative, "." for the top level).
func ruleReaches(n, dir string) bool {
	if !isGitignore(n) || filepath.IsAbs(n) {
		return true
	}
	d := path.Dir(n)
	return d == "." || dir == "." || d == dir || strings.HasPrefix(dir, d+"/") || strings.HasPrefix(d, dir+"/")
}

// literalPrefix is the part of an entry point's path before its first
// wildcard, without a trailing slash ("." for none).
func literalPrefix(p string) string {
	if i := strings.IndexAny(p, "*?["); i >= 0 {
		p = p[:i]
		if j := strings.LastIndex(p, "/"); j >= 0 {
			p = p[:j]
		} else {
			p = "."
		}
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return "."
	}
	return p
}
