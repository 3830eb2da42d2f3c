//go:build cgo

package analysis

import "testing"

// TestTypeBranchFaults analyses a type switch whose case names the wrong
// type and a comma-ok assertion to the wrong type: the faulty lines must
// be in verified candidates the formula found, a case or an ok taken
// otherwise than the run's dynamic type decided. TestOthers passes and
// must pass instrumented too.
func TestTypeBranchFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "typeswitch.txtar")
	checkFormulaFinds(t, dir, "example.com/typeswitch", "typeswitch.go",
		map[string]int{"TestBitsLarge": 18, "TestRankString": 29})
	checkPassesInstrumented(t, dir, "example.com/typeswitch", "TestOthers")
}
