//go:build windows

package config

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// groupAttr starts git in a new process group (Windows has no
// process-group signals: killGroup kills the process tree instead).
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills p and the processes it started that still run
// (taskkill /T walks the tree from p), then p itself in case taskkill is
// unavailable.
func killGroup(p *os.Process) error {
	_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(p.Pid)).Run()
	return p.Kill()
}
