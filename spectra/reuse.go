package spectra

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"sync"

	"github.com/faultline-go/faultline/internal/filecache"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/testbuild/pertest"
	"github.com/faultline-go/faultline/spectra/edges"
	"github.com/faultline-go/faultline/spectra/instrument"
)

// reuseCache keeps what the coverage pass made of each file under the
// file's fingerprint (testbuild.Fingerprint) and the pass's options, and
// what the edge pass made of that source. A file edited only in its
// comments then gets the instrumented source of its previous version,
// whose tokens and positions it shares, so the go command finds the
// compiled package in its cache instead of compiling it again.
// Entries are the file cache's, of kind "instrumented".
//
// Entries are written in the background (one writer, in order), so that
// instrumenting a module for the first time does not wait for the file
// system; wait waits for them.
type reuseCache struct {
	files   *filecache.Cache
	writes  chan reuseWrite
	written sync.WaitGroup
}

// reuseWrite is an entry on its way to the file cache.
type reuseWrite struct {
	key  string
	data []byte
}

// newReuseCache returns the reuse cache over files; the caller waits for
// its writes (wait) before it ends.
func newReuseCache(files *filecache.Cache) *reuseCache {
	c := &reuseCache{files: files, writes: make(chan reuseWrite, 64)}
	c.written.Add(1)
	go func() {
		defer c.written.Done()
		for w := range c.writes {
			c.files.Set(reuseKind, w.key, w.data) // failing to costs only time
		}
	}()
	return c
}

// wait waits for the entries stored so far to be written; the cache takes
// no more.
func (c *reuseCache) wait() {
	if c == nil {
		return
	}
	close(c.writes)
	c.written.Wait()
}

// reused is one cache entry: the source the edits apply to and the pass's
// result.
type reused struct {
	Source []byte
	Result instrument.Result
}

// reuseKind is the file cache's kind of reuse entries.
const reuseKind = "instrumented"

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
	key := reuseKey(file, src, opts)
	var r reused
	if c.load(key, &r) {
		return r.Source, &r.Result, nil
	}
	res, err := instrument.File(file, src, opts)
	if err != nil {
		return nil, nil, err
	}
	c.store(key, reused{Source: src, Result: *res})
	return src, res, nil
}

// edges runs the edge pass on src (the source instrument returned), or
// takes its result for the same bytes and options.
func (c *reuseCache) edges(file string, src []byte, opts edges.Options) (*edges.Result, error) {
	if c == nil {
		return edges.File(file, src, opts)
	}
	key := testbuild.Bytes([]byte(fmt.Sprintf("%s %s\x00%s\x00%+v", edges.Version, file, testbuild.Bytes(src), opts)))
	var res edges.Result
	if c.load(key, &res) {
		return &res, nil
	}
	fresh, err := edges.File(file, src, opts)
	if err != nil {
		return nil, err
	}
	c.store(key, fresh)
	return fresh, nil
}

// load reads the entry under key into v.
func (c *reuseCache) load(key string, v any) bool {
	data, ok := c.files.Get(reuseKind, key)
	return ok && gob.NewDecoder(bytes.NewReader(data)).Decode(v) == nil
}

// store keeps v under key, written in the background; failing to costs
// only time.
func (c *reuseCache) store(key string, v any) {
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(v) == nil {
		c.writes <- reuseWrite{key: key, data: buf.Bytes()}
	}
}
