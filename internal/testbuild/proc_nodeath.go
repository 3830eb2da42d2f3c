//go:build unix && !linux

package testbuild

import "syscall"

// dieWithParent does nothing: only Linux kills a process when its parent
// ends. Stale scratch directories are still removed at the next start.
func dieWithParent(attr *syscall.SysProcAttr) {}
