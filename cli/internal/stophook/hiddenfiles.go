package stophook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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

// A notice of an ignore-rules change names the files the change hides
// (newlyHidden): the untracked paths under the entry points it reaches
// that git ignores now by a rule the change added or altered. Git never
// hides a tracked file, so none is named. Only a stop that tells such a
// notice lists them, at every answer that tells it: a file hidden after
// the notice was first told, by the same rule, is named too. The listing
// is bounded (entries, bytes, time); a bounded or failed listing says so
// instead of naming none.

// maxHiddenNamed bounds the paths a notice names; the rest are counted.
const maxHiddenNamed = 10

// maxHiddenListing bounds the bytes of git's listing of ignored paths, and
// of its answer on which rule ignores each.
const maxHiddenListing = 1 << 20

// maxHiddenEntries bounds the ignored paths whose rule is asked for.
const maxHiddenEntries = 20000

// hiddenListingTime bounds the time the listing takes.
const hiddenListingTime = 5 * time.Second

// maxOldRuleFiles bounds the changed .gitignore files whose content at
// HEAD is read to tell their new lines from the old ones.
const maxOldRuleFiles = 16

// hiddenFiles are the paths an ignore-rules change newly hides (sorted,
// top-level-relative, a directory ending in "/"), and why the list may be
// short ("" when it is complete).
type hiddenFiles struct {
	paths []string
	cut   string
}

// text says the list for a "Not verified" sentence: the paths named (at
// most maxHiddenNamed, the rest counted), or that none exists now, and
// why the list may be short.
func (f hiddenFiles) text() string {
	var out string
	switch {
	case len(f.paths) > 0:
		out = namedUpTo(f.paths, maxHiddenNamed)
	case f.cut == "":
		out = "none in the work tree now"
	}
	if f.cut != "" {
		if out != "" {
			out += "; "
		}
		out += "the list may be short: " + runner.SafeText(f.cut)
	}
	return out
}

// ignoredBy is one ignored path and the rule that decides it, as
// `git check-ignore -v` says: the rule file (source) and the pattern.
type ignoredBy struct {
	source  string
	pattern string
	path    string
}

// newlyHidden lists the paths under dirs (top-level-relative directories,
// "." for the top level) of the work tree of p that git ignores now by a
// rule of a rule file change c changed: a line the file did not hold
// before when its earlier content is known (absent; a .gitignore as
// HEAD's commit holds it; an ignore file outside the work tree as the
// verdict book kept its rules), any line otherwise. A changed file that
// lost a negation ("!") line may let an older rule decide a path it no
// longer excepts, so then every ignored path is named, as when c is nil
// (no earlier record of the rules to compare with).
//
// Git reads every rule file to list them: where one is not a file (a FIFO
// would hold git until the deadline, and the stop blocks on it anyway:
// ruleFileProblems), nothing is listed, and the list says why.
func newlyHidden(ctx context.Context, p place.Place, c *verdicts.TrustChange, dirs []string, getenv func(string) string) hiddenFiles {
	if found := ruleFileProblems(ctx, p, getenv); len(found) > 0 {
		return hiddenFiles{cut: "git cannot list the ignored files: where it reads its rules there is what is not a file (" + strings.Join(found, ", ") + ")"}
	}
	ctx, cancel := context.WithTimeout(ctx, hiddenListingTime)
	defer cancel()
	listed, cut, err := listIgnored(ctx, p, dirs)
	if err != nil {
		return hiddenFiles{cut: "git could not list the ignored files: " + err.Error()}
	}
	decided, err := decidingRules(ctx, p, listed)
	if err != nil {
		return hiddenFiles{cut: "git could not say which rule ignores each file: " + err.Error()}
	}
	changed, old, negLost := map[string]bool{}, map[string][]string{}, true
	if c != nil {
		changed = changedRules(p, c)
		old, negLost = oldRules(ctx, p, c, changed)
	}
	var out []string
	for _, d := range decided {
		name := ruleName(p, d.source)
		if !changed[name] && !(isGitignore(name) && changed[moreGitignores]) && !negLost {
			continue
		}
		if lines, known := old[name]; known && !negLost && slices.Contains(lines, d.pattern) {
			continue // an old line: the path was ignored before
		}
		out = append(out, d.path)
	}
	slices.Sort(out)
	return hiddenFiles{paths: slices.Compact(out), cut: cut}
}

// listIgnored lists the untracked paths git ignores under dirs in the work
// tree of p (a directory ignored as a whole once, ending in "/"); cut says
// why the list is short, "" when it is not.
func listIgnored(ctx context.Context, p place.Place, dirs []string) (paths []string, cut string, err error) {
	args := []string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--"}
	for _, d := range dirs {
		if d == "." {
			args = append(args, ":/")
		} else {
			args = append(args, ":(top,literal)"+d)
		}
	}
	res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: p.TopLevel, Args: args, Limit: maxHiddenListing})
	switch {
	case err != nil:
		return nil, "", err
	case res.ExitCode != 0:
		return nil, "", fmt.Errorf("git ls-files: exit %d: %s", res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	out := res.Stdout
	if res.Truncated {
		cut = fmt.Sprintf("git's listing of ignored paths passed %d bytes", maxHiddenListing)
		if i := bytes.LastIndexByte(out, 0); i >= 0 {
			out = out[:i+1] // the last entry may be cut short
		} else {
			out = nil
		}
	}
	for _, e := range strings.Split(string(out), "\x00") {
		if e != "" {
			paths = append(paths, e)
		}
	}
	if len(paths) > maxHiddenEntries {
		paths = paths[:maxHiddenEntries]
		cut = fmt.Sprintf("more than %d ignored paths, the rest not looked at", maxHiddenEntries)
	}
	return paths, cut, nil
}

// decidingRules asks git which rule ignores each of paths (work tree of
// p, top-level-relative).
func decidingRules(ctx context.Context, p place.Place, paths []string) ([]ignoredBy, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: p.TopLevel, Args: []string{"check-ignore", "-v", "-z", "--stdin", "--no-index"},
		Stdin: strings.Join(paths, "\x00") + "\x00", Limit: 4 * maxHiddenListing})
	switch {
	case err != nil:
		return nil, err
	case res.ExitCode > 1 || res.Truncated:
		return nil, fmt.Errorf("git check-ignore: exit %d (output cut: %v): %s", res.ExitCode, res.Truncated, strings.TrimSpace(res.Stderr))
	}
	fields := strings.Split(string(res.Stdout), "\x00")
	var out []ignoredBy
	for i := 0; i+3 < len(fields); i += 4 {
		if fields[i] == "" || strings.HasPrefix(fields[i+2], "!") {
			continue // no rule, or one that excepts the path
		}
		out = append(out, ignoredBy{source: fields[i], pattern: fields[i+2], path: fields[i+3]})
	}
	return out, nil
}

// changedRules are the rule files c changed, by their names in the
// verdict book (ignoreRules), with the name moreGitignores set when
// .gitignore files past the bound changed, by no name.
func changedRules(p place.Place, c *verdicts.TrustChange) map[string]bool {
	out := map[string]bool{}
	for _, n := range c.Changed() {
		switch {
		case n == listedMark:
		case strings.HasSuffix(n, moreGitignores):
			out[moreGitignores] = true
		default:
			out[ruleName(p, n)] = true
		}
	}
	return out
}

// ruleName is the name the verdict book gives the rule file src (as git
// names it, relative to the top level of p or absolute): a .gitignore in
// the work tree relative to the top level, any other file absolute, with
// its links resolved.
func ruleName(p place.Place, src string) string {
	abs := src
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(p.TopLevel, filepath.FromSlash(src))
	}
	if rel, err := filepath.Rel(p.TopLevel, abs); err == nil && filepath.IsLocal(rel) && isGitignore(filepath.ToSlash(rel)) {
		return filepath.ToSlash(rel)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return filepath.Clean(abs)
}

// oldRules are the lines each changed rule file held before c where that
// is known: none for one absent before; a .gitignore's as HEAD's commit
// holds it when the book's fingerprint of it before c is that content's.
// negLost reports a changed .gitignore whose known earlier content held a
// negation line it no longer holds.
func oldRules(ctx context.Context, p place.Place, c *verdicts.TrustChange, changed map[string]bool) (old map[string][]string, negLost bool) {
	old = map[string][]string{}
	read := 0
	for n, was := range c.From.Files {
		name := ruleName(p, n)
		if !changed[name] {
			continue
		}
		if was == "absent" {
			old[name] = nil
			continue
		}
		if lines, ok := c.From.Lines[n]; ok && !isGitignore(name) {
			old[name] = lines
			negLost = negLost || lostNegation(lines, name)
			continue
		}
		if !isGitignore(name) || read >= maxOldRuleFiles {
			continue
		}
		read++
		res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: p.TopLevel, Args: []string{"cat-file", "blob", "HEAD:" + name}, Limit: maxExcludesFile})
		if err != nil || res.ExitCode != 0 || res.Truncated || fingerprintOf(res.Stdout) != was {
			continue
		}
		lines := ruleLines(res.Stdout)
		old[name] = lines
		negLost = negLost || lostNegation(lines, filepath.Join(p.TopLevel, filepath.FromSlash(name)))
	}
	return old, negLost
}

// lostNegation reports whether the rule file f no longer holds a
// negation ("!") line of its earlier rules old.
func lostNegation(old []string, f string) bool {
	data, _ := fsread.File(f, maxExcludesFile)
	now := ruleLines(data)
	for _, l := range old {
		if strings.HasPrefix(l, "!") && !slices.Contains(now, l) {
			return true
		}
	}
	return false
}

// maxKeptLines bounds the size of an ignore file outside the work tree
// whose rules the verdict book keeps (verdicts.TrustSeen.Lines).
const maxKeptLines = 16 << 10

// outerLines are the rules of the ignore files outside the work tree that
// files fingerprints (absolute names; the sparse-checkout patterns left
// out), each as it is now when that is the content fingerprinted and no
// larger than maxKeptLines; nil for none.
func outerLines(files map[string]string) map[string][]string {
	var out map[string][]string
	for n, fp := range files {
		if !filepath.IsAbs(n) || filepath.Base(n) == "sparse-checkout" || fp == "absent" || fp == "unreadable" {
			continue
		}
		data, err := fsread.File(n, maxKeptLines)
		if err != nil || fingerprintOf(data) != fp {
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[n] = append([]string{}, ruleLines(data)...)
	}
	return out
}

// fingerprintOf is fileFingerprint's form of content data.
func fingerprintOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ruleLines are the patterns of an ignore file's content, as
// `git check-ignore -v` prints them: trailing blanks and carriage returns
// cut, blank lines and comments left out.
func ruleLines(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// entryDirs are the top-level-relative directories of the entry points
// reach (paths relative to the project root at prefix), "." for the top
// level; the project root itself when reach is empty.
func entryDirs(reach []string, prefix string) []string {
	if len(reach) == 0 {
		return []string{path.Clean(prefix + ".")}
	}
	var out []string
	for _, ep := range reach {
		out = append(out, path.Clean(prefix+literalPrefix(ep)))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// entryPaths are the paths of the entry points of cfg.
func entryPaths(cfg *config.Config) []string {
	var out []string
	for _, ep := range cfg.EntryPoints {
		out = append(out, ep.Path)
	}
	return out
}

// hiddenSentence is hiddenUnverified with the files named (f).
func hiddenSentence(what, where string, f hiddenFiles) string {
	return fmt.Sprintf("the files that %s newly hide from git, under %s (%s)", what, where, f.text())
}
