package spectra

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
)

// Hits is the set of blocks one test executed, kept packed as varint gaps
// between ascending indices (as the store keeps them): a module's matrix
// holds every test's hits for as long as an editor is open, and most gaps
// fit a byte where an int takes eight.
type Hits struct {
	packed []byte
	n      int
}

// NewHits returns the set of the given block indices, in any order,
// repeats and negative indices dropped.
func NewHits(blocks ...int) Hits {
	s := blocks
	if !slices.IsSorted(s) {
		// Sorted is the common case (the store keeps hits ascending):
		// only other input pays for a copy.
		s = slices.Clone(blocks)
		slices.Sort(s)
	}
	var h Hits
	prev := -1
	for _, b := range s {
		if b < 0 || b == prev {
			continue
		}
		h.packed = binary.AppendUvarint(h.packed, uint64(b-prev))
		prev = b
		h.n++
	}
	return h
}

// All yields the block indices in ascending order.
func (h Hits) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		prev, p := -1, h.packed
		for len(p) > 0 {
			gap, k := binary.Uvarint(p)
			if k <= 0 {
				return // cannot happen: only NewHits packs
			}
			p = p[k:]
			prev += int(gap)
			if !yield(prev) {
				return
			}
		}
	}
}

// Len is the number of blocks executed.
func (h Hits) Len() int { return h.n }

// Slice returns the block indices, ascending, in a new slice.
func (h Hits) Slice() []int {
	out := make([]int, 0, h.n)
	for b := range h.All() {
		out = append(out, b)
	}
	return out
}

// Contains reports whether block b was executed.
func (h Hits) Contains(b int) bool {
	for x := range h.All() {
		if x >= b {
			return x == b
		}
	}
	return false
}

// MarshalJSON writes the hits as a JSON array of block indices.
func (h Hits) MarshalJSON() ([]byte, error) { return json.Marshal(h.Slice()) }

// UnmarshalJSON reads a JSON array of block indices.
func (h *Hits) UnmarshalJSON(data []byte) error {
	var blocks []int
	if err := json.Unmarshal(data, &blocks); err != nil {
		return err
	}
	*h = NewHits(blocks...)
	return nil
}

// String formats the hits as their block indices.
func (h Hits) String() string { return fmt.Sprint(h.Slice()) }

// GobEncode writes the packed set (the store's records embed TestRun).
func (h Hits) GobEncode() ([]byte, error) { return slices.Clone(h.packed), nil }

// GobDecode reads what GobEncode wrote, rejecting a damaged set rather
// than misreading it.
func (h *Hits) GobDecode(data []byte) error {
	n, p := 0, data
	for len(p) > 0 {
		gap, k := binary.Uvarint(p)
		if k <= 0 || gap == 0 {
			return fmt.Errorf("decoding hits: damaged at byte %d", len(data)-len(p))
		}
		p = p[k:]
		n++
	}
	*h = Hits{packed: slices.Clone(data), n: n}
	return nil
}
