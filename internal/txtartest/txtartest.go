// Package txtartest turns txtar archives into directories for tests: the
// project's tests are small workspaces written as txtar files beside the
// code they test.
package txtartest

import (
	"os"
	"testing"

	"golang.org/x/tools/txtar"
)

// Extract writes the files of the archive at path into a fresh temporary
// directory and returns it.
func Extract(t testing.TB, path string) string {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := txtar.FS(ar)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	return dir
}
