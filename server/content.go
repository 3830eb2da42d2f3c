package server

import (
	"container/list"
	"sync"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// contentHash is the hash of a file's content in the build layer's scheme,
// the key the engine records in Matrix.FileHashes.
type contentHash string

func hashContent(b []byte) contentHash { return contentHash(testbuild.Bytes(b)) }

// contentCache keeps recently seen file contents by hash, so the text a
// collection ran against can be recovered after the file changed on disk.
type contentCache struct{ lru *lru[contentHash, []byte] }

func newContentCache(size int) *contentCache { return &contentCache{newLRU[contentHash, []byte](size)} }

// put remembers text under its hash and returns the hash.
func (c *contentCache) put(text []byte) contentHash {
	h := hashContent(text)
	c.lru.put(h, text)
	return h
}

func (c *contentCache) get(h contentHash) ([]byte, bool) { return c.lru.get(h) }

// lru is a mutex-guarded map that evicts its least recently used entry
// beyond a fixed size. Results derived from file contents are cached in one
// under content hashes, so they stay valid exactly as long as the content.
type lru[K comparable, V any] struct {
	mu      sync.Mutex
	max     int
	order   *list.List // of K, most recent first
	entries map[K]*lruEntry[V]
}

type lruEntry[V any] struct {
	elem  *list.Element
	value V
}

func newLRU[K comparable, V any](size int) *lru[K, V] {
	return &lru[K, V]{max: size, order: list.New(), entries: make(map[K]*lruEntry[V])}
}

func (c *lru[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[k]; ok {
		e.value = v
		c.order.MoveToFront(e.elem)
		return
	}
	c.entries[k] = &lruEntry[V]{elem: c.order.PushFront(k), value: v}
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(K))
	}
}

func (c *lru[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e.elem)
	return e.value, true
}
