//go:build unix && !linux

package procgroup

import "syscall"

// setDeathSignal does nothing where the system has no parent-death signal.
func setDeathSignal(*syscall.SysProcAttr) {}
