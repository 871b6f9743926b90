package stophook

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// layoutDetail is the message's detail of a trusted configuration that a
// change of the work tree's directories keeps from loading.
const layoutDetail = "The trusted configuration loads, but not in the work tree as the change left it: " +
	"a directory it names was replaced (by a symbolic link or a file)."

// layoutBlock answers for the trusted configuration of s that does not
// load in the work tree (err): when its files load in the layout of the
// commit the trust stands on (layoutCommit: its directories, files and
// links, in a scratch directory; an empty one for a record made before
// the first commit), its text is sound and what fails is a directory it
// names (an entry point's path, a working_directory, the log directory)
// that the change, committed or not, no longer holds as a directory of its
// own. That is the change's to undo: a block naming it, once per turn as
// for a work-tree configuration the change broke (configBlock); the stop
// right after it is let go. nil when the trusted files do not load in
// that layout either (the person's configuration or commit is at fault,
// nothing the agent did: the caller's error answer).
func (h *hook) layoutBlock(ctx context.Context, s *site, err error) *Outcome {
	if s.trusted == nil || !loadsInLayout(ctx, s.root, layoutCommit(s.trust), s.trusted) {
		return nil
	}
	if h.afterConfigBlock {
		out := h.answer(runner.StatusStopHookActive, "The trusted configuration does not load in the work tree "+
			"as the change left it, and the stop right after such a block is allowed: the gates did not run.")
		return &out
	}
	out := h.answer(runner.StatusFailed, layoutDetail)
	out.Instructions = WorkTreeInstructions("The trusted configuration names directories that your change replaced " +
		"(by a symbolic link or a file), so its gates cannot run where they are meant to:\n\n" +
		config.ErrorText(err) + "\n\nPut each back as the directory it was (move the files back in place of the link " +
		"or file). The trusted configuration cannot be changed by editing .gauntlet/.")
	out.configBlock = true
	return &out
}

// layoutCommit is the commit whose layout the trusted configuration st
// stands on: the record's start point (trust.EmptyStart before the first
// commit), else the commit an adoption took it from, else HEAD. Commits
// the agent made since do not move it.
func layoutCommit(st *trust.Status) string {
	switch {
	case st == nil:
		return "HEAD"
	case st.StartPoint() != "":
		return st.StartPoint()
	case st.Commit != "":
		return st.Commit
	}
	return "HEAD"
}

// loadsInLayout reports whether the configuration files load, with every
// gate, in a scratch directory standing for the project root that holds
// the layout commit holds below root (layout): what makes them fail in
// the work tree is then the change's, never a layout the person
// committed. false when the layout cannot be read.
func loadsInLayout(ctx context.Context, root, commit string, files config.Files) bool {
	tmp, err := os.MkdirTemp("", "agent-gauntlet-layout-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(tmp)
	if err := layout(ctx, root, commit, tmp); err != nil {
		return false
	}
	p, err := config.OpenFiles(tmp, files)
	if err != nil {
		return false
	}
	_, err = p.Gates()
	return err == nil
}

// layout makes in dir the layout commit holds below root: its
// directories, an empty file for each file, and a link to nowhere for
// each link (what a configuration's paths may not pass through, whatever
// its target). Nothing for git's empty tree, or for HEAD before the first
// commit.
func layout(ctx context.Context, root, commit, dir string) error {
	if commit == trust.EmptyStart {
		return nil
	}
	if _, err := gitOut(ctx, root, "rev-parse", "-q", "--verify", commit+"^{tree}"); err != nil {
		if commit == "HEAD" {
			return nil // no commit yet: the empty layout
		}
		return err
	}
	out, err := gitOut(ctx, root, "ls-tree", "-r", "-t", "-z", commit, "--", ".")
	if err != nil {
		return err
	}
	for _, rec := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		meta, rel, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || !filepath.IsLocal(rel) {
			continue
		}
		if err := layoutEntry(filepath.Join(dir, filepath.FromSlash(rel)), f[0]); err != nil {
			return err
		}
	}
	return nil
}

// layoutEntry makes at path what a tree entry of mode stands for in a
// layout (headLayout).
func layoutEntry(path, mode string) error {
	switch mode {
	case "040000", "160000":
		return os.MkdirAll(path, 0o755)
	case "120000":
		return os.Symlink("agent-gauntlet-layout-link", path)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}
