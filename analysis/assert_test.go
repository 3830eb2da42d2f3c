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
	dir := extractWithModules(t, "assertlib.txtar", "testify and go-cmp")
	checkFormulaFinds(t, dir, "example.com/calc", "calc.go",
		map[string]int{"TestTriangle": 5, "TestEven": 10, "TestClamp": 16, "TestAbs": 27, "TestScale": 42})
}

// TestQuicktest analyses tests that check through quicktest: c.Assert,
// c.Check, quicktest.Assert and quicktest.Check with Equals, IsNil,
// DeepEquals, HasLen, IsTrue, Not(Equals) and ErrorIs. The faulty line must be in a
// verified candidate found by the formula.
func TestQuicktest(t *testing.T) {
	dir := extractWithModules(t, "quicktest.txtar", "quicktest")
	checkFormulaFinds(t, dir, "example.com/nums", "nums.go", map[string]int{
		"TestTriangle": 7, "TestHalf": 12, "TestEvens": 21, "TestEvensLen": 21, "TestEven": 29, "TestClamp": 35, "TestRoot": 48,
	})
}

// extractWithModules extracts a txtar module and downloads the modules it
// requires, named by what; in short mode, or without the module proxy or
// cache, the test is skipped.
func extractWithModules(t *testing.T, name, what string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs " + what)
	}
	dir := extract(t, name)
	download := exec.Command("go", "mod", "download", "all")
	download.Dir = dir
	if out, err := download.CombinedOutput(); err != nil {
		t.Skipf("cannot fetch %s: %v: %s", what, err, out)
	}
	return dir
}
