package z3

import (
	"errors"
	"runtime"
)

// ErrUnavailable is matched (errors.Is) by the errors of Available and
// NewContext when this faultline cannot use Z3 at all: no library, a
// library too old, or a build without cgo.
var ErrUnavailable = errors.New("z3: the Z3 library is unavailable")

// unavailableError says, for a person, what is missing and how to install
// it.
type unavailableError struct{ msg string }

func (e *unavailableError) Error() string        { return e.msg }
func (e *unavailableError) Is(target error) bool { return target == ErrUnavailable }

// installCommand says how to install the Z3 runtime library on this
// system.
func installCommand() string {
	const debian = `"sudo apt-get install libz3-4" (Debian, Ubuntu)`
	const brew = `"brew install z3" (macOS)`
	switch runtime.GOOS {
	case "linux":
		return debian
	case "darwin":
		return brew
	}
	return debian + " or " + brew
}
