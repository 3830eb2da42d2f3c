//go:build cgo

package analysis

import "testing"

// TestSwitchCaseFaults checks that faults in case expressions are found by
// the formula: the tagless switch's r <= 0x20 (for <) and the tagged
// switch's case value 8 (for 9). TestWeigh passes uninstrumented; it must
// pass instrumented too (init statement, fallthrough, labelled breaks).
func TestSwitchCaseFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "switch.txtar")
	checkFormulaFinds(t, dir, "example.com/classify", "classify.go", map[string]int{
		"TestSpace":     7,
		"TestSeptember": 20,
		"TestAugust":    20,
	})
	checkPassesInstrumented(t, dir, "example.com/classify", "TestWeigh")
}
