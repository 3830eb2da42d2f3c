// Package lru is a size-bounded least-recently-used cache with optional
// per-entry time to live, as used in front of a slow lookup service.
package lru

import (
	"fmt"
	"time"
)

// Clock tells the current time; tests inject a fake one.
type Clock func() time.Time

// entry is one cached value in the recency list.
type entry[K comparable, V any] struct {
	key        K
	value      V
	expires    time.Time // zero: never
	prev, next *entry[K, V]
}

// Cache maps keys to values, evicting the least recently used entry when
// full. It is not safe for concurrent use.
type Cache[K comparable, V any] struct {
	capacity int
	ttl      time.Duration
	now      Clock
	items    map[K]*entry[K, V]
	head     *entry[K, V] // most recently used
	tail     *entry[K, V] // least recently used
	onEvict  func(K, V)
	stats    Stats
}

// Stats counts cache traffic.
type Stats struct {
	Hits, Misses, Evictions, Expirations int
}

// New returns a cache holding at most capacity entries, each living for ttl
// after it was last written (0: forever).
func New[K comparable, V any](capacity int, ttl time.Duration, now Clock) (*Cache[K, V], error) {
	if capacity <= 0 {
		return nil, fmt.Errorf("lru: capacity must be positive, got %d", capacity)
	}
	if ttl < 0 {
		return nil, fmt.Errorf("lru: negative time to live %v", ttl)
	}
	if now == nil {
		now = time.Now
	}
	return &Cache[K, V]{capacity: capacity, ttl: ttl, now: now, items: make(map[K]*entry[K, V])}, nil
}

// OnEvict registers a function called with every entry dropped for lack of
// room or because it expired.
func (c *Cache[K, V]) OnEvict(f func(K, V)) { c.onEvict = f }

// Get returns the value for key and marks it most recently used.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	e, ok := c.items[key]
	if ok && c.expired(e) {
		c.remove(e)
		c.stats.Expirations++
		if c.onEvict != nil {
			c.onEvict(e.key, e.value)
		}
		ok = false
	}
	if !ok {
		c.stats.Misses++
		var zero V
		return zero, false
	}
	c.stats.Hits++
	c.moveToFront(e)
	return e.value, true
}

// Put stores value under key, evicting the least recently used entry if the
// cache is full.
func (c *Cache[K, V]) Put(key K, value V) {
	var expires time.Time
	if c.ttl > 0 {
		expires = c.now().Add(c.ttl)
	}
	if e, ok := c.items[key]; ok {
		e.value, e.expires = value, expires
		c.moveToFront(e)
		return
	}
	e := &entry[K, V]{key: key, value: value, expires: expires}
	c.items[key] = e
	c.pushFront(e)
	for len(c.items) > c.capacity {
		victim := c.tail
		c.remove(victim)
		c.stats.Evictions++
		if c.onEvict != nil {
			c.onEvict(victim.key, victim.value)
		}
	}
}

// Delete removes key and reports whether it was present.
func (c *Cache[K, V]) Delete(key K) bool {
	e, ok := c.items[key]
	if ok {
		c.remove(e)
	}
	return ok
}

// Len is the number of entries, expired ones included until they are read.
func (c *Cache[K, V]) Len() int { return len(c.items) }

// Keys lists the keys from most to least recently used.
func (c *Cache[K, V]) Keys() []K {
	keys := make([]K, 0, len(c.items))
	for e := c.head; e != nil; e = e.next {
		keys = append(keys, e.key)
	}
	return keys
}

// Stats returns the traffic counters.
func (c *Cache[K, V]) Stats() Stats { return c.stats }

// expired reports whether e's time to live is over: an entry written at t
// with ttl d is still valid strictly before t+d.
func (c *Cache[K, V]) expired(e *entry[K, V]) bool {
	if e.expires.IsZero() {
		return false
	}
	return c.now().After(e.expires)
}

func (c *Cache[K, V]) pushFront(e *entry[K, V]) {
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *Cache[K, V]) unlink(e *entry[K, V]) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

func (c *Cache[K, V]) moveToFront(e *entry[K, V]) {
	if c.head == e {
		return
	}
	c.unlink(e)
	c.pushFront(e)
}

func (c *Cache[K, V]) remove(e *entry[K, V]) {
	c.unlink(e)
	delete(c.items, e.key)
}
