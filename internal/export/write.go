package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes the file through write, completely or not at all: the
// content goes to a temporary file beside path, which replaces path only
// once write and the close succeeded. A reader never sees a partial file.
func WriteFile(path string, write func(io.Writer) error) error {
	return WriteFiles(filepath.Dir(path), map[string]func(io.Writer) error{filepath.Base(path): write})
}

// WriteFiles writes several files into dir (created if missing), each
// completely or not at all: every file is written to a temporary name
// first, and the files replace their targets only once all were written.
func WriteFiles(dir string, files map[string]func(io.Writer) error) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	temps := map[string]string{}
	defer func() {
		for _, tmp := range temps {
			os.Remove(tmp) // gone already once renamed
		}
	}()
	for name, write := range files {
		tmp, err := writeTemp(dir, name, write)
		if err != nil {
			return err
		}
		temps[name] = tmp
	}
	for name, tmp := range temps {
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("writing %s: %w", filepath.Join(dir, name), err)
		}
	}
	return nil
}

func writeTemp(dir, name string, write func(io.Writer) error) (string, error) {
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", filepath.Join(dir, name), err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	// Files are created 0600; the exports are meant to be read by others.
	err = errors.Join(err, f.Chmod(0o644), f.Close())
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing %s: %w", filepath.Join(dir, name), err)
	}
	return f.Name(), nil
}

// CheckWritable reports, before any work is done, whether files can be
// written into dir. With create, a missing dir is fine when the nearest
// directory above it that exists can be written (WriteFiles makes it);
// nothing is created here.
func CheckWritable(dir string, create bool) error {
	probe := dir
	for create {
		if _, err := os.Lstat(probe); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			break
		}
		probe = parent
	}
	info, err := os.Stat(probe)
	if err != nil {
		return fmt.Errorf("cannot write to %s: %w", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("cannot write to %s: %s is not a directory", dir, probe)
	}
	f, err := os.CreateTemp(probe, ".faultline-check*")
	if err != nil {
		return fmt.Errorf("cannot write to %s: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
