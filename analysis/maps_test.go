//go:build cgo

package analysis

import "testing"

// TestMapFaults checks that faults in code counting with maps are found by
// the formula, which models maps from integers to integers or Booleans as
// arrays with a presence bit: a counter stored with m[k] += n, and a set's
// length. Invert (a range over a map, a delete) passes uninstrumented and
// must pass instrumented too.
func TestMapFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "maps.txtar")
	checkFormulaFinds(t, dir, "example.com/counter", "counter.go", map[string]int{
		"TestCount":    7,
		"TestDistinct": 18,
	})
	checkPassesInstrumented(t, dir, "example.com/counter", "TestInvert")
}
