//go:build cgo

package analysis

import "testing"

// TestListFaults checks that faults in functions on slices of integers are
// found by the formula, which models such slices as sequences: a slice
// built by append, an insertion sort comparing the wrong way (elements
// swapped by a multi-assignment) and a counter stored into a slice
// element. Reverse passes uninstrumented and must pass instrumented too.
func TestListFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "lists.txtar")
	checkFormulaFinds(t, dir, "example.com/lists", "lists.go", map[string]int{
		"TestEvens":        8,
		"TestEvensTestify": 8,
		"TestSort":         17,
		"TestHistogram":    29,
	})
	checkPassesInstrumented(t, dir, "example.com/lists", "TestReverse")
}
