package pertest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// read reads records written as text, one a line: kind (enter, exit, skip,
// error), the quoted name, for exit the flags ("-" or "p"), then the
// counters, "index" or "index:count", ascending.
func read(lines ...string) *recordReader {
	rr := newRecordReader()
	for _, l := range lines {
		rr.record(encodeRecord(l))
	}
	return rr
}

// encodeRecord encodes a record written as text (see read) as the runtime
// does, without the length prefix.
func encodeRecord(line string) []byte {
	kind, rest, _ := strings.Cut(line, " ")
	end := 1
	for rest[end] != '"' {
		if rest[end] == '\\' {
			end++
		}
		end++
	}
	name, err := strconv.Unquote(rest[:end+1])
	if err != nil {
		panic(err)
	}
	fields := strings.Fields(rest[end+1:])
	flags := byte('-')
	if kind == "exit" {
		flags = fields[0][0]
		fields = fields[1:]
	}
	b := []byte{map[string]byte{"enter": 'e', "exit": 'x', "skip": 's', "error": '!'}[kind], flags}
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	if kind == "exit" {
		b = binary.AppendUvarint(b, 0) // run time
	}
	prev := -1
	for _, f := range fields {
		index, count, counted := strings.Cut(f, ":")
		i, err := strconv.Atoi(index)
		if err != nil || i <= prev {
			panic("counter " + f)
		}
		field := uint64(i-prev-1) << 1
		if counted {
			field |= 1
		}
		b = binary.AppendUvarint(b, field)
		if counted {
			n, err := strconv.ParseUint(count, 10, 64)
			if err != nil {
				panic("counter " + f)
			}
			b = binary.AppendUvarint(b, n)
		}
		prev = i
	}
	return b
}

// TestCountsOfSubtests: every count is charged once, to the leaf test
// running when it was made or, outside any leaf test (package init, a
// parent's setup and teardown around its subtests), to the next leaf test
// to start. Block counters keep their union.
func TestCountsOfSubtests(t *testing.T) {
	rr := read(
		`enter "TestT" 1 100:2`,         // package init
		`enter "TestT/a" 2 100:5 101:1`, // shared setup, then a's setup
		`exit "TestT/a" - 3 102:7`,      // a itself
		`enter "TestT/b" 4 101:1`,       // b's setup
		`exit "TestT/b" - 102:9 103:1`,  // b itself
		`exit "TestT" - 5 101:4`,        // after the subtests: nobody's
		`enter "TestU" 100:1`,           // between the tests: TestU's
		`exit "TestU" p 104:3`,          // TestU panics
		`enter "TestV" 105:1`,           // runs, then the process dies
	)
	if got := rr.interrupted([]int{6}, []Count{{106, 2}}); got != "TestV" {
		t.Fatalf("interrupted blames %q", got)
	}
	want := map[string][]Count{
		"TestT/a": {{100, 7}, {101, 1}, {102, 7}},
		"TestT/b": {{101, 1}, {102, 9}, {103, 1}},
		"TestU":   {{100, 1}, {101, 4}, {104, 3}},
		"TestV":   {{105, 1}, {106, 2}},
	}
	hits := map[string][]int{"TestT/a": {1, 2, 3}, "TestT/b": {1, 2, 4}, "TestU": {1}, "TestV": {1, 6}}
	if len(rr.leaves) != len(want) {
		t.Fatalf("%d leaves, want %d", len(rr.leaves), len(want))
	}
	for _, l := range rr.leaves {
		if got := l.counts.sorted(); !reflect.DeepEqual(got, want[l.name]) {
			t.Errorf("%s: counts %v, want %v", l.name, got, want[l.name])
		}
		if got := slices.Collect(l.hits.All()); !reflect.DeepEqual(got, hits[l.name]) || l.hits.Len() != len(got) {
			t.Errorf("%s: hits %v (%d), want %v", l.name, got, l.hits.Len(), hits[l.name])
		}
	}
}

// TestLeafCountersRenumbered: with a renumbering, a leaf's counters,
// its context's included, are packed in the caller's numbering, those
// numbered -1 or beyond the table left out, in the packed form the store
// keeps (gaps from -1).
func TestLeafCountersRenumbered(t *testing.T) {
	rr := newRecordReader()
	rr.renumber = []int32{-1, 0, 4, -1, 5, 9, 300}
	for _, l := range []string{
		`enter "TestT" 1 4`,      // package init
		`enter "TestT/a" 2`,      // the parent's setup
		`exit "TestT/a" - 5 6 8`, // 8 is beyond the table
		`exit "TestT" -`,
	} {
		rr.record(encodeRecord(l))
	}
	if len(rr.leaves) != 1 {
		t.Fatalf("%d leaves, want 1", len(rr.leaves))
	}
	hits := rr.leaves[0].hits
	if got, want := slices.Collect(hits.All()), []int{0, 4, 5, 9, 300}; !reflect.DeepEqual(got, want) {
		t.Errorf("hits %v, want %v", got, want)
	}
	if got, want := hits.Bytes(), []byte{1, 4, 1, 4, 0xa3, 0x02}; !bytes.Equal(got, want) {
		t.Errorf("packed %v, want %v", got, want)
	}
}

// TestLeafCountersPacked: a leaf's counters are held packed, a byte per
// counter when they are dense, not eight, since every leaf of a binary is
// held until its process ends; its context (the parent's counters) and its
// own merge without repeats.
func TestLeafCountersPacked(t *testing.T) {
	const n = 10000
	var parent, own strings.Builder
	for i := range n {
		if i%2 == 0 {
			fmt.Fprintf(&parent, " %d", i)
		}
		if i%2 == 1 || i < 3 { // 0 and 2 in both
			fmt.Fprintf(&own, " %d", i)
		}
	}
	rr := read(
		`enter "TestT"`,
		`enter "TestT/a"`+parent.String(), // the parent's counters: a's context
		`exit "TestT/a" -`+own.String(),
		`exit "TestT" -`,
	)
	if len(rr.leaves) != 1 {
		t.Fatalf("%d leaves, want 1", len(rr.leaves))
	}
	hits := rr.leaves[0].hits
	got := slices.Collect(hits.All())
	if len(got) != n || hits.Len() != n || got[0] != 0 || got[n-1] != n-1 || !slices.IsSorted(got) {
		t.Fatalf("hits: %d counters (Len %d), from %d to %d, want 0 to %d", len(got), hits.Len(), got[0], got[len(got)-1], n-1)
	}
	if len(hits.Bytes()) > n {
		t.Errorf("%d counters take %d bytes, want at most %d", n, len(hits.Bytes()), n)
	}
}

// TestSubtestContextFollowsParent: subtests share their parent's context
// until the parent runs a counter it had not run, between two subtests.
func TestSubtestContextFollowsParent(t *testing.T) {
	rr := read(
		`enter "TestT" 1`,
		`enter "TestT/a" 2`,
		`exit "TestT/a" - 10`,
		`enter "TestT/b" 2`, // nothing new: a's context serves
		`exit "TestT/b" - 11`,
		`enter "TestT/c" 3`, // the parent's loop ran 3 first
		`exit "TestT/c" - 12`,
		`exit "TestT" -`,
	)
	want := map[string][]int{"TestT/a": {1, 2, 10}, "TestT/b": {1, 2, 11}, "TestT/c": {1, 2, 3, 12}}
	for _, l := range rr.leaves {
		if got := slices.Collect(l.hits.All()); !reflect.DeepEqual(got, want[l.name]) {
			t.Errorf("%s: hits %v, want %v", l.name, got, want[l.name])
		}
	}
	if len(rr.leaves) != len(want) {
		t.Errorf("%d leaves, want %d", len(rr.leaves), len(want))
	}
}

// TestRecordsReadInPlace: records are read from one reused buffer, as the
// runner's scanner hands them over; the names kept are copies, a test
// starts with none of the counters of the test before it (whose set it
// may reuse), and a malformed counter list is read up to its first bad
// field, not misread.
func TestRecordsReadInPlace(t *testing.T) {
	rr := newRecordReader()
	buf := make([]byte, 0, 256)
	truncated := append(encodeRecord(`exit "TestC" - 9 10:3`), 0x80) // a uvarint cut short
	huge := binary.AppendUvarint(encodeRecord(`exit "TestD" - 11`), (maxCounterIndex+1)<<1)
	for _, rec := range [][]byte{
		encodeRecord(`enter "TestA" 1`),
		encodeRecord(`exit "TestA" - 2 3 7 8:2`),
		encodeRecord(`enter "TestB\"x"`),
		encodeRecord(`exit "TestB\"x" - 4`),
		encodeRecord(`enter "TestC" 5`), // between the tests: TestC's
		truncated,
		encodeRecord(`enter "TestD"`),
		huge,
		{'x', '-', 10, 'T'}, // a name longer than the record
		{'x'},
	} {
		buf = append(buf[:0], rec...)
		rr.record(buf)
		for i := range buf {
			buf[i] = '#' // the next record overwrites the buffer
		}
	}
	want := map[string][]int{"TestA": {1, 2, 3, 7}, `TestB"x`: {1, 4}, "TestC": {1, 5, 9}, "TestD": {1, 5, 11}}
	if len(rr.leaves) != len(want) {
		t.Fatalf("%d leaves, want %d", len(rr.leaves), len(want))
	}
	for _, l := range rr.leaves {
		if got := slices.Collect(l.hits.All()); !reflect.DeepEqual(got, want[l.name]) {
			t.Errorf("%q: hits %v, want %v", l.name, got, want[l.name])
		}
	}
	if got := rr.leaves[0].counts.sorted(); !reflect.DeepEqual(got, []Count{{8, 2}}) {
		t.Errorf("TestA: counts %v, want [{8 2}]", got)
	}
	if got := rr.leaves[2].counts.sorted(); !reflect.DeepEqual(got, []Count{{10, 3}}) {
		t.Errorf("TestC: counts %v, want [{10 3}]", got)
	}
}

// TestSplitRecords: the stream is cut at each record's length; a torn last
// record yields nothing, and a length past any layout is an error.
func TestSplitRecords(t *testing.T) {
	var stream []byte
	for _, l := range []string{`enter "TestA" 1 2`, `exit "TestA" - 300:7`} {
		p := encodeRecord(l)
		stream = binary.LittleEndian.AppendUint32(stream, uint32(len(p)))
		stream = append(stream, p...)
	}
	whole := len(stream)
	stream = append(stream, 9, 0, 0, 0, 'x', '-') // torn
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Split(splitRecords)
	rr := newRecordReader()
	n := 0
	for sc.Scan() {
		rr.record(sc.Bytes())
		n++
	}
	if n != 2 || sc.Err() != nil {
		t.Fatalf("%d records, error %v; want 2 and none (stream of %d bytes, %d whole)", n, sc.Err(), len(stream), whole)
	}
	if len(rr.leaves) != 1 || rr.leaves[0].name != "TestA" || !reflect.DeepEqual(rr.leaves[0].counts.sorted(), []Count{{300, 7}}) {
		t.Fatalf("leaves %+v", rr.leaves)
	}
	if _, _, err := splitRecords([]byte{0xff, 0xff, 0xff, 0xff, 'x'}, false); err == nil {
		t.Error("a 4 GB record was not an error")
	}
}
