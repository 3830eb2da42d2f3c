//go:build cgo

package analysis

import "testing"

// TestPanicsAsFailures analyses tests that fail by an index out of range
// and by an integer division by zero: the faulty line must be in a
// verified candidate found by the formula, not by predicate switching.
func TestPanicsAsFailures(t *testing.T) {
	checkFormulaFinds(t, extract(t, "panic.txtar"), "example.com/panics", "panics.go",
		map[string]int{"TestMedianSingle": 6, "TestPagesOnePerPage": 12})
}
