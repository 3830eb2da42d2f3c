package localize

import (
	"encoding/json"
	"fmt"

	"github.com/faultline-go/faultline/internal/filecache"
)

// fileCache keeps JSON entries of one kind in the module's file cache
// (written atomically: concurrent writers and a killed process leave the
// old entry, the new one or none). The keys hash everything an entry
// depends on.
type fileCache struct {
	files *filecache.Cache
	kind  string
}

// get decodes the entry under key into v; an unreadable entry is a miss.
func (c *fileCache) get(key string, v any) bool {
	data, ok := c.files.Get(c.kind, key)
	return ok && json.Unmarshal(data, v) == nil
}

// put stores data (JSON) under key.
func (c *fileCache) put(key string, data []byte) error {
	return c.files.Set(c.kind, key, data)
}

func jsonMarshal(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding a cache entry: %w", err)
	}
	return data, nil
}
