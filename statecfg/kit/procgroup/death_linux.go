//go:build linux

package procgroup

import "syscall"

// setDeathSignal has the child killed when the thread that started it
// exits: the gauntlet's process, whose threads live as long as it does.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
