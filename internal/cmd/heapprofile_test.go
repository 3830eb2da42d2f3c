package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteHeapProfile: the profile lands whole under its name, no
// temporary file left beside it; a directory that does not exist is an
// error, not a crash.
func TestWriteHeapProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap")
	if err := writeHeapProfile(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("profile: %v (%v)", fi, err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
	if err := writeHeapProfile(filepath.Join(t.TempDir(), "missing", "heap")); err == nil {
		t.Error("writing into a missing directory: no error")
	}
}
