//go:build cgo

package analysis

import "testing"

// TestMultiValueCalls checks that results of calls with several results
// between instrumented functions are modelled: a fault inside a (int, error)
// function reaches the test's check through a, b := f(), var a, b = f(),
// a, b = f(), return f() and g(f()), and the formula finds it.
func TestMultiValueCalls(t *testing.T) {
	dir := extract(t, "multivalue.txtar")
	checkPassesInstrumented(t, dir, "example.com/digits", "TestBadDigit")
	checkFormulaFinds(t, dir, "example.com/digits", "digits.go", map[string]int{
		"TestNumber": 10, "TestPair": 10, "TestParse": 10, "TestSplit": 10,
	})
}
