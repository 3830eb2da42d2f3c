//go:build unix

package testbuild

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts a test process in a process group of its own, so that
// killing it also kills whatever it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
