//go:build unix

package testbuild

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts a test process in a process group of its own, so that
// killing it also kills whatever it started, and ties it to faultline's life
// where the system can (DieWithParent).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// killGroupOnCancel puts a go command in a process group of its own and
// has its context's cancellation kill the group, whatever it started
// included.
func killGroupOnCancel(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error {
		killGroup(cmd)
		return nil
	}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// DieWithParent has the system kill cmd's process when the thread that
// starts it ends (Linux; elsewhere nothing): a process faultline starts
// must not outlive a faultline killed with SIGKILL. The caller keeps the
// starting goroutine locked to its thread (runtime.LockOSThread) until the
// process has ended, since the runtime ends a thread only when a goroutine
// locked to it exits.
func DieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	dieWithParent(cmd.SysProcAttr)
}
