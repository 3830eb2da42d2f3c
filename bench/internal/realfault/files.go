package realfault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ShowFunc reads a file as it is at a commit; ok is false when the
// commit has no such file.
type ShowFunc func(ctx context.Context, commit, path string) (data []byte, ok bool, err error)

// WriteFilesAt writes files (slash paths relative to dir) as they are at
// commit over dir, removing those commit lacks: a fault's faulty version
// from its fixed one, or a fix's tests put into an older tree.
func WriteFilesAt(ctx context.Context, show ShowFunc, dir, commit string, files []string) error {
	for _, f := range files {
		dst := filepath.Join(dir, filepath.FromSlash(f))
		data, ok, err := show(ctx, commit, f)
		if err != nil {
			return err
		}
		if !ok {
			if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// FirstLine is the first line of a message, at most 300 bytes of it.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}
