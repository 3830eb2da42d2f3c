//go:build !unix

package testbuild

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

// killGroupOnCancel leaves the default: the command alone is killed.
func killGroupOnCancel(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// DieWithParent does nothing here: the system cannot tie a process's life
// to its parent's.
func DieWithParent(cmd *exec.Cmd) {}
