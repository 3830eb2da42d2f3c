package regress

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxTreeBytes bounds the module copy a run at an older commit needs: a
// module larger than this runs in the working tree, with a note.
const maxTreeBytes = 1 << 30

// errTreeTooLarge says the module is over maxTreeBytes.
var errTreeTooLarge = fmt.Errorf("the module holds more than %d MB", maxTreeBytes>>20)

// readAtRunTime reports whether the replacements hold a file that only
// the running test can read (a golden file, a test case list): neither Go
// source nor go.mod or go.sum, which the build reads through the overlay.
func readAtRunTime(files map[string]replacement) bool {
	for p := range files {
		if !readByBuild(p) {
			return true
		}
	}
	return false
}

// readByBuild reports whether the build reads the file at path p: Go
// source, go.mod, go.sum and the workspace files.
func readByBuild(p string) bool {
	base := filepath.Base(p)
	return strings.HasSuffix(base, ".go") || base == "go.mod" || base == "go.sum" || base == "go.work" || base == "go.work.sum"
}

// withoutRunTimeFiles returns the replacements that the build reads
// (Go source, go.mod, go.sum), leaving the other files as in the working
// tree.
func withoutRunTimeFiles(files map[string]replacement) map[string]replacement {
	out := make(map[string]replacement, len(files))
	for p, r := range files {
		if readByBuild(p) {
			out[p] = r
		}
	}
	return out
}

// copyTree writes a copy of the module at root into dst with the
// replacements (absolute paths under root) applied, for a test that
// reads files at run time: an overlay reaches only the build. Version
// control directories are left out, symbolic links copied as links.
func copyTree(root, dst string, files map[string]replacement) error {
	var total int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.Name() == ".git" && rel != "." {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case !d.Type().IsRegular():
			return nil
		}
		if _, ok := files[p]; ok {
			return nil // written below
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if total += info.Size(); total > maxTreeBytes {
			return errTreeTooLarge
		}
		return copyFile(p, to, info.Mode().Perm())
	})
	if err != nil {
		return fmt.Errorf("copying the module to run the test at an older commit: %w", err)
	}
	for p, rep := range files {
		if !rep.present {
			continue
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("writing %s at an older commit: %w", rel, err)
		}
		if err := os.WriteFile(to, []byte(rep.data), 0o644); err != nil {
			return fmt.Errorf("writing %s at an older commit: %w", rel, err)
		}
	}
	return nil
}

// copyFile copies one regular file to a new file.
func copyFile(from, to string, perm fs.FileMode) (err error) {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = io.Copy(out, in)
	return err
}
