package testbuild

import (
	"errors"
	"strings"
	"syscall"
)

// machineErrnos are the system errors that say the machine, not the code,
// failed a build or a run. The go command reports them only as text (a
// build on a full disk is a failed build whose message ends in "no space
// left on device"), so their messages are sought in messages too.
var machineErrnos = []syscall.Errno{
	syscall.ENOSPC, syscall.EIO, syscall.EROFS, syscall.ENOMEM, syscall.EMFILE,
	syscall.ENFILE, syscall.EDQUOT, syscall.EAGAIN, syscall.EACCES, syscall.EPERM,
}

// MachineFailure reports whether err is a failure of the machine's rather
// than the code's: it carries a system error, or its message names one of
// machineErrnos. A result that ended so must not be cached as what the
// code does.
func MachineFailure(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) || MachineMessage(err.Error())
}

// MachineMessage reports whether a tool's message (a compiler's, say)
// names a failure of the machine's: a full disk, an I/O error.
func MachineMessage(msg string) bool {
	for _, e := range machineErrnos {
		if strings.Contains(msg, e.Error()) {
			return true
		}
	}
	return false
}
