//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package scratch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	reapGroups(filepath.Join(dir, groupsName))
	if err := os.RemoveAll(dir); err != nil {
		return false, fmt.Errorf("removing the abandoned %s: %w", dir, err)
	}
	return true, nil
}

// reapGroups kills what is left of the process groups listed in the file
// path by a process that has died. A group is this process's while its
// leader is the recorded process (same start time) or, once the leader is
// gone, while any member is left: the system does not give a new process a
// pid still in use as a process group id.
func reapGroups(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		id, start, _ := strings.Cut(line, " ")
		pgid, err := strconv.Atoi(id)
		if err != nil || pgid <= 1 {
			continue
		}
		if syscall.Kill(-pgid, 0) != nil {
			continue // the group is gone
		}
		leaderGone := errors.Is(syscall.Kill(pgid, 0), syscall.ESRCH)
		if leaderGone || (start != "" && StartTime(pgid) == start) {
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
}
