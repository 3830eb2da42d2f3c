package faultlineagx

import (
	"reflect"
	"testing"
)

// TestSortedRangeKeepsRangeSemantics checks the key order, and that an
// entry deleted before it is reached is left out and one changed is seen
// with its new value, as a range over the map itself would.
func TestSortedRangeKeepsRangeSemantics(t *testing.T) {
	type rooms map[string]int
	m := rooms{"c": 3, "a": 1, "d": 4, "b": 2}
	var got []string
	var values []int
	for k, v := range SortedRange(m) {
		got = append(got, k)
		values = append(values, v)
		if k == "a" {
			delete(m, "c")
			m["b"] = 20
		}
	}
	if want := []string{"a", "b", "d"}; !reflect.DeepEqual(got, want) || !reflect.DeepEqual(values, []int{1, 20, 4}) {
		t.Errorf("got keys %v values %v", got, values)
	}
	got = nil
	for k := range SortedRange(map[int]bool{3: true, -1: true, 2: false}) {
		got = append(got, string(rune('0'+k+1)))
		if k == 2 {
			break
		}
	}
	if want := []string{"0", "3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("int keys in order %v, want %v", got, want)
	}
}
