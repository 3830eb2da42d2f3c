//go:build cgo

package analysis

import "testing"

// TestIgnoredResult checks that a call whose result is ignored does not
// bind a later call's result: the fault inside the callee is found by the
// formula only when y := scale(n) equals that call's own return value.
func TestIgnoredResult(t *testing.T) {
	dir := extract(t, "ignored.txtar")
	checkFormulaFinds(t, dir, "example.com/ignored", "ignored.go", map[string]int{"TestTwice": 10})
}
