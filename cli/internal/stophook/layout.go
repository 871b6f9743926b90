package stophook

import (
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// layoutDetail is the message's detail of a trusted configuration that a
// change of the work tree's directories keeps from loading.
const layoutDetail = "The trusted configuration loads, but not in the work tree as the change left it: " +
	"a directory it names was replaced (by a symbolic link or a file)."

// layoutBlock answers for the trusted configuration of s that does not
// load in the work tree (err): when its files load where no work tree is
// (an empty directory), its text is sound and what fails is a directory
// it names (an entry point's path, a working_directory) that the work
// tree no longer holds as a directory of its own. That is the change's to
// undo: a block naming it, once per turn as for a work-tree configuration
// the change broke (configBlock); the stop right after it is let go. nil
// when the trusted files do not load without the work tree either (the
// person's configuration is at fault: the caller's error answer).
func (h *hook) layoutBlock(s *site, err error) *Outcome {
	if s.trusted == nil || !loadsWithoutWorkTree(s.trusted) {
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

// loadsWithoutWorkTree reports whether the configuration files load, with
// every gate, in an empty directory standing for the project root: no
// path of a work tree can then fail them.
func loadsWithoutWorkTree(files config.Files) bool {
	tmp, err := os.MkdirTemp("", "agent-gauntlet-layout-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(tmp)
	p, err := config.OpenFiles(tmp, files)
	if err != nil {
		return false
	}
	_, err = p.Gates()
	return err == nil
}
