//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package trust

import (
	"errors"
	"runtime"
)

// lock fails where the system offers no file lock: an unlocked update
// could drop another process's entry, so the list stays read-only here.
func lock(path string) (unlock func(), err error) {
	return nil, errors.New("file locks are not supported on " + runtime.GOOS + ": edit the list by hand")
}
