package stats

import "testing"

func TestClamp(t *testing.T) {
	for _, tc := range []struct{ x, want int }{{-5, 0}, {0, 0}, {5, 5}, {10, 10}, {15, 10}} {
		if got := Clamp(tc.x, 0, 10); got != tc.want {
			t.Errorf("Clamp(%d) = %d, want %d", tc.x, got, tc.want)
		}
	}
}

func TestSum(t *testing.T) {
	if got := Sum([]int{1, 2, 3}); got != 6 {
		t.Errorf("Sum = %d, want 6", got)
	}
	if got := Sum(nil); got != 0 {
		t.Errorf("Sum(nil) = %d, want 0", got)
	}
}
