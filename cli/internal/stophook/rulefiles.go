package stophook

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// Git reads its rule files (ignore files, attributes, the sparse-checkout
// patterns) with a blocking open: a FIFO at one of their names holds every
// git command of the stop until its deadline, and a device or socket
// there is no rule file either. The stop looks at every such name before
// git does (ruleFileProblems), without opening any, and blocks on what it
// finds, naming it: the agent put it there and can take it away.

// treeRuleNames are the names of the rule files git reads in any
// directory of the work tree it walks.
var treeRuleNames = []string{".gitignore", ".gitattributes"}

// ruleFileProblems names each of git's rule files of the work tree of p
// that is, or links to, what no open should wait on (a FIFO, a socket, a
// device), or a directory where git fails on one (an exclude file outside
// the work tree), each as "path (what it is)": those in the work tree at
// any depth (relative to the top level), those of its git directories,
// the user's global ones and the one core.excludesFile names (absolute).
// Repositories inside the work tree are not entered: their own git reads
// them. The walk opens directories only.
func ruleFileProblems(ctx context.Context, p place.Place, getenv func(string) string) []string {
	var found []string
	excludes, others := gitRuleFiles(ctx, p, getenv)
	for _, f := range excludes {
		if what := oddRuleFile(f, true); what != "" {
			found = append(found, f+" ("+what+")")
		}
	}
	for _, f := range others {
		if what := oddRuleFile(f, false); what != "" {
			found = append(found, f+" ("+what+")")
		}
	}
	return append(found, treeRuleProblems(ctx, p, getenv)...)
}

// treeRuleProblems is ruleFileProblems for the rule files in the work
// tree of p. A valid listing memo (validMemo) names every directory git
// walks, none changed since a listing git finished: only the rule files
// it names as not regular files then are looked at (listingMemo.Looks: in
// a directory that kept its stat, every other one is still absent or a
// regular file). Otherwise the whole work tree is walked (ignored
// directories included: which ones git skips is what git would have to
// read the rules to tell).
func treeRuleProblems(ctx context.Context, p place.Place, getenv func(string) string) []string {
	var found []string
	look := func(path string) {
		if what := oddRuleFile(path, false); what != "" {
			rel, _ := filepath.Rel(p.TopLevel, path)
			found = append(found, filepath.ToSlash(rel)+" ("+what+")")
		}
	}
	_, rulesOf := outerRules(ctx, p, getenv)
	if m := validMemo(p, getenv, rulesOf); m != nil {
		for _, rel := range slices.Sorted(slices.Values(m.Looks)) {
			look(filepath.Join(p.TopLevel, filepath.FromSlash(rel)))
		}
		return found
	}
	_ = filepath.WalkDir(p.TopLevel, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return nil // a directory that cannot be read: git cannot read in it either
		}
		if d.IsDir() {
			if d.Name() == ".git" || (path != p.TopLevel && isRepository(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if slices.Contains(treeRuleNames, d.Name()) && !d.Type().IsRegular() {
			look(path)
		}
		return nil
	})
	return found
}

// gitRuleFiles are the rule files git reads outside the work tree: the
// exclude files (the repository's info/exclude, the user's global ignore
// file, the one core.excludesFile names), on which git fails when they
// are directories, and the others (attribute files, the sparse-checkout
// patterns).
func gitRuleFiles(ctx context.Context, p place.Place, getenv func(string) string) (excludes, others []string) {
	excludes = []string{filepath.Join(p.CommonDir, "info", "exclude")}
	others = []string{filepath.Join(p.CommonDir, "info", "attributes"), filepath.Join(p.GitDir, "info", "sparse-checkout")}
	if g := globalExcludes(getenv); g != "" {
		excludes = append(excludes, g)
		others = append(others, filepath.Join(filepath.Dir(g), "attributes"))
	}
	if c := configuredExcludes(ctx, p, getenv); c != "" {
		excludes = append(excludes, c)
	}
	slices.Sort(excludes)
	return slices.Compact(excludes), others
}

// isRepository reports whether dir holds a .git of its own.
func isRepository(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// oddRuleFile is what the rule file f is, followed through links, when an
// open of it could wait or read no rules from a file (a FIFO, a socket, a
// device; a directory too when dirs is set); "" for a regular file,
// nothing there (a dangling link included), or a directory git skips.
func oddRuleFile(f string, dirs bool) string {
	st, err := os.Stat(f)
	if err != nil {
		return "" // nothing there, or nothing git can reach either
	}
	m := st.Mode()
	if m.IsRegular() || (m.IsDir() && !dirs) {
		return ""
	}
	return fsread.Kind(m)
}

// ruleFileBlock is the block for the rule files named by found
// (ruleFileProblems).
func (h *hook) ruleFileBlock(found []string) Outcome {
	return h.notAFileBlock("Where git reads its ignore or attribute rules", found, "put a regular file there")
}

// notAFileBlock is the block for what is not a file at the places found,
// where git reads them (where says which): git would wait on it, so no
// gate ran; the agent's instructions say how to undo it (remedy, after
// removing it).
func (h *hook) notAFileBlock(where string, found []string, remedy string) Outcome {
	list := strings.Join(found, ", ")
	out := h.answer(runner.StatusFailed, where+" there is what is not a file: "+list+". Git would wait on it, so no gate ran.")
	out.Instructions = WorkTreeInstructions(where + ", your change put what is not a file: " + list + ". Remove it (`rm <path>`), or " + remedy + ".")
	out.configBlock = true
	return out
}

// ruleFiles is ruleFileProblems for the project of s; nil when it is in
// no git work tree.
func (h *hook) ruleFiles(ctx context.Context, s *site) []string {
	p, err := place.Locate(ctx, s.root)
	if err != nil {
		return nil
	}
	return ruleFileProblems(ctx, p, h.o.Getenv)
}
