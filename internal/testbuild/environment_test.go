package testbuild

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// A system error, wrapped or only named in a tool's message, is the
// machine's failure; a compile error or an error of faultline's own is not.
func TestMachineFailure(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("writing forced values: %w", &fs.PathError{Op: "write", Path: "force.json", Err: syscall.ENOSPC}), true},
		{&CompileError{Package: "p", Message: "write /tmp/go-build1/b001/_pkg_.a: no space left on device"}, true},
		{&CompileError{Package: "p", Message: "./edge.go:4:9: undefined: Twice"}, false},
		{errors.New("trace names unknown site 7"), false},
	} {
		if got := MachineFailure(c.err); got != c.want {
			t.Errorf("MachineFailure(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
