package trust

import (
	"os"

	"golang.org/x/sys/windows"
)

// lock takes an exclusive lock on the file at path, waiting for other
// holders; the system releases it when the process ends.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	var whole windows.Overlapped
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &whole); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		windows.UnlockFileEx(h, 0, 1, 0, &whole)
		f.Close()
	}, nil
}
