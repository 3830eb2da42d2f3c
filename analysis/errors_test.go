//go:build cgo

package analysis

import "testing"

// TestErrorPathFaults checks that faults that send a run down an error
// path are found by the formula, which models an error's nil-ness: a
// range check rejecting the highest port (checked by err != nil guarding
// t.Fatal and by testify's NoError) and a length check accepting a name
// one byte too long (testify's Error). TestLast compares errors by
// identity (err == io.EOF, a sentinel whose code the formula compares);
// it passes and must pass instrumented too.
func TestErrorPathFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "errors.txtar")
	checkFormulaFinds(t, dir, "example.com/errs", "errs.go", map[string]int{
		"TestHighestPort":        16,
		"TestHighestPortTestify": 16,
		"TestLongName":           27,
	})
	checkPassesInstrumented(t, dir, "example.com/errs", "TestLast")
}
