//go:build !linux

package run

// oddPaths are the changed paths (files, relative to root) no gate can
// judge, each with what it is (see notFiles), in the order of files.
func oddPaths(root string, files []string) []string { return oddPathsEach(root, files) }
