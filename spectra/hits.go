package spectra

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"iter"
	"slices"

	"github.com/faultline-go/faultline/internal/packed"
)

// Hits is the set of blocks one test executed, kept packed as varint gaps
// between ascending indices (as the store keeps them): a module's matrix
// holds every test's hits for as long as an editor is open.
type Hits struct {
	set packed.Set
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
	for _, b := range s {
		h.set.Append(b)
	}
	return h
}

// hitsTable makes the Hits of a matrix's tests, exactly sized, one copy
// for all tests that executed the same blocks: in a large module many do
// (a store of expr's held 40,614 distinct sets among 132,653 tests).
type hitsTable struct {
	seed    maphash.Seed
	sets    map[uint64]Hits // by the hash of the packed set
	scratch packed.Set
}

func newHitsTable() *hitsTable {
	return &hitsTable{seed: maphash.MakeSeed(), sets: map[uint64]Hits{}}
}

// of returns the hits of the given ascending block indices (repeats and
// negative indices dropped, as NewHits drops them).
func (t *hitsTable) of(sorted []int) Hits {
	t.scratch.Reset()
	for _, b := range sorted {
		t.scratch.Append(b)
	}
	sum := maphash.Bytes(t.seed, t.scratch.Bytes())
	if h, ok := t.sets[sum]; ok && h.set.Len() == t.scratch.Len() && bytes.Equal(h.set.Bytes(), t.scratch.Bytes()) {
		return h
	}
	h := Hits{set: t.scratch.Clone()}
	if _, taken := t.sets[sum]; !taken {
		t.sets[sum] = h // a colliding set keeps its own copy
	}
	return h
}

// All yields the block indices in ascending order.
func (h Hits) All() iter.Seq[int] { return h.set.All() }

// Len is the number of blocks executed.
func (h Hits) Len() int { return h.set.Len() }

// Slice returns the block indices, ascending, in a new slice.
func (h Hits) Slice() []int {
	out := make([]int, 0, h.Len())
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
func (h Hits) GobEncode() ([]byte, error) { return slices.Clone(h.set.Bytes()), nil }

// GobDecode reads what GobEncode wrote, rejecting a damaged set rather
// than misreading it.
func (h *Hits) GobDecode(data []byte) error {
	set, err := packed.Decode(slices.Clone(data))
	if err != nil {
		return fmt.Errorf("decoding hits: %w", err)
	}
	*h = Hits{set: set}
	return nil
}
