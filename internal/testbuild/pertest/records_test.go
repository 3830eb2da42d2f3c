package pertest

import (
	"reflect"
	"testing"
)

func read(lines ...string) *recordReader {
	rr := newRecordReader()
	for _, l := range lines {
		rr.line(l)
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
		if !reflect.DeepEqual(l.hits, hits[l.name]) {
			t.Errorf("%s: hits %v, want %v", l.name, l.hits, hits[l.name])
		}
	}
}
