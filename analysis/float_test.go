//go:build cgo

package analysis

import "testing"

// TestFloatFaults checks that faults in float arithmetic are found by the
// formula: a Celsius conversion dividing by 8 (checked within a tolerance
// through math.Abs), a triangle area missing its halving (float32, checked
// with !=) and a Fahrenheit conversion adding 23 before truncating to an
// int; testify's Equal, Less and InDelta on floats. TestScale and TestFreezing pass
// uninstrumented; they must pass instrumented too.
func TestFloatFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := extract(t, "float.txtar")
	checkFormulaFinds(t, dir, "example.com/temperature", "temperature.go", map[string]int{
		"TestBoiling":         5,
		"TestMild":            5,
		"TestBodyTemperature": 5,
		"TestArea":            11,
		"TestSmallArea":       11,
		"TestFahrenheit":      16,
	})
	checkPassesInstrumented(t, dir, "example.com/temperature", "TestScale", "TestFreezing")
}
