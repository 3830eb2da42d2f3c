//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package scratch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// hold locks dir's lock file for this process and returns the unlock. The
// file is locked under a temporary name and then renamed, so that a lock
// file under lockName is always locked by a live process or abandoned.
func hold(dir string) (unlock func(), err error) {
	tmp := filepath.Join(dir, lockName+".new")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, lockName)); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// removeIfAbandoned removes dir when its lock file is not locked: its
// process has ended. A directory without a lock file is not one of
// MkdirTemp's, or is still being made, and stays.
func removeIfAbandoned(dir string) (bool, error) {
	f, err := os.Open(filepath.Join(dir, lockName))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("checking %s: %w", dir, err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil // its process is running
		}
		return false, fmt.Errorf("checking %s: %w", dir, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return false, fmt.Errorf("removing the abandoned %s: %w", dir, err)
	}
	return true, nil
}
