// Package packed owns sets of non-negative integers packed as varint gaps
// between ascending members: the per-test sets of counters and blocks that
// collection and the spectra hold for every test of a module, where most
// gaps fit a byte and an int takes eight.
package packed

import (
	"encoding/binary"
	"fmt"
	"iter"
	"slices"
)

// Set is a set of non-negative integers, built in ascending order.
type Set struct {
	bytes []byte
	last  int // the largest member; 0 while n is 0, so that equal sets are equal values
	n     int
}

// Append adds x, which must be above every member: a smaller or repeated x
// is dropped, as is a negative one.
func (s *Set) Append(x int) {
	if x < 0 || s.n > 0 && x <= s.last {
		return
	}
	prev := -1
	if s.n > 0 {
		prev = s.last
	}
	s.bytes = binary.AppendUvarint(s.bytes, uint64(x-prev))
	s.last = x
	s.n++
}

// All yields the members in ascending order.
func (s Set) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		prev, p := -1, s.bytes
		for len(p) > 0 {
			gap, k := binary.Uvarint(p)
			if k <= 0 {
				return // cannot happen: Append and Decode check every gap
			}
			p = p[k:]
			prev += int(gap)
			if !yield(prev) {
				return
			}
		}
	}
}

// Len is the number of members.
func (s Set) Len() int { return s.n }

// Grow makes room for n more bytes, about n more members whose gaps are
// under 128, so that a set built to a known size is allocated once.
func (s *Set) Grow(n int) { s.bytes = slices.Grow(s.bytes, n) }

// Bytes is the packed form, which Decode reads back; it shares the set's
// storage.
func (s Set) Bytes() []byte { return s.bytes }

// Decode reads a set from its packed form, rejecting damaged data rather
// than misreading it. The set keeps data.
func Decode(data []byte) (Set, error) {
	s := Set{bytes: data}
	prev, p := -1, data
	for len(p) > 0 {
		gap, k := binary.Uvarint(p)
		if k <= 0 || gap == 0 {
			return Set{}, fmt.Errorf("damaged packed set at byte %d", len(data)-len(p))
		}
		p = p[k:]
		prev += int(gap)
		s.n++
	}
	if s.n > 0 {
		s.last = prev
	}
	return s, nil
}

// Reset empties s, keeping its storage for the next set built in it.
func (s *Set) Reset() { s.bytes, s.last, s.n = s.bytes[:0], 0, 0 }

// Clone returns s with storage of its own, exactly sized: a set built by
// Append holds up to twice its size.
func (s Set) Clone() Set {
	if len(s.bytes) == 0 {
		s.bytes = nil // as a set never appended to
		return s
	}
	s.bytes = append(make([]byte, 0, len(s.bytes)), s.bytes...)
	return s
}
