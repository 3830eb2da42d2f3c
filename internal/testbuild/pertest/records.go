package pertest

import (
	"encoding/binary"
	"fmt"
	"iter"
	"math/bits"
	"slices"
	"time"

	"github.com/faultline-go/faultline/internal/packed"
)

// counterSet is a set of counter indices.
type counterSet []uint64

// add adds c and reports whether it was not there yet.
func (s *counterSet) add(c int) bool {
	if c < 0 {
		return false
	}
	w := c / 64
	if w >= len(*s) {
		*s = append(*s, make([]uint64, w+1-len(*s))...)
	}
	bit := uint64(1) << (c % 64)
	if (*s)[w]&bit != 0 {
		return false
	}
	(*s)[w] |= bit
	return true
}

// appendTo appends the members, ascending.
func (s counterSet) appendTo(out []int) []int {
	for w, word := range s {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			out = append(out, w*64+b)
			word &^= 1 << b
		}
	}
	return out
}

// Counters is a set of counter indices (or their numbers in
// RunOptions.Renumber), packed as ascending uvarint gaps from -1: the leaf
// tests a process has finished and not handed on yet are held, tens of
// thousands of them in a large package when one early leaf failed.
type Counters struct {
	set packed.Set
}

// packUnion packs the union of an ascending list and a set, each member
// renumbered through renumber when it is set (RunOptions.Renumber).
func packUnion(list []int, set counterSet, renumber []int32) Counters {
	var c Counters
	members := len(list)
	for _, word := range set {
		members += bits.OnesCount64(word)
	}
	c.set.Grow(members) // a byte a member while the gaps are under 128
	add := func(x int) {
		if renumber != nil {
			if x >= len(renumber) || renumber[x] < 0 {
				return
			}
			x = int(renumber[x])
		}
		c.set.Append(x) // a repeat is dropped
	}
	i := 0
	for w, word := range set {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			x := w*64 + b
			for ; i < len(list) && list[i] < x; i++ {
				add(list[i])
			}
			add(x)
		}
	}
	for ; i < len(list); i++ {
		add(list[i])
	}
	return c
}

// All yields the counter indices in ascending order.
func (c Counters) All() iter.Seq[int] { return c.set.All() }

// Len is the number of counters in the set.
func (c Counters) Len() int { return c.set.Len() }

// Bytes is the packed set: uvarints of the gaps between members, the first
// from -1. It is the caller's once the leaf is taken.
func (c Counters) Bytes() []byte { return c.set.Bytes() }

// union merges two ascending lists.
func union(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// counts are the counts of counting counters, by index.
type counts map[int]uint64

func (c counts) addAll(d counts) {
	for i, n := range d {
		c[i] += n
	}
}

// sorted returns the counts by ascending index.
func (c counts) sorted() []Count {
	out := make([]Count, 0, len(c))
	for i, n := range c {
		out = append(out, Count{Index: i, N: n})
	}
	slices.SortFunc(out, func(a, b Count) int { return a.Index - b.Index })
	return out
}

// frame is one test running in the process being read.
type frame struct {
	name    string
	own     counterSet // counters executed by the test itself so far
	context []int      // counters executed before it started (package init, its ancestors), ascending; shared, never changed
	// inherited is context and own merged, the context of its subtests:
	// shared by them until own gains a counter (stale), so that a
	// parent's thousands of subtests do not each merge it again.
	inherited []int
	stale     bool
	children  bool
	// Counts are charged once: to the leaf test running when they were
	// made or, outside any leaf test (package init, a parent's setup or
	// teardown around its subtests), to the next leaf test to start. A
	// subtest does not inherit its parent's counts as it inherits its
	// counters: a parent's loop over its subtests would count again for
	// each, and the magnitudes would follow the order of the cases.
	pending counts // counts made since the last test started or ended here
}

// leafRecord is what the records say about one leaf test.
type leafRecord struct {
	name     string
	hits     Counters
	counts   counts
	panicked bool
	finished bool // an exit record was read
	// What the exit record says of the test as its function returned:
	// it had failed, or skipped itself, and how long it ran. A cleanup
	// or an example's output check may still fail it.
	failed, skipped bool
	elapsed         time.Duration
}

// recordReader rebuilds leaf spectra from the runtime's record stream of
// one test process (see package faultlinert for the format).
type recordReader struct {
	prelude counterSet // counters executed before the first test: package init
	// root is the process as the parent of its top-level tests, for
	// counts made outside every test.
	root   frame
	stack  []*frame
	leaves []leafRecord // not handed on yet
	ended  int          // leaves read, handed on or not
	// errors are problems the runtime reported (a package missing from the
	// counter layout, counters that could not be mapped).
	errors []string
	// panicked is the test whose panicking exit was the last record: the
	// process dies of that panic right after, unless the panic was
	// recovered (recovered then says so at the next record).
	panicked string
	// recovered says the process went on past a test's panic: the runtime
	// ended the test, or a testify suite recovered it.
	recovered bool
	// free are the counter sets of finished tests, for the next ones.
	free []counterSet
	// renumber is RunOptions.Renumber.
	renumber []int32
}

func newRecordReader() *recordReader {
	return &recordReader{root: frame{pending: counts{}}}
}

// record reads one record's payload (see package faultlinert for the
// format). The payload is the reader's buffer, read in place: a large
// package's records list millions of counters; what is kept (test names)
// is copied. A malformed record is dropped.
func (rr *recordReader) record(p []byte) {
	if len(p) < 2 {
		return
	}
	kind, flags := p[0], p[1]
	size, n := binary.Uvarint(p[2:])
	if n <= 0 || size > uint64(len(p)-2-n) {
		return
	}
	name := string(p[2+n : 2+n+int(size)])
	rest := p[2+n+int(size):]
	rr.recovered = rr.recovered || rr.panicked != ""
	rr.panicked = ""
	switch kind {
	case recordError:
		rr.errors = append(rr.errors, name)
	case recordSkip:
		if n := len(rr.stack); n > 0 {
			rr.stack[n-1].children = true
		}
	case recordEnter:
		rr.charge(rest)
		var ctx []int
		parent := &rr.root
		if n := len(rr.stack); n > 0 {
			parent = rr.stack[n-1]
			parent.children = true
			ctx = parent.subtestContext()
		} else {
			ctx = rr.prelude.appendTo(nil)
		}
		pending := parent.pending
		parent.pending = counts{}
		for _, f := range rr.stack {
			f.children = true
		}
		rr.stack = append(rr.stack, &frame{name: name, context: ctx, pending: pending, own: rr.newSet()})
	case recordExit:
		micros, k := binary.Uvarint(rest)
		if k <= 0 {
			return
		}
		rest = rest[k:]
		rr.charge(rest)
		n := len(rr.stack)
		if n == 0 || rr.stack[n-1].name != name {
			return
		}
		panicked := flags == 'p'
		f := rr.stack[n-1]
		rr.finish(f, leafRecord{panicked: panicked, finished: true, failed: flags == 'f', skipped: flags == 'k', elapsed: time.Duration(micros) * time.Microsecond})
		rr.stack = rr.stack[:n-1]
		if f.children {
			rr.top().pending.addAll(f.pending) // a parent's teardown: the next test's
		}
		// Its counters are packed or merged into its subtests' context
		// by now: the set serves the next test.
		rr.free = append(rr.free, f.own)
		f.own = nil
		if panicked {
			rr.panicked = name
		}
	}
}

// The kinds of records, as package faultlinert writes them.
const (
	recordEnter = 'e'
	recordExit  = 'x'
	recordSkip  = 's'
	recordError = '!'
)

// maxRecord bounds the payload of one record: far more than every counter
// of a layout of millions, and little enough that a corrupt length is
// caught rather than waited for.
const maxRecord = 1 << 30

// splitRecords is a bufio.SplitFunc that cuts the runtime's stream into
// record payloads: each is preceded by its length (4 bytes,
// little-endian). A torn last record (a killed process) yields no token.
func splitRecords(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if len(data) < 4 {
		return 0, nil, nil
	}
	n := binary.LittleEndian.Uint32(data)
	if n > maxRecord {
		return 0, nil, fmt.Errorf("a record of %d bytes in the runtime's stream", n)
	}
	if uint64(len(data)-4) < uint64(n) {
		return 0, nil, nil
	}
	return 4 + int(n), data[4 : 4+n], nil
}

// newSet returns an empty counter set, one a finished test left if any:
// a set spans the counters of the whole layout, and allocating one per
// test was most of the memory a large package's records took.
func (rr *recordReader) newSet() counterSet {
	n := len(rr.free)
	if n == 0 {
		return nil
	}
	s := rr.free[n-1]
	rr.free = rr.free[:n-1]
	clear(s)
	return s
}

// subtestContext is the context of a subtest starting now: the frame's
// context and its own counters so far.
func (f *frame) subtestContext() []int {
	if f.inherited == nil || f.stale {
		f.inherited = union(f.context, f.own.appendTo(nil))
		f.stale = false
	}
	return f.inherited
}

// top is the innermost running test, or the root.
func (rr *recordReader) top() *frame {
	if n := len(rr.stack); n > 0 {
		return rr.stack[n-1]
	}
	return &rr.root
}

// charge adds the counters encoded in s to the running test, or to the
// prelude: ascending, each a uvarint of its gap from the previous one and
// whether a count follows, read in one pass. A malformed list is read up
// to its first bad field.
func (rr *recordReader) charge(s []byte) {
	target, targetCounts, stale := &rr.prelude, rr.root.pending, new(bool)
	if n := len(rr.stack); n > 0 {
		f := rr.stack[n-1]
		target, targetCounts, stale = &f.own, f.pending, &f.stale
	}
	index := -1
	for len(s) > 0 {
		field, n := binary.Uvarint(s)
		if n <= 0 || field>>1 > maxCounterIndex {
			return
		}
		s = s[n:]
		index += 1 + int(field>>1)
		if index > maxCounterIndex {
			return
		}
		if field&1 == 0 {
			if target.add(index) {
				*stale = true
			}
			continue
		}
		count, n := binary.Uvarint(s)
		if n <= 0 {
			return
		}
		s = s[n:]
		targetCounts[index] += count
	}
}

// maxCounterIndex bounds the counter indices a record may name, so that a
// corrupt one does not size a counter set: the runtime maps at most 2^28
// counters.
const maxCounterIndex = 1 << 28

// finish ends a leaf test's frame; how it ended is in leaf.
func (rr *recordReader) finish(f *frame, leaf leafRecord) {
	if f.children {
		return
	}
	rr.ended++
	leaf.name, leaf.hits, leaf.counts = f.name, packUnion(f.context, f.own, rr.renumber), f.pending
	rr.leaves = append(rr.leaves, leaf)
}

// interrupted closes the record stream of a process that died or was
// killed while tests were running. It returns the test that brought the
// process down, to be skipped when the process is restarted: the innermost
// running test, which gets the counters left in shared memory. It returns
// "" when a test that already finished (its panic killed the process) is
// to blame: its parents then run again for their remaining subtests.
func (rr *recordReader) interrupted(leftover []int, leftoverCounts []Count) string {
	n := len(rr.stack)
	if n == 0 || rr.panicked != "" {
		rr.stack = nil
		return ""
	}
	f := rr.stack[n-1]
	for _, c := range leftover {
		f.own.add(c) // the frame is finished next: its subtests' context no longer matters
	}
	for _, c := range leftoverCounts {
		f.pending[c.Index] += c.N
	}
	rr.finish(f, leafRecord{})
	rr.stack = nil
	return f.name
}
