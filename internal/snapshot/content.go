package snapshot

import (
	"container/list"
	"sync"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// ContentHash is the hash of a file's content in the build layer's scheme,
// the key the engine records in Matrix.FileHashes.
type ContentHash string

// HashContent is the hash of a file's content.
func HashContent(b []byte) ContentHash { return ContentHash(testbuild.Bytes(b)) }

// ContentCache keeps recently seen file contents by hash, so the text a
// collection ran against can be recovered after the file changed on disk.
type ContentCache struct{ lru *LRU[ContentHash, []byte] }

// NewContentCache keeps up to size contents.
func NewContentCache(size int) *ContentCache { return &ContentCache{NewLRU[ContentHash, []byte](size)} }

// Put remembers text under its hash and returns the hash.
func (c *ContentCache) Put(text []byte) ContentHash {
	h := HashContent(text)
	c.lru.Put(h, text)
	return h
}

// Get returns the content of hash h, if it is still kept.
func (c *ContentCache) Get(h ContentHash) ([]byte, bool) { return c.lru.Get(h) }

// LRU is a mutex-guarded map that evicts its least recently used entry
// beyond a fixed size. Results derived from file contents are cached in one
// under content hashes, so they stay valid exactly as long as the content.
type LRU[K comparable, V any] struct {
	mu      sync.Mutex
	max     int
	order   *list.List // of K, most recent first
	entries map[K]*lruEntry[V]
}

type lruEntry[V any] struct {
	elem  *list.Element
	value V
}

// NewLRU keeps up to size entries.
func NewLRU[K comparable, V any](size int) *LRU[K, V] {
	return &LRU[K, V]{max: size, order: list.New(), entries: make(map[K]*lruEntry[V])}
}

// Put keeps v under k, evicting the least recently used entry beyond the
// size.
func (c *LRU[K, V]) Put(k K, v V) {
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

// Get returns the value under k and marks it recently used.
func (c *LRU[K, V]) Get(k K) (V, bool) {
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
