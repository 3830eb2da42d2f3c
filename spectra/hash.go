package spectra

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// fileHasher hashes file contents, each file once per collection.
type fileHasher struct{ cache map[string]string }

func newFileHasher() *fileHasher { return &fileHasher{cache: map[string]string{}} }

func (h *fileHasher) file(path string) (string, error) {
	if sum, ok := h.cache[path]; ok {
		return sum, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	d := sha256.New()
	if _, err := io.Copy(d, f); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(d.Sum(nil))
	h.cache[path] = sum
	return sum, nil
}

// tree hashes every file under dir (a package's testdata), or "" when
// there is none.
func (h *fileHasher) tree(dir string) string {
	d := sha256.New()
	found := false
	filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		if sum, err := h.file(path); err == nil {
			rel, _ := filepath.Rel(dir, path)
			io.WriteString(d, rel+"\x00"+sum+"\x00")
			found = true
		}
		return nil
	})
	if !found {
		return ""
	}
	return hex.EncodeToString(d.Sum(nil))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
