//go:build !linux

package run

import "github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"

// oddPaths are the changed paths (files, relative to root) no gate can
// judge, each with what it is (see notFiles), in the order of files.
func oddPaths(root string, files []string) []string { return oddPathsEach(root, files) }

// oddPathsHeld is oddPaths: no memo is kept here.
func oddPathsHeld(root string, files []string, _ git.Held, _ bool) []string {
	return oddPaths(root, files)
}
