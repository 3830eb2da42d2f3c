//go:build cgo

package analysis

import "testing"

// TestSentinelFaults checks that faults on error paths checked against
// sentinels are found by the formula: a function returning the wrong
// sentinel (checked by errors.Is and by != guarding t.Fatalf) and one returning a
// nil error where it should fail (checked by testify's ErrorIs). TestRead
// passes and must pass instrumented too.
func TestSentinelFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "sentinel.txtar")
	checkFormulaFinds(t, dir, "example.com/sentinel", "sentinel.go", map[string]int{
		"TestGetEmptyKey":         18,
		"TestGetEmptyKeyIdentity": 18,
		"TestOverdraw":            34,
	})
	checkPassesInstrumented(t, dir, "example.com/sentinel", "TestRead")
}
