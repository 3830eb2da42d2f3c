//go:build cgo

package analysis

import (
	"context"
	"slices"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// sliceCase is a failing test and the lines of its function its check's
// slice must hold and must leave out.
type sliceCase struct {
	test     string
	in       []int
	out      []int
	nearerOf [2]int // the first line is nearer the check than the second
}

// checkSlices analyses each case's test and checks its slice.
func checkSlices(t *testing.T, dir, pkg, file string, cases []sliceCase) {
	t.Helper()
	var targets []testbuild.Target
	for _, c := range cases {
		targets = append(targets, testbuild.Target{Package: pkg, Test: c.test})
	}
	res, err := Analyze(context.Background(), open(t, dir), targets, Options{MaxSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(cases) {
		t.Fatalf("got %d results, want %d", len(res), len(cases))
	}
	byTest := map[string]TestResult{}
	for _, r := range res {
		byTest[r.Test] = r
	}
	for _, c := range cases {
		r := byTest[c.test]
		if !slices.IsSortedFunc(r.Slice, func(a, b SliceLine) int { return a.Distance - b.Distance }) {
			t.Errorf("%s: slice not nearest first: %v", c.test, r.Slice)
		}
		dist := map[int]int{}
		for _, l := range r.Slice {
			if l.File != file {
				t.Errorf("%s: slice line %s:%d is outside %s", c.test, l.File, l.Line, file)
			}
			dist[l.Line] = l.Distance
		}
		for _, n := range c.in {
			if _, ok := dist[n]; !ok {
				t.Errorf("%s: line %d is not in the slice %v (notes %v)", c.test, n, r.Slice, r.Notes)
			}
		}
		for _, n := range c.out {
			if _, ok := dist[n]; ok {
				t.Errorf("%s: line %d is in the slice %v", c.test, n, r.Slice)
			}
		}
		if a, b := c.nearerOf[0], c.nearerOf[1]; a != 0 && dist[a] >= dist[b] {
			t.Errorf("%s: line %d at distance %d, want nearer than line %d at %d", c.test, a, dist[a], b, dist[b])
		}
	}
}

// TestSliceOfFailingCheck: data, control and not-taken dependences, and a
// panic as the check, each splitting a tie coverage cannot.
func TestSliceOfFailingCheck(t *testing.T) {
	checkSlices(t, extract(t, "slice.txtar"), "example.com/slices", "slices.go", []sliceCase{
		{test: "TestLate", in: []int{36, 37, 40}, out: []int{34, 43}, nearerOf: [2]int{40, 37}},
		{test: "TestMiddle", in: []int{28, 29}, out: []int{26, 43}, nearerOf: [2]int{29, 28}},
		{test: "TestPrice", in: []int{9, 10}, out: []int{7, 43}, nearerOf: [2]int{10, 9}},
		{test: "TestShipping", in: []int{17, 18, 19, 21}, out: []int{15, 43}, nearerOf: [2]int{21, 18}},
	})
}

// TestSliceOfTestifyCheck: the operands of a testify assertion are the
// check; an assertion on values the analysis does not record falls back
// on the last statement of the test it recorded.
func TestSliceOfTestifyCheck(t *testing.T) {
	dir := extractWithModules(t, "slicetestify.txtar", "testify")
	checkSlices(t, dir, "example.com/mean", "mean.go", []sliceCase{
		{test: "TestLabel", in: []int{9, 10}, out: []int{7, 8}},
		{test: "TestMean", in: []int{9, 10}, out: []int{7, 8}, nearerOf: [2]int{10, 9}},
	})
}

// TestSliceThroughStores: a check on a local that a call stored through
// (a pointer receiver, a slice argument, an interface's dynamic value)
// depends on the call's stores, and one holding a struct the trace does
// not record on the call that returned it; a subtest that panics in
// non-test code still leaves its run's record.
func TestSliceThroughStores(t *testing.T) {
	checkSlices(t, extract(t, "sliceref.txtar"), "example.com/stack", "stack.go", []sliceCase{
		{test: "TestPush", in: []int{15}, out: []int{14}},
		{test: "TestFill", in: []int{29}, out: []int{26}},
		{test: "TestSizer", in: []int{39, 40}, out: []int{38}},
		{test: "TestShift/one", in: []int{39, 40}, out: []int{38}},
		{test: "TestAt/first", in: []int{51, 52}},
		{test: "TestMod", in: []int{74}, out: []int{73}},
	})
}
