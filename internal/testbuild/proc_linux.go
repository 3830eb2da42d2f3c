package testbuild

import "syscall"

// dieWithParent sets the signal the process gets when the thread that
// started it ends.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
