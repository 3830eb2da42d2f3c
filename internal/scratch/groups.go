package scratch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// groupsName is the file in a scratch directory listing the process groups
// its process started, one "pgid start-time" a line.
const groupsName = ".groups"

// NoteGroup records, in the scratch directory that holds path (one
// MkdirTemp made, in the system's temporary directory), a process group
// this process started, led by the process pgid, so that the faultline that
// removes the directory once this process has died can stop what is left
// of the group. Outside such a directory it records nothing.
func NoteGroup(path string, pgid int) error {
	rel, err := filepath.Rel(os.TempDir(), path)
	if err != nil {
		return nil
	}
	top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if !strings.HasPrefix(top, Prefix) {
		return nil
	}
	dir := filepath.Join(os.TempDir(), top)
	if _, err := os.Stat(filepath.Join(dir, lockName)); err != nil {
		return nil // not locked: nobody will reap from it
	}
	f, err := os.OpenFile(filepath.Join(dir, groupsName), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("recording process group %d: %w", pgid, err)
	}
	_, err = fmt.Fprintf(f, "%d %s\n", pgid, StartTime(pgid))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording process group %d: %w", pgid, err)
	}
	return nil
}
