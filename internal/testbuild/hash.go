package testbuild

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Hasher hashes file contents (SHA-256, hex): the one hashing scheme behind
// every key faultline computes. Hashes persist across processes in an index
// under the module's cache directory, each recorded with the file's stamp,
// so that a file whose stamp is unchanged is not read again.
type Hasher struct {
	path string

	mu      sync.Mutex
	loaded  bool
	entries map[string]hashEntry // absolute path -> last known hash
	used    int                  // entries looked up or added by this process
	dirty   bool
}

type hashEntry struct {
	Stamp stamp
	Sum   string
	used  bool
}

// hashIndexFormat changes when the index's encoding does.
const hashIndexFormat = "faultline-filehashes-1"

func openHasher(path string) *Hasher {
	return &Hasher{path: path, entries: map[string]hashEntry{}}
}

// NewHasher returns a hasher that keeps nothing on disk.
func NewHasher() *Hasher { return &Hasher{loaded: true, entries: map[string]hashEntry{}} }

func (h *Hasher) load() {
	if h.loaded {
		return
	}
	h.loaded = true
	data, err := os.ReadFile(h.path)
	if err != nil {
		return
	}
	var index struct {
		Format  string
		Entries map[string]hashEntry
	}
	// A damaged index is only a slower start: everything is hashed again.
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&index) == nil && index.Format == hashIndexFormat && index.Entries != nil {
		h.entries = index.Entries
	}
}

// File returns the hash of a file's content.
func (h *Hasher) File(path string) (string, error) {
	st, err := statStamp(path)
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	h.mu.Lock()
	h.load()
	e, ok := h.entries[path]
	if ok && e.Stamp == st {
		if !e.used {
			e.used = true
			h.entries[path] = e
			h.used++
		}
		h.mu.Unlock()
		return e.Sum, nil
	}
	h.mu.Unlock()
	sum, err := hashContent(path)
	if err != nil {
		return "", err
	}
	// Recorded only when the stamp can be trusted and did not change while
	// the file was read.
	if st.trusted(time.Now()) {
		if after, err := statStamp(path); err == nil && after == st {
			h.mu.Lock()
			if prev, ok := h.entries[path]; !ok || !prev.used {
				h.used++
			}
			h.entries[path] = hashEntry{Stamp: st, Sum: sum, used: true}
			h.dirty = true
			h.mu.Unlock()
		}
	}
	return sum, nil
}

func hashContent(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	defer f.Close()
	d := sha256.New()
	if _, err := io.Copy(d, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	return hex.EncodeToString(d.Sum(nil)), nil
}

// Bytes hashes data in the same scheme as File.
func Bytes(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Tree hashes every file under dir (a package's testdata), or returns ""
// when there is none.
func (h *Hasher) Tree(dir string) string {
	d := sha256.New()
	found := false
	filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		if sum, err := h.File(path); err == nil {
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

// Save writes the index when this process learned new hashes. Entries this
// process never used are dropped once they outnumber the used ones
// several times over, so that files long deleted do not accumulate.
func (h *Hasher) Save() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.dirty || h.path == "" {
		return nil
	}
	entries := h.entries
	if len(entries) > 4*h.used+1000 {
		entries = map[string]hashEntry{}
		for p, e := range h.entries {
			if e.used {
				entries[p] = e
			}
		}
	}
	var buf bytes.Buffer
	index := struct {
		Format  string
		Entries map[string]hashEntry
	}{hashIndexFormat, entries}
	if err := gob.NewEncoder(&buf).Encode(index); err != nil {
		return fmt.Errorf("encoding the file hash index: %w", err)
	}
	if err := writeFileAtomic(h.path, buf.Bytes()); err != nil {
		return fmt.Errorf("writing the file hash index: %w", err)
	}
	h.dirty = false
	return nil
}

// writeFileAtomic writes a file through a temporary file and a rename, so
// that a reader sees the old content or the new, never part of it.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil && cerr == nil {
		if werr = os.Chmod(tmp.Name(), 0o644); werr == nil {
			werr = os.Rename(tmp.Name(), path)
		}
	}
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}
