// Package calc is a fixture for the editor plugin tests.
package calc

// Max returns the larger of a and b.
func Max(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// Abs returns the absolute value of x.
func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
