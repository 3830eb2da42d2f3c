package packed

import (
	"reflect"
	"slices"
	"testing"
)

func TestAppendAllDecode(t *testing.T) {
	var s Set
	for _, x := range []int{-1, 0, 3, 3, 2, 200, 100000} {
		s.Append(x)
	}
	want := []int{0, 3, 200, 100000}
	if got := slices.Collect(s.All()); !reflect.DeepEqual(got, want) || s.Len() != len(want) {
		t.Fatalf("members %v (Len %d), want %v", got, s.Len(), want)
	}
	d, err := Decode(slices.Clone(s.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Collect(d.All()); !reflect.DeepEqual(got, want) || d.Len() != len(want) {
		t.Fatalf("decoded %v (Len %d), want %v", got, d.Len(), want)
	}
	d.Append(100000) // not above the last: dropped
	d.Append(100001)
	if d.Len() != 5 {
		t.Errorf("appending to a decoded set: Len %d, want 5", d.Len())
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	for _, data := range [][]byte{{0x80}, {1, 0}} { // a torn varint; a zero gap
		if _, err := Decode(data); err == nil {
			t.Errorf("Decode(%v) accepted damaged data", data)
		}
	}
}

// TestCloneIsExactAndReusesNothing: a clone is exactly sized, keeps the
// members, and a Reset of the original (built on again) leaves it alone.
func TestCloneIsExactAndReusesNothing(t *testing.T) {
	var s Set
	for x := range 100 {
		s.Append(3 * x)
	}
	c := s.Clone()
	if cap(c.Bytes()) != len(c.Bytes()) || c.Len() != 100 {
		t.Fatalf("clone: %d bytes holding %d, %d members", len(c.Bytes()), cap(c.Bytes()), c.Len())
	}
	s.Reset()
	s.Append(7)
	if got := slices.Collect(c.All()); len(got) != 100 || got[1] != 3 {
		t.Errorf("the clone changed with the original: %v", got[:2])
	}
	var empty Set
	if e := empty.Clone(); !reflect.DeepEqual(e, Set{}) {
		t.Errorf("the clone of an empty set is %+v, want the zero set", e)
	}
}
