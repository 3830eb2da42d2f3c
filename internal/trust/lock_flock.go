//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package trust

import (
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive advisory lock on the file at path, waiting for
// other holders; the lock goes with the process, so a crashed writer never
// leaves the list locked.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
