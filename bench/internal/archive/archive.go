// Package archive unpacks the benchmarks' txtar module archives.
package archive

import (
	"fmt"
	"os"

	"golang.org/x/tools/txtar"
)

// Extract writes the files of the txtar archive at path into dir.
func Extract(path, dir string) error {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	fsys, err := txtar.FS(ar)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if err := os.CopyFS(dir, fsys); err != nil {
		return fmt.Errorf("extracting %s: %w", path, err)
	}
	return nil
}
