//go:build cgo

package analysis

import (
	"os/exec"
	"testing"
)

// TestAssertionLibraries analyses tests that check through testify and
// go-cmp: the faulty line must be in a verified candidate found by the
// formula (the faults are integer ones: predicate switching finds none but
// the Boolean one, and that one must not be needed). The modules come from
// the module proxy or cache; without either the test is skipped.
func TestAssertionLibraries(t *testing.T) {
	if testing.Short() {
		t.Skip("needs testify and go-cmp")
	}
	dir := extract(t, "assertlib.txtar")
	download := exec.Command("go", "mod", "download", "all")
	download.Dir = dir
	if out, err := download.CombinedOutput(); err != nil {
		t.Skipf("cannot fetch testify and go-cmp: %v: %s", err, out)
	}
	checkFormulaFinds(t, dir, "example.com/calc", "calc.go",
		map[string]int{"TestTriangle": 5, "TestEven": 10, "TestClamp": 16, "TestAbs": 27, "TestScale": 42})
}
