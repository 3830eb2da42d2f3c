package spectra

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"faultline/internal/testbuild"
	"faultline/internal/testbuild/pertest"
	"faultline/spectra/instrument"
)

// reuseCache keeps what the coverage pass made of each file under the
// file's fingerprint (testbuild.Fingerprint) and the pass's options. A file
// edited only in its comments then gets the instrumented source of its
// previous version, whose tokens and positions it shares, so the go
// command finds the compiled package in its cache instead of compiling it
// again.
type reuseCache struct{ dir string }

// reused is one cache entry: the source the edits apply to and the pass's
// result.
type reused struct {
	Source []byte
	Result instrument.Result
}

// reuseLifetime is how long an entry no collection used is kept.
const reuseLifetime = 14 * 24 * time.Hour

func openReuseCache(dir string) *reuseCache {
	if os.MkdirAll(dir, 0o755) != nil {
		return nil
	}
	testbuild.PruneOld(dir, reuseLifetime)
	return &reuseCache{dir: dir}
}

func reuseKey(file string, src []byte, opts instrument.FileOptions) string {
	return testbuild.Bytes([]byte(fmt.Sprintf("%s %s %s\x00%s\x00%+v", instrument.Version, pertest.Version, file, testbuild.Fingerprint(src), opts)))
}

// instrument runs the coverage pass on a file, or takes its result for an
// earlier version of the file that compiles to the same code. It returns
// the source the result's edits apply to.
func (c *reuseCache) instrument(file string, src []byte, opts instrument.FileOptions) ([]byte, *instrument.Result, error) {
	if c == nil {
		res, err := instrument.File(file, src, opts)
		return src, res, err
	}
	path := filepath.Join(c.dir, reuseKey(file, src, opts)[:32])
	if data, err := os.ReadFile(path); err == nil {
		var r reused
		if gob.NewDecoder(bytes.NewReader(data)).Decode(&r) == nil {
			now := time.Now()
			os.Chtimes(path, now, now)
			return r.Source, &r.Result, nil
		}
	}
	res, err := instrument.File(file, src, opts)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(reused{Source: src, Result: *res}) == nil {
		os.WriteFile(path, buf.Bytes(), 0o644) // a cache: failing to keep it costs only time
	}
	return src, res, nil
}
