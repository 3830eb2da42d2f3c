//go:build cgo

package analysis

import "testing"

// TestNilAndExplicitPanics analyses tests that fail by a nil pointer
// dereference, a write to a nil map and an explicit panic: the condition
// on the path to each, the faulty line, must be in a verified candidate
// found by the formula. TestPeek and TestWalk pass and must pass
// instrumented too, with every form of dereference guarded.
func TestNilAndExplicitPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "nilpanic.txtar")
	checkFormulaFinds(t, dir, "example.com/nilpanic", "nilpanic.go",
		map[string]int{"TestPeekEmpty": 16, "TestAddNothing": 27, "TestDigitNine": 35})
	checkPassesInstrumented(t, dir, "example.com/nilpanic", "TestPeek", "TestWalk")
}
