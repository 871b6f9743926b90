//go:build !unix

package baseline

// processGone cannot tell here: every process is taken to be alive, so a
// worktree left by a crash stays until removed by hand
// (git worktree remove --force --force <path>).
func processGone(int) bool { return false }
