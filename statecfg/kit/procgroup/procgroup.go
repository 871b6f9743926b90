// Package procgroup starts a child process in a process group of its own
// and kills that whole group, so that nothing a child started outlives
// it: the one place for what differs between Unix (process groups and
// their signals) and Windows (a new process group, and taskkill of the
// process tree).
package procgroup

import "os/exec"

// Set makes cmd start in a process group of its own and, when its context
// ends, kill that whole group (exec.Cmd.Cancel).
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = Attr()
	cmd.Cancel = func() error { return Kill(cmd.Process) }
}
