//go:build cgo

package analysis

import "testing"

// TestRecordFaults checks that faults in code on structs of integer and
// Boolean fields are found by the formula, which models such structs as
// their fields: an insertion sort of a slice of structs comparing a field
// the wrong way, a summary updated field by field, a struct literal
// given the wrong field. Swap and Mask (a constant declared in a
// function, which value replacement must leave constant) pass
// uninstrumented and must pass instrumented too.
func TestRecordFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "records.txtar")
	checkFormulaFinds(t, dir, "example.com/records", "records.go", map[string]int{
		"TestByWeight":  11,
		"TestSummarize": 30,
		"TestMoved":     43,
	})
	checkPassesInstrumented(t, dir, "example.com/records", "TestSwap", "TestMask")
}
