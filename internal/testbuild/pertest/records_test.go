package pertest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func read(lines ...string) *recordReader {
	rr := newRecordReader()
	for _, l := range lines {
		rr.line([]byte(l))
	}
	return rr
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
		} else {
			fmt.Fprintf(&own, " %d", i)
		}
	}
	rr := read(
		`enter "TestT"`,
		`enter "TestT/a"`+parent.String(), // the parent's counters: a's context
		`exit "TestT/a" -`+own.String()+` 0 1 2`,
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
	if hits.Size() > n {
		t.Errorf("%d counters take %d bytes, want at most %d", n, hits.Size(), n)
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
// may reuse), and malformed fields are skipped, not misread.
func TestRecordsReadInPlace(t *testing.T) {
	rr := newRecordReader()
	buf := make([]byte, 0, 256)
	for _, l := range []string{
		`enter "TestA" 1`,
		`exit "TestA" - 2 3 12x -4 5: 6:z  7 99999999999999999999 8:2`,
		`enter "TestB\"x"`,
		`exit "TestB\"x" - 4`,
		`enter "TestC" 9`, // between the tests: TestC's
		`exit "TestC" -`,
	} {
		buf = append(buf[:0], l...)
		rr.line(buf)
		for i := range buf {
			buf[i] = '#' // the next record overwrites the buffer
		}
	}
	want := map[string][]int{"TestA": {1, 2, 3, 7}, `TestB"x`: {1, 4}, "TestC": {1, 9}}
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
}
