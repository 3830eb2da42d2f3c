package faultlinert

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// newState is a state of n counters writing its records to a pipe, whose
// reading end it returns.
func newState(t *testing.T, n int) (*state, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	words := make([]uint64, (n+1)/2)
	return &state{words: words, counters: halves(words, n), out: w}, r
}

// decoded is one record read back.
type decoded struct {
	kind, flags byte
	name        string
	elapsed     uint64 // microseconds, on an exit record
	counters    []int
	counts      map[int]uint64
}

// readRecords reads the records written so far; the writing end is closed.
func readRecords(t *testing.T, s *state, r *os.File) []decoded {
	s.out.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var out []decoded
	for len(data) > 0 {
		n := int(binary.LittleEndian.Uint32(data))
		p := data[4 : 4+n]
		data = data[4+n:]
		d := decoded{kind: p[0], flags: p[1], counts: map[int]uint64{}}
		size, k := binary.Uvarint(p[2:])
		d.name = string(p[2+k : 2+k+int(size)])
		p = p[2+k+int(size):]
		if d.kind == recordExit {
			d.elapsed, k = binary.Uvarint(p)
			p = p[k:]
		}
		index := -1
		for len(p) > 0 {
			field, k := binary.Uvarint(p)
			p = p[k:]
			index += 1 + int(field>>1)
			d.counters = append(d.counters, index)
			if field&1 != 0 {
				c, k := binary.Uvarint(p)
				p = p[k:]
				d.counts[index] = c
			}
		}
		out = append(out, d)
	}
	return out
}

// A boundary reports the counters of the ranges this binary registered, in
// increasing order whatever order they registered in, and resets them.
func TestBoundaryScansRegisteredRanges(t *testing.T) {
	s, r := newState(t, 10)
	s.link(6, 8)
	s.link(1, 3)
	s.link(6, 8) // registered again
	// Counter 4 belongs to no registered range: a binary that does not
	// link that package never counts it, and the scan does not look.
	for _, i := range []int{7, 1, 4, 2} {
		s.counters[i] = 1
	}
	s.boundary(recordExit, "TestX", '-', 0)
	recs := readRecords(t, s, r)
	if len(recs) != 1 || recs[0].kind != 'x' || recs[0].flags != '-' || recs[0].name != "TestX" || !reflect.DeepEqual(recs[0].counters, []int{1, 2, 7}) {
		t.Errorf("records %+v, want exit TestX - [1 2 7]", recs)
	}
	if want := [][2]int{{1, 3}, {6, 8}}; len(s.linked) != 2 || s.linked[0] != want[0] || s.linked[1] != want[1] {
		t.Errorf("linked ranges %v, want %v", s.linked, want)
	}
	if s.counters[1] != 0 || s.counters[7] != 0 || s.counters[4] != 1 {
		t.Errorf("counters after the boundary %v", s.counters)
	}
}

// The scan skips zero words eight at a time and looks at each counter of a
// word that is not zero: ranges that start and end inside a word (odd
// offsets), counters at every position of a long range, counting ranges
// beside block ranges, and gaps that need more than a byte.
func TestBoundaryEncodesEveryCounter(t *testing.T) {
	s, r := newState(t, 1001)
	s.link(3, 500)
	s.link(500, 700) // counting
	s.link(701, 1001)
	s.counting = [][2]int{{500, 700}}
	hit := []int{3, 4, 9, 10, 11, 17, 18, 19, 20, 21, 22, 23, 24, 25, 499, 500, 501, 699, 701, 1000}
	for _, i := range hit {
		s.counters[i] = uint32(i)
	}
	s.counters[2] = 5   // outside every range
	s.counters[700] = 5 // between two ranges in one word
	s.boundary(recordEnter, "TestY", 'p', 0)
	s.boundary(recordExit, "TestY", '-', 1500*time.Microsecond) // nothing since
	recs := readRecords(t, s, r)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	want := map[int]uint64{500: 500, 501: 501, 699: 699}
	if got := recs[0]; got.kind != 'e' || got.flags != 'p' || !reflect.DeepEqual(got.counters, hit) || !reflect.DeepEqual(got.counts, want) {
		t.Errorf("record %c %c %v %v, want e p %v %v", got.kind, got.flags, got.counters, got.counts, hit, want)
	}
	if got := recs[1]; got.kind != 'x' || len(got.counters) != 0 || got.elapsed != 1500 {
		t.Errorf("second record %+v, want an exit of 1500µs without counters", got)
	}
	for i, c := range s.counters {
		if c != 0 && i != 2 && i != 700 {
			t.Errorf("counter %d left at %d", i, c)
		}
	}
}

// Without a collector a boundary only resets the counters.
func TestBoundaryWithoutCollectorResets(t *testing.T) {
	words := make([]uint64, 5)
	s := &state{words: words, counters: halves(words, 9)}
	s.link(0, 9)
	for i := range s.counters {
		s.counters[i] = 1
	}
	s.boundary(recordExit, "TestZ", '-', 0)
	for i, c := range s.counters {
		if c != 0 {
			t.Errorf("counter %d left at %d", i, c)
		}
	}
}

// Two shards mapping one claims table: the first to claim a name owns it,
// its owner claims it again after a restart, and a name whose probe
// window is full of others' claims is left to the claim files by both.
func TestClaimsTable(t *testing.T) {
	path := t.TempDir() + "/table"
	const slots = 256
	first, err := mapClaims(path, slots)
	if err != nil {
		t.Skipf("no shared claims here: %v", err)
	}
	second, err := mapClaims(path, slots)
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 40; i++ {
		h := i * 0x9e3779b97f4a7c15
		mine, ok := claimInTable(first, h, "0")
		if !ok || !mine {
			t.Fatalf("shard 0's first claim of hash %x: mine %v, ok %v", h, mine, ok)
		}
		if mine, ok := claimInTable(second, h, "1"); !ok || mine {
			t.Fatalf("shard 1 claimed hash %x shard 0 holds: mine %v, ok %v", h, mine, ok)
		}
		if mine, ok := claimInTable(second, h, "0"); !ok || !mine {
			t.Fatalf("shard 0 after a restart lost hash %x: mine %v, ok %v", h, mine, ok)
		}
	}
	// Fill every word but none of the hash below's.
	full := make([]uint64, claimWindow)
	for i := range full {
		full[i] = uint64(i+1)<<8 | 1
	}
	const h = 0xabcdef0012345600
	for _, shard := range []string{"0", "1"} {
		if _, ok := claimInTable(full, h, shard); ok {
			t.Errorf("shard %s claimed in a full window", shard)
		}
	}
	if _, ok := claimInTable(nil, h, "0"); ok {
		t.Error("claimed without a table")
	}
}

// A recovered panic is printed as the runtime prints one: its value, then
// the trace from the call to panic on, without the hook's frames.
func TestPanicPrintedAsTheRuntimePrintsIt(t *testing.T) {
	var text, stack string
	func() {
		defer func() {
			v := recover()
			text, stack = panicText(v), panickingStack()
		}()
		panic(errors.New("boom"))
	}()
	if text != "boom" {
		t.Errorf("value %q", text)
	}
	lines := strings.Split(stack, "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "goroutine ") || !strings.HasPrefix(lines[1], "panic(") ||
		!strings.Contains(lines[3], "TestPanicPrintedAsTheRuntimePrintsIt") {
		t.Errorf("trace:\n%s", stack)
	}
	for v, want := range map[interface{}]string{"boom": "boom", 42: "42", time.Second: "1s"} {
		if got := panicText(v); got != want {
			t.Errorf("panicText(%#v) = %q, want %q", v, got, want)
		}
	}
}

// BenchmarkBoundary is one test's exit and the next test's enter in a
// binary like expr's test/gen: 5,035 counters linked, a few hundred of them
// executed by the test, in runs of a function's blocks spread over the
// counters (spread) or gathered in a few packages (gathered).
func BenchmarkBoundary(b *testing.B) {
	const n = 5035
	for _, c := range []struct {
		name        string
		runs, every int
	}{{"spread", 32, 157}, {"gathered", 8, 40}} {
		b.Run(c.name, func(b *testing.B) {
			words := make([]uint64, (n+1)/2)
			s := &state{words: words, counters: halves(words, n)}
			s.link(0, n)
			var err error
			if s.out, err = os.Create(os.DevNull); err != nil {
				b.Fatal(err)
			}
			defer s.out.Close()
			var hit []int
			for r := 0; r < c.runs; r++ {
				for k := 0; k < 12; k++ {
					hit = append(hit, r*c.every+k)
				}
			}
			for i := 0; i < b.N; i++ {
				for _, c := range hit {
					s.counters[c]++
				}
				s.boundary(recordExit, "TestGenerated/case", '-', 0)
				s.boundary(recordEnter, "TestGenerated/next", '-', 0)
			}
		})
	}
}
