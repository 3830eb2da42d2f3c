// Package scratch makes faultline's temporary directories so that a later
// run can tell those of a process that ended without removing them (killed
// with SIGKILL, say) and remove them, while the directories of a run still
// going are left alone.
//
// Each directory holds a lock file that its process keeps locked (flock)
// until it removes the directory; the system releases the lock when the
// process ends, however it ends.
package scratch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Prefix begins the name of every directory this package makes.
const Prefix = "faultline-"

// lockName is the lock file inside a directory; it appears under this name
// only once locked.
const lockName = ".owner"

// MkdirTemp creates a new directory in the system's temporary directory,
// named Prefix+pattern as os.MkdirTemp names it, held by this process until
// remove, which removes it, is called.
func MkdirTemp(pattern string) (dir string, remove func() error, err error) {
	dir, err = os.MkdirTemp("", Prefix+pattern)
	if err != nil {
		return "", nil, fmt.Errorf("creating scratch directory: %w", err)
	}
	unlock, err := hold(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("creating scratch directory: %w", err)
	}
	return dir, func() error {
		err := os.RemoveAll(dir)
		unlock()
		return err
	}, nil
}

// RemoveStale removes the directories MkdirTemp made in the system's
// temporary directory whose process has ended, and returns them.
func RemoveStale() ([]string, error) {
	return removeStale(os.TempDir())
}

func removeStale(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), Prefix) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		ok, err := removeIfAbandoned(dir)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			removed = append(removed, dir)
		}
	}
	return removed, errors.Join(errs...)
}
