package localize

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// fileCache keeps JSON entries on disk, one file per key, written
// atomically: concurrent writers and a killed process leave the old entry,
// the new one or none. The keys hash everything an entry depends on.
type fileCache struct {
	dir string
}

func openFileCache(dir string) (*fileCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the cache %s: %w", dir, err)
	}
	return &fileCache{dir: dir}, nil
}

func (c *fileCache) path(key string) string { return filepath.Join(c.dir, key+".json") }

// get decodes the entry under key into v; an unreadable entry is a miss.
func (c *fileCache) get(key string, v any) bool {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return false
	}
	if err := json.Unmarshal(data, v); err != nil {
		os.Remove(c.path(key))
		return false
	}
	return true
}

// put stores data (JSON) under key.
func (c *fileCache) put(key string, data []byte) error {
	tmp, err := os.CreateTemp(c.dir, "entry-*")
	if err == nil {
		_, err = tmp.Write(data)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), c.path(key))
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		return fmt.Errorf("writing the cache %s: %w", c.dir, err)
	}
	return nil
}

func jsonMarshal(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding a cache entry: %w", err)
	}
	return data, nil
}
